"""The dream cycle's parameters and the rules every one of its steps shares.

``consolidate(now=...)`` runs, after the lifecycle sweep (statuses, tiers, expiry), the steps of
:mod:`eventmem.maintain.cycle`, each a pure function of (state, now, :class:`DreamParams`):

1. **rehearsal** (:mod:`~eventmem.policies.dream.rehearsal`): endangered memories get a
   stability boost;
2. **strategic forgetting** (:mod:`~eventmem.policies.dream.forgetting`): contradictions, the
   utility floor, redundancy and the capacity cap send memories to the dormant tier;
3. **clusters** (:mod:`~eventmem.policies.dream.cluster`): similar episodic memories merge into a
   consolidated memory that links to them; they go dormant;
4. **category summaries** (:mod:`~eventmem.policies.dream.summaries`): one summary memory per
   (namespace, kind) with enough active memories, refreshed when the membership changes.

Rules shared by every step:

* **Exempt memories** (pinned, immutable, flashbulb) are never made dormant, trimmed or merged.
  The lifecycle and tier policies exempt the same three.
* **Dormant** is the tier (and status) the tier policy demotes to: hidden from default recall,
  decay frozen, and revived by an access (``projections.state``). Nothing here deletes.
* Steps act on live memories only (``active``; ``stale`` too for contradictions, the utility
  floor and the capacity count): an archived, dormant, superseded or deleted one is already out of
  the way. Redundancy and clusters compare ``active`` memories only.
* Memories the cycle made (consolidated memories, summaries) are not merged again, and are left
  out of redundancy, the capacity count and category membership.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from eventmem.errors import InvalidInputError
from projections.state import MemoryRecord

# Complete or single only: the clustering runs on the sparse graph of similar pairs, which gives
# exactly the whole-matrix result for these two linkages (not for average linkage).
Linkage = Literal["complete", "single"]


class DreamParams(msgspec.Struct, kw_only=True, frozen=True):
    """What the dream cycle does, step by step (``Config.dream``). The defaults:

    * rehearsal: memories with retention under ``rehearse_below`` (0.3, the lifecycle's
      ``active_min``) that are not archived, deleted or dormant, at most ``rehearse_max`` (50)
      per cycle, the most important first, each at most once between two accesses; stability
      is multiplied by ``rehearse_boost`` (2), capped by ``DecayParams.max_stability_days``.
    * forgetting: the older side of a conflict left open ("ask") for ``conflict_grace_days`` (7);
      utility under ``utility_floor`` (0.15) with no access for ``utility_floor_idle_days`` (30);
      the lower-utility one of two active memories with cosine above ``redundancy_similarity``
      (0.9); above ``capacity`` (50,000; 0 for none) live memories in a namespace, the lowest
      utility down to ``capacity_trim_to`` (90%) of it.
    * clusters: complete-linkage agglomerative clustering of a namespace's active episodic
      memories at cosine ``cluster_similarity`` (0.75: every two members at least that similar),
      clusters of ``cluster_min_size`` (3) or more merged; the consolidated text is made of the
      ``summary_sources`` (4) members closest to the centroid. A connected group of similar
      memories larger than ``cluster_max_group`` (2,000) is clustered in slices of that size.
    * similar pairs (for redundancy and clusters): exact over all pairs of a namespace's active
      memories up to ``pairs_exact_max`` (20,000) of them; above, exact within the candidates of
      pivot blocks (:func:`~eventmem.policies.dream.cluster.blocked_pairs`): about one memory in
      ``pairs_pivot_every`` (128) is a pivot, each memory probes its ``pairs_probes`` (32)
      nearest pivots. Candidate recall against the exact search is about 0.99 at cosine 0.75 and
      1.0 at 0.9 on the benchmark corpus (``ops.bench.consolidate``).
    * summaries: a (namespace, kind) with ``summary_min_members`` (10) or more active memories
      gets a summary memory, made of its ``summary_sources`` members closest to the centroid.
    """

    enabled: bool = True  # False: consolidate runs the lifecycle sweep only
    # 1. rehearsal
    rehearse: bool = True
    rehearse_below: float = 0.3
    rehearse_max: int = 50
    rehearse_boost: float = 2.0
    # 2. strategic forgetting
    forget: bool = True
    conflict_grace_days: float = 7.0  # "ask" means the caller decides: give them a week
    utility_floor: float = 0.15
    utility_floor_idle_days: float = 30.0
    redundancy_similarity: float = 0.9
    capacity: int = 50_000
    capacity_trim_to: float = 0.9
    # 3. clusters
    # The knowledge graph: a relation weaker than prune_strength (count, recency and decaying
    # confidence; a single statement is at about 0.1 after a year) and unstated for
    # prune_idle_days is pruned.
    prune_relations: bool = True
    prune_strength: float = 0.1
    prune_idle_days: float = 180.0
    cluster: bool = True
    cluster_similarity: float = 0.75
    cluster_min_size: int = 3
    cluster_linkage: Linkage = "complete"
    # A connected group of similar memories larger than this is clustered in slices of this
    # size (creation order), so one dense namespace cannot make the cycle quadratic in memory.
    cluster_max_group: int = 2_000
    # similar pairs: exact all-pairs up to pairs_exact_max rows (n^2 d / 2 multiply-adds: a few
    # seconds at 20,000); above, pivot blocks. A pair's candidacy depends on its two rows and the
    # pivots, which are chosen by memory id: a cycle that compares fewer memories (the next one)
    # keeps the pivots it still has.
    pairs_exact_max: int = 20_000
    pairs_pivot_every: int = 128
    pairs_probes: int = 32
    # 4. category summaries
    summaries: bool = True
    summary_min_members: int = 10
    # texts a consolidated memory or a summary is made of (closest to the centroid first)
    summary_sources: int = 4

    def __post_init__(self) -> None:
        if not (0 <= self.rehearse_below <= 1 and self.rehearse_max >= 0
                and self.rehearse_boost >= 1):
            raise InvalidInputError(
                "rehearsal needs 0 <= rehearse_below <= 1, rehearse_max >= 0, rehearse_boost >= 1")
        if not (self.conflict_grace_days >= 0 and 0 <= self.utility_floor <= 1
                and self.utility_floor_idle_days >= 0):
            raise InvalidInputError("forgetting needs conflict_grace_days >= 0, 0 <= "
                                    "utility_floor <= 1 and utility_floor_idle_days >= 0")
        if not (-1 <= self.redundancy_similarity <= 1 and -1 <= self.cluster_similarity <= 1):
            raise InvalidInputError("similarity thresholds are cosines, in [-1, 1]")
        if not (self.capacity >= 0 and 0 < self.capacity_trim_to <= 1):
            raise InvalidInputError("capacity must be >= 0 and capacity_trim_to in (0, 1]")
        if not (self.cluster_min_size >= 2 and self.cluster_max_group >= self.cluster_min_size):
            raise InvalidInputError("cluster_min_size >= 2 and cluster_max_group >= it")
        if not (self.pairs_exact_max >= 0 and self.pairs_pivot_every >= 1
                and self.pairs_probes >= 1):
            raise InvalidInputError(
                "pairs_exact_max >= 0, pairs_pivot_every >= 1 and pairs_probes >= 1")
        if self.cluster_linkage not in ("complete", "single"):
            raise InvalidInputError("cluster_linkage is complete or single")
        if not (self.summary_min_members >= 1 and self.summary_sources >= 1):
            raise InvalidInputError("summary_min_members and summary_sources must be >= 1")


DEFAULT_DREAM = DreamParams()


def is_exempt(record: MemoryRecord) -> bool:
    """Pinned, immutable and flashbulb memories: never forgotten, trimmed or merged."""
    return record.pinned or record.immutable or record.flashbulb

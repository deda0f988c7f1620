"""Strategic forgetting: which memories the dream cycle sends to the dormant tier, and why.

Four rules, applied in this order within a namespace (a memory made dormant by one is out of the
later ones). Each returns :class:`~eventmem.events.DormantChange` records with the evidence.

* **contradiction**: a conflict flagged with strategy "ask" and not resolved leaves two memories
  that disagree; once it has been open ``conflict_grace_days``, the older side goes dormant while
  the newer one is still live, so an agent is no longer handed both. The conflict stays open (a
  person still decides), and an access brings the older side back.
* **utility floor**: utility (drifted to ``now``) under ``utility_floor`` and no access for
  ``utility_floor_idle_days``: feedback said it does not help, and nothing has used it since.
* **redundancy**: two active memories with cosine above ``redundancy_similarity``: the one with
  the lower utility goes dormant; ties keep the more used, then the older one. An exempt memory
  always stays (its twin goes instead); two exempt memories both stay. Pairs are taken most
  similar first (then by row), skipping pairs of which one side already went.
* **capacity**: above ``capacity`` live (active or stale, not dormant) memories in a namespace,
  the lowest utility ones (then the least important, then the oldest) go dormant until
  ``capacity_trim_to`` of the cap remain, exempt memories excepted.

Exempt memories (pinned, immutable, flashbulb) are never made dormant. Memories the dream cycle
made itself (consolidated memories and summaries) are left out of redundancy and capacity: they
overlap their members by design, and they are bounded by the clusters and categories they stand
for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

from eventmem.clock import MICROS_PER_DAY
from eventmem.events import DormantChange
from eventmem.policies.decay import DecayParams, progress
from eventmem.policies.dream.params import DreamParams, is_exempt
from eventmem.policies.utility import UtilityParams, drifted
from projections.state import ConflictRecord, MemoryRecord

POLICY_VERSION = "forgetting-1"
LIVE = frozenset({"active", "stale"})


def can_go_dormant(record: MemoryRecord) -> bool:
    """Live, not already dormant, not exempt."""
    return record.status in LIVE and record.tier != "dormant" and not is_exempt(record)


def utility_now(record: MemoryRecord, now: int, params: UtilityParams) -> float:
    """A memory's utility drifted to ``now`` from when it last changed."""
    return drifted(record.utility, record.utility_at or record.created_at, now, params)


def dormant_change(
    record: MemoryRecord, reason: str, now: int, decay: DecayParams, utility: UtilityParams, *,
    other: str | None = None, similarity: float | None = None, conflict_id: str | None = None,
    count: int = 0,
) -> DormantChange:
    """The record of ``record`` going dormant at ``now`` for ``reason``, with its evidence."""
    return DormantChange(
        memory_id=record.memory_id, reason=reason, from_tier=record.tier,
        from_status=record.status, decay_done=progress(record, now, decay),
        utility=utility_now(record, now, utility),
        idle_days=max(0, now - record.last_access_at) / MICROS_PER_DAY, other=other,
        similarity=similarity, conflict_id=conflict_id, count=count)


def contradictions(
    conflicts: Mapping[str, ConflictRecord], memories: Callable[[str], MemoryRecord | None],
    now: int, decay: DecayParams, utility: UtilityParams, params: DreamParams,
) -> list[DormantChange]:
    """The older side of each conflict left open (strategy ``ask``, not resolved) past its
    grace period, in conflict id order (a memory in several conflicts goes once, for the
    first)."""
    out: list[DormantChange] = []
    seen: set[str] = set()
    grace = params.conflict_grace_days * MICROS_PER_DAY
    for conflict_id in sorted(conflicts):
        conflict = conflicts[conflict_id]
        if conflict.status != "open" or now - conflict.flagged_at < grace:
            continue
        a, b = memories(conflict.memory_id), memories(conflict.other_id)
        if a is None or b is None:
            continue
        older, newer = (a, b) if (a.created_seq, a.memory_id) <= (b.created_seq, b.memory_id) \
            else (b, a)
        if newer.status not in LIVE or not can_go_dormant(older) or older.memory_id in seen:
            continue
        seen.add(older.memory_id)
        out.append(dormant_change(older, "contradiction", now, decay, utility,
                                  other=newer.memory_id, conflict_id=conflict_id))
    return out


def utility_floor(records: Iterable[MemoryRecord], now: int, decay: DecayParams,
                  utility: UtilityParams, params: DreamParams) -> list[DormantChange]:
    """Memories under the utility floor and unused for long enough, in the given order."""
    idle_min = params.utility_floor_idle_days * MICROS_PER_DAY
    out = []
    for record in records:
        if (can_go_dormant(record) and now - record.last_access_at >= idle_min
                and utility_now(record, now, utility) < params.utility_floor):
            out.append(dormant_change(record, "utility_floor", now, decay, utility))
    return out


def _keeps(a: MemoryRecord, b: MemoryRecord, now: int, utility: UtilityParams) -> bool:
    """Whether ``a`` stays rather than ``b`` (higher utility, then more used, then older)."""
    key_a = (-utility_now(a, now, utility), -(a.access_count + a.reinforce_count), a.created_seq,
             a.memory_id)
    key_b = (-utility_now(b, now, utility), -(b.access_count + b.reinforce_count), b.created_seq,
             b.memory_id)
    return key_a < key_b


def redundancy(
    pairs: Sequence[tuple[float, int, int]], ids: Sequence[str],
    memories: Callable[[str], MemoryRecord | None], gone: set[str], now: int,
    decay: DecayParams, utility: UtilityParams, params: DreamParams,
) -> list[DormantChange]:
    """Resolve near-duplicate pairs ``(cosine, row_a, row_b)`` (rows index ``ids``), most
    similar first, then by rows. ``gone``: ids already dormant; those made dormant here are
    added to it."""
    out = []
    for neg_sim, i, j in sorted((-s, i, j) for s, i, j in pairs
                                if s > params.redundancy_similarity):
        a, b = memories(ids[i]), memories(ids[j])
        if a is None or b is None or a.memory_id in gone or b.memory_id in gone:
            continue
        # (the fold keeps the dormant tier and status together; the tier is checked as every
        # other rule does, so that the rule holds whatever record it is handed)
        if a.status != "active" or b.status != "active" or "dormant" in (a.tier, b.tier):
            continue
        if is_exempt(a) and is_exempt(b):
            continue
        if is_exempt(a) or (not is_exempt(b) and _keeps(a, b, now, utility)):
            kept, loser = a, b
        else:
            kept, loser = b, a
        gone.add(loser.memory_id)
        out.append(dormant_change(loser, "redundant", now, decay, utility,
                                  other=kept.memory_id, similarity=-neg_sim))
    return out


def capacity(records: Iterable[MemoryRecord], now: int, decay: DecayParams,
             utility: UtilityParams, params: DreamParams) -> list[DormantChange]:
    """The memories trimmed from one namespace's ``records`` (its live, ordinary memories)."""
    live = [r for r in records if r.status in LIVE and r.tier != "dormant"]
    if not params.capacity or len(live) <= params.capacity:
        return []
    keep = math.floor(params.capacity * params.capacity_trim_to)
    ranked = sorted((r for r in live if not is_exempt(r)),
                    key=lambda r: (utility_now(r, now, utility), r.importance, r.created_seq,
                                   r.memory_id))
    return [dormant_change(r, "capacity", now, decay, utility, count=len(live))
            for r in ranked[:len(live) - keep]]

"""Tiers: working memory per session, episodic, semantic, procedural, dormant; and the hot set.

* **Promotion** (episodic → semantic): accessed ``promote_accesses`` times, or utility at least
  ``promote_utility`` once the memory is ``promote_min_age_days`` old, or (sweep-5) one of at
  least ``promote_entity_memories`` episodic memories of a namespace that share an entity
  (:func:`entity_promotions`; off unless configured, the seeds say 3). Pinned and immutable
  memories are never promoted (sweep-5; the sweeps before promoted them by use like any
  other). Reinforcements by duplicate
  ingest do not count as accesses here: a repeated statement is not evidence of use.
* **Demotion** (any tier but dormant → dormant): idle ``demote_idle_days`` since the last access
  *and* utility under ``demote_utility_below``. Pinned, immutable and flashbulb memories are
  exempt. Demotion is checked first, so a memory that qualifies for both ends dormant in one step
  instead of being promoted and demoted by consecutive sweeps.
* Only active and stale memories move between tiers: archived ones are already out of the way and
  their fate is the lifecycle's; dormant ones leave by explicit reactivation only.
* **Working memory** holds at most ``working_capacity`` items per session; the extra ones are
  evicted (to episodic) by the lowest importance x recency x access score. It ends (sweep-4 on):
  an item moves to episodic once it is ``working_max_minutes`` old (``working_expired``), has
  been accessed ``working_promote_accesses`` times (``working_accessed``) or has importance at
  least ``working_promote_importance`` (``working_important``). The sweep applies these rules at
  each consolidation, at its ``now``: an access (touch, recall) records only the access, and a
  memory stored with a high importance is created in working memory as before and moves at the
  next consolidation, so neither the access events nor the write path change version.
  ``Engine.end_session`` moves a session's items out at once (``session_ended``, a caller's
  action, like a pin).
* **Hot set**: always-relevant memories an agent can inject on every turn: a weighted score of
  utility (drifted to now), access frequency and retention, above a threshold. Retention rather than
  raw recency, so a long-lived identity fact stays hot while an old context note does not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.errors import InvalidInputError
from eventmem.policies.decay import DecayParams, retention
from eventmem.policies.utility import UtilityParams, drifted
from projections.state import MemoryRecord

MICROS_PER_HOUR = MICROS_PER_DAY // 24
MICROS_PER_MINUTE = MICROS_PER_HOUR // 60
TIERS: tuple[str, ...] = ("working", "episodic", "semantic", "procedural", "dormant")


class TierParams(msgspec.Struct, kw_only=True, frozen=True):
    """Tier rules (ARCHITECTURE.md section 9) and the hot-set score."""

    working_capacity: int = 9
    working_recency_hours: float = 1.0  # recency halves after this many idle hours (eviction)
    # Working memory ends (sweep-4): to episodic once any holds.
    working_max_minutes: float = 30.0
    working_promote_accesses: int = 2
    working_promote_importance: float = 0.6
    promote_accesses: int = 3
    promote_utility: float = 0.7
    promote_min_age_days: float = 7.0
    # From sweep-5: when at least this many of a namespace's episodic memories share an entity,
    # they move to semantic (0: never). The seeds say 3; it is off by default because on mc-dev
    # it cost one plan answer at rank 1 (0.597 -> 0.592) and one past answer in the top 10
    # (0.940 -> 0.937), every other figure unchanged: TierParams(promote_entity_memories=3)
    # turns it on, decided and audited like any sweep-5 rule.
    promote_entity_memories: int = 0
    # ... each at least this old, so that the dream cycle, which merges clusters of episodic
    # memories, sees a fresh family of near duplicates before the tier rule moves it on.
    promote_entity_min_age_days: float = 7.0
    demote_idle_days: float = 60.0
    demote_utility_below: float = 0.2
    # Hot set: score = w_u * utility + w_a * n / (n + half) + w_r * retention >= hot_min_score.
    hot_weight_utility: float = 0.4
    hot_weight_access: float = 0.3
    hot_weight_retention: float = 0.3
    hot_access_half: float = 5.0  # accesses at which the frequency term reaches 0.5
    hot_min_score: float = 0.6

    def __post_init__(self) -> None:
        if (self.working_capacity < 0 or self.promote_accesses < 1
                or self.promote_entity_memories < 0):
            raise InvalidInputError("working_capacity must be >= 0, promote_accesses >= 1 and "
                                    "promote_entity_memories >= 0")
        if not self.promote_entity_min_age_days >= 0:
            raise InvalidInputError("promote_entity_min_age_days must be >= 0")
        if not (self.working_recency_hours > 0 and self.hot_access_half > 0):
            raise InvalidInputError("working_recency_hours and hot_access_half must be > 0")
        if not (self.working_max_minutes >= 0 and self.working_promote_accesses >= 1
                and 0 <= self.working_promote_importance <= 1):
            raise InvalidInputError(
                "working memory needs working_max_minutes >= 0, working_promote_accesses >= 1 "
                "and working_promote_importance in [0, 1]")


DEFAULT_TIERS = TierParams()


def tier_change(
    record: MemoryRecord, now: int, utility_now: float, params: TierParams = DEFAULT_TIERS,
    *, working_ends: bool = True, pinned_stay: bool = True,
) -> tuple[str, str] | None:
    """The tier ``record`` should move to at ``now`` and why, or None to stay.

    ``utility_now`` is the memory's utility drifted to ``now`` (:func:`utility.drifted`), passed in
    so the rule reads every input from its signature. ``working_ends`` applies the working-memory
    rules (sweep-4 on; the sweeps before it left a working memory where it was).
    ``pinned_stay`` keeps pinned and immutable memories in their tier (sweep-5 on): a memory
    the caller fixed is not moved by use.
    """
    if record.status not in ("active", "stale") or record.tier == "dormant":
        return None
    exempt = record.pinned or record.immutable or record.flashbulb
    idle = now - record.last_access_at
    if (not exempt and idle >= params.demote_idle_days * MICROS_PER_DAY
            and utility_now < params.demote_utility_below):
        return "dormant", "demote_idle"
    if record.tier == "episodic" and not (pinned_stay and (record.pinned or record.immutable)):
        if record.access_count >= params.promote_accesses:
            return "semantic", "promote_accesses"
        age = now - record.created_at
        if (utility_now >= params.promote_utility
                and age >= params.promote_min_age_days * MICROS_PER_DAY):
            return "semantic", "promote_utility"
    if record.tier == "working" and working_ends:
        return _working_end(record, now, params)
    return None


def entity_promotions(records: Iterable[MemoryRecord], mentions: Iterable[Sequence[str]],
                      now: int, params: TierParams = DEFAULT_TIERS) -> set[str]:
    """The ids of episodic memories to promote because at least ``promote_entity_memories``
    of them share an entity: ``records`` are a namespace's memories as the sweep leaves their
    status, ``mentions`` each entity's memory ids. Active and stale, not pinned nor immutable,
    at least ``promote_entity_min_age_days`` old at ``now``, and not bound to a time: a plan or
    a memory with a valid-until says what holds for a while, not what is known of the entity
    (promoting them cost mc-dev a plan answer at rank 1 and a past one in the top 10)."""
    if params.promote_entity_memories <= 0:
        return set()
    oldest = now - params.promote_entity_min_age_days * MICROS_PER_DAY
    eligible = {r.memory_id for r in records
                if r.tier == "episodic" and r.status in ("active", "stale")
                and not (r.pinned or r.immutable) and r.created_at <= oldest
                and r.kind != "plan" and r.valid_until is None}
    promoted: set[str] = set()
    for memory_ids in mentions:
        sharing = eligible.intersection(memory_ids)
        if len(sharing) >= params.promote_entity_memories:
            promoted |= sharing
    return promoted


def _working_end(record: MemoryRecord, now: int, params: TierParams) -> tuple[str, str] | None:
    # Age from creation, not from the last access: working memory is the current task's
    # scratchpad, and an item used again is better served by the access rule.
    if now - record.created_at >= params.working_max_minutes * MICROS_PER_MINUTE:
        return "episodic", "working_expired"
    if record.access_count >= params.working_promote_accesses:
        return "episodic", "working_accessed"
    if record.importance >= params.working_promote_importance:
        return "episodic", "working_important"
    return None


def working_score(record: MemoryRecord, now: int, params: TierParams = DEFAULT_TIERS) -> float:
    """Importance x recency x access, for working-memory eviction (higher stays)."""
    hours = max(0, now - record.last_access_at) / MICROS_PER_HOUR
    # Hyperbolic, not exponential: it never underflows to 0, so old items still order by the
    # other factors instead of all tying.
    recency = 1.0 / (1.0 + hours / params.working_recency_hours)
    access = 1.0 + math.log1p(record.access_count + record.reinforce_count)
    return record.importance * recency * access


def working_evictions(
    records_in_session: Iterable[MemoryRecord],
    capacity: int,
    now: int,
    params: TierParams = DEFAULT_TIERS,
) -> list[str]:
    """Ids to evict so at most ``capacity`` remain, lowest score first.

    The caller passes the working-tier memories of one session. Ties go to the older memory
    (lower ``created_seq``), then the id, so the choice never depends on input order.
    """
    if capacity < 0:
        raise InvalidInputError(f"capacity must be >= 0, got {capacity}")
    records = list(records_in_session)
    excess = len(records) - capacity
    if excess <= 0:
        return []
    ranked = sorted(records, key=lambda r: (working_score(r, now, params), r.created_seq,
                                            r.memory_id))
    return [r.memory_id for r in ranked[:excess]]


def hot_score(
    record: MemoryRecord,
    now: int,
    decay_params: DecayParams,
    utility_params: UtilityParams,
    params: TierParams = DEFAULT_TIERS,
) -> float:
    """The hot-set score of one memory: utility, access frequency and retention, weighted."""
    utility = drifted(record.utility, record.utility_at or record.created_at, now, utility_params)
    uses = record.access_count + record.reinforce_count
    frequency = uses / (uses + params.hot_access_half)
    return (params.hot_weight_utility * utility + params.hot_weight_access * frequency
            + params.hot_weight_retention * retention(record, now, decay_params))


def hot_set(
    records: Iterable[MemoryRecord],
    now: int,
    k: int,
    decay_params: DecayParams,
    utility_params: UtilityParams,
    params: TierParams = DEFAULT_TIERS,
) -> list[str]:
    """Up to ``k`` ids of active, non-dormant memories scoring at least ``hot_min_score``.

    Best first; ties by ``created_seq`` then id (deterministic whatever the input order).
    """
    if k <= 0:
        return []
    scored: list[tuple[float, int, str]] = []
    for record in records:
        if record.status != "active" or record.tier == "dormant":
            continue
        score = hot_score(record, now, decay_params, utility_params, params)
        if score >= params.hot_min_score:
            scored.append((-score, record.created_seq, record.memory_id))
    scored.sort()
    return [memory_id for _, _, memory_id in scored[:k]]

"""The sweep: what time has done to the store at a given ``now``, as events; and the report of a
whole consolidation (the sweep plus the dream cycle of :mod:`eventmem.maintain.cycle`).

``sweep_events`` is a pure function of the projections, ``now`` and the config: it asks the
lifecycle, tier and expiry policies about every memory and returns the events that record their
decisions (one lifecycle and one tier event per namespace, one invalidation per expired memory).
The engine appends them; a replay applies them; an audit can call this again on the state as it
was and compare. Sweeping twice at the same ``now`` returns nothing the second time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

import msgspec

from eventmem.clock import from_micros
from eventmem.config import Config
from eventmem.events import (
    CONTENT_GONE,
    BoxSealed,
    CategorySummarized,
    DormantChange,
    Event,
    LifecycleTransitioned,
    MemoriesDormant,
    MemoriesRehearsed,
    MemoryConsolidated,
    MemoryInvalidated,
    Rehearsal,
    RelationsPruned,
    StatusChange,
    TierChange,
    TierChanged,
    purged_ids,
)
from eventmem.policies import lifecycle, tiers
from eventmem.policies.decay import progress
from eventmem.policies.utility import drifted
from projections import Projections
from projections.state import HIDDEN_STATUSES, MemoryRecord


class ConsolidationReport(msgspec.Struct, frozen=True, kw_only=True):
    """What a consolidation changed, step by step (empty tuples when nothing was due)."""

    now: datetime  # the time it consolidated at (aware, UTC)
    # the lifecycle sweep
    status_changes: tuple[StatusChange, ...] = ()
    tier_changes: tuple[TierChange, ...] = ()
    invalidated: tuple[str, ...] = ()
    seqs: tuple[int, ...] = ()  # the events that recorded it all
    # the dream cycle
    rehearsed: tuple[Rehearsal, ...] = ()
    dormant: tuple[DormantChange, ...] = ()  # forgetting, and the members of new clusters
    consolidated: tuple[MemoryConsolidated, ...] = ()
    summarized: tuple[CategorySummarized, ...] = ()
    pruned_relations: int = 0  # knowledge-graph relations pruned as too weak
    boxes_sealed: tuple[str, ...] = ()  # the boxes of sessions gone quiet, sealed (box ids)
    dry_run: bool = False  # decided, not appended: what a run at ``now`` would record

    @property
    def changed(self) -> bool:
        """Whether it appended anything; for a dry run, whether a real run would have."""
        if not self.dry_run:
            return bool(self.seqs)
        return bool(self.status_changes or self.tier_changes or self.invalidated
                     or self.rehearsed or self.dormant or self.consolidated or self.summarized
                     or self.pruned_relations or self.boxes_sealed)


SweepReport = ConsolidationReport  # the name before the dream cycle


def sweep_events(views: Projections, now: int, at: int, config: Config, *,
                 policy: str = lifecycle.SWEEP_POLICY) -> list[Event]:
    """The events a sweep at ``now`` appends (transaction time ``at``), in a fixed order.

    ``policy`` is the sweep version to decide as (the audit re-runs an old log's version)."""
    by_namespace: dict[str, list[MemoryRecord]] = {}
    for record in views.state.memories.values():
        by_namespace.setdefault(record.namespace, []).append(record)
    events: list[Event] = []
    for namespace in sorted(by_namespace):
        events += _namespace_events(namespace, by_namespace[namespace], now, at, config, policy)
    return events


def _namespace_events(
    namespace: str, records: list[MemoryRecord], now: int, at: int, config: Config,
    policy: str = lifecycle.SWEEP_POLICY,
) -> Iterable[Event]:
    transitions = lifecycle.sweep(records, now, config.decay, config.lifecycle, policy)
    if transitions:
        yield LifecycleTransitioned(
            at=at, namespace=namespace, now=now, policy=policy,
            changes=tuple(StatusChange(memory_id=t.memory_id, from_status=t.from_status,
                                       to_status=t.to_status, reason=t.reason,
                                       retention=t.retention) for t in transitions))
    leaving = {t.memory_id for t in transitions if t.to_status not in ("active", "stale")}
    # The tiers are judged on the status this sweep leaves: a memory it brings back from
    # archived (pinned since, or a ``now`` before its archival) moves tier now, not at a second
    # sweep at the same ``now`` (sweep-1 left that to the next sweep).
    entering = {} if policy == lifecycle.SWEEP_1 else {
        t.memory_id: t.to_status for t in transitions if t.memory_id not in leaving}
    ordered = sorted(records, key=lambda r: (r.created_seq, r.memory_id))
    tier_changes = []
    current = [msgspec.structs.replace(record, status=entering[record.memory_id],
                                       status_since=now)
               if record.memory_id in entering else record
               for record in ordered if record.memory_id not in leaving]
    for record in current:
        utility_now = drifted(record.utility, record.utility_at or record.created_at, now,
                              config.utility)
        def moved(rec: MemoryRecord, utility_now: float = utility_now
                  ) -> tuple[str, str] | None:
            return tiers.tier_change(rec, now, utility_now, config.tiers,
                                     working_ends=policy not in lifecycle.WORKING_KEPT,
                                     pinned_stay=policy not in lifecycle.BEFORE_SWEEP_5)

        change = moved(record)
        # Where the rules settle (sweep-6): a working memory used enough to leave for episodic
        # is promoted in the same change, not by a second sweep at the same now.
        while change is not None and policy not in lifecycle.ONE_TIER_STEP:
            further = moved(msgspec.structs.replace(record, tier=change[0]))
            if further is None or further[0] == change[0]:
                break
            change = further
        if change is not None:
            tier_changes.append(TierChange(
                memory_id=record.memory_id, from_tier=record.tier, to_tier=change[0],
                reason=change[1], decay_done=progress(record, now, config.decay)))
    if tier_changes:
        yield TierChanged(at=at, namespace=namespace, now=now, changes=tuple(tier_changes),
                          policy=policy)
    for record in ordered:
        if (record.valid_until is not None and record.valid_until <= now
                and record.invalidated_at is None and record.status not in HIDDEN_STATUSES):
            yield MemoryInvalidated(at=at, namespace=namespace, memory_id=record.memory_id,
                                    until=record.valid_until, reason="expired", now=now)


def entity_events(views: Projections, namespaces: Iterable[str],
                  records_of: Callable[[str], list[MemoryRecord]], now: int, at: int,
                  config: Config, policy: str = lifecycle.SWEEP_POLICY) -> list[Event]:
    """sweep-5's promotion of episodic memories that share an entity (:func:`tiers.
    entity_promotions`), one tier event per namespace. The cycle asks last, on the records as
    its other steps leave them: a family of near duplicates is merged by the dream cycle rather
    than promoted one by one. None under the sweeps before sweep-5."""
    if policy in lifecycle.BEFORE_SWEEP_5:
        return []
    events: list[Event] = []
    for namespace in namespaces:
        graph = views.graph.namespaces.get(namespace)
        if graph is None:
            continue
        records = records_of(namespace)
        promoted = tiers.entity_promotions(
            records, [graph.entities[key].memory_ids for key in sorted(graph.entities)], now,
            config.tiers)
        changes = tuple(
            TierChange(memory_id=r.memory_id, from_tier=r.tier, to_tier="semantic",
                       reason="promote_entity", decay_done=progress(r, now, config.decay))
            for r in sorted(records, key=lambda r: (r.created_seq, r.memory_id))
            if r.memory_id in promoted)
        if changes:
            events.append(TierChanged(at=at, namespace=namespace, now=now, changes=changes,
                                      policy=policy))
    return events


def purged_contents(views: Projections, events: list[Event]) -> list[str]:
    """The content hashes a sweep's purges free: those no memory still holding its content (any
    status but purged or erased, any namespace) shares. Sorted, so the bytes removed are a
    function of the state alone."""
    purged = {mid for event in events for mid in purged_ids(event)}
    if not purged:
        return []
    memories = views.state.memories
    candidates = {memories[mid].content_hash for mid in purged}
    still_used = {r.content_hash for r in memories.values()
                  if r.content_hash in candidates and r.memory_id not in purged
                  and r.status not in CONTENT_GONE}
    return sorted(candidates - still_used)


def report(now: int, events: list[Event], seqs: list[int], *,
           dry_run: bool = False) -> ConsolidationReport:
    """The report of a consolidation at ``now`` (epoch microseconds) that appended ``events`` at
    ``seqs`` (a dry run: that decided them and appended nothing)."""
    status_changes: list[StatusChange] = []
    tier_changes: list[TierChange] = []
    invalidated: list[str] = []
    rehearsed: list[Rehearsal] = []
    dormant: list[DormantChange] = []
    consolidated: list[MemoryConsolidated] = []
    summarized: list[CategorySummarized] = []
    pruned = 0
    sealed: list[str] = []
    for event in events:
        if isinstance(event, LifecycleTransitioned):
            status_changes += event.changes
        elif isinstance(event, TierChanged):
            tier_changes += event.changes
        elif isinstance(event, MemoryInvalidated):
            invalidated.append(event.memory_id)
        elif isinstance(event, MemoriesRehearsed):
            rehearsed += event.changes
        elif isinstance(event, MemoriesDormant):
            dormant += event.changes
        elif isinstance(event, MemoryConsolidated):
            consolidated.append(event)
        elif isinstance(event, CategorySummarized):
            summarized.append(event)
        elif isinstance(event, RelationsPruned):
            pruned += len(event.edges)
        elif isinstance(event, BoxSealed):
            sealed.append(event.box_id)
    return ConsolidationReport(
        now=from_micros(now), status_changes=tuple(status_changes),
        tier_changes=tuple(tier_changes),
        invalidated=tuple(invalidated), seqs=tuple(seqs), rehearsed=tuple(rehearsed),
        dormant=tuple(dormant), consolidated=tuple(consolidated),
        summarized=tuple(summarized), pruned_relations=pruned, boxes_sealed=tuple(sealed),
        dry_run=dry_run)

"""The dream cycle: what ``consolidate(now=...)`` decides, as one ordered list of events.

:func:`plan` runs the steps in order, each a pure function of the state as the earlier steps
left it, ``now`` and the config:

1. the lifecycle sweep (:mod:`eventmem.maintenance`: statuses, tiers, expiry, archival, purge);
2. rehearsal of endangered memories (:mod:`eventmem.policies.rehearsal`);
3. strategic forgetting (:mod:`eventmem.policies.forgetting`);
4. clusters merged into consolidated memories (:mod:`eventmem.policies.cluster`);
5. category summaries (:mod:`eventmem.policies.summaries`);
6. the graph's edge decay and pruning (a hook: :func:`graph_step`).

Later steps see what earlier ones decided through the cycle's overlay (:mod:`eventmem.cycle`),
while nothing is folded into the live projections before the engine's one atomic append: the
state a step sees is exactly the state the log holds just before that step's events.

Memories the cycle creates are ``memory.ingested`` events (source and actor "consolidation") with
their text, vector and terms stored like any ingest's, followed by the event that says why
(``memory.consolidated`` or ``memory.category_summarized``). Their text comes from the summarizer
once, here; replay reads it from the store. Running the cycle twice at the same ``now`` plans
nothing the second time (each step's rules are written so that their own outcome does not qualify
again; the tests check it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import NamedTuple, cast

import numpy as np

from eventmem import validation
from eventmem.config import Config
from eventmem.content import Content
from eventmem.cycle import ContentsFor, Cycle, Pairs, TextOf
from eventmem.errors import InvalidInputError
from eventmem.events import (
    DREAM_POLICY,
    CategorySummarized,
    DormantChange,
    Event,
    LifecycleTransitioned,
    MemoriesDormant,
    MemoriesRehearsed,
    MemoryConsolidated,
    MemoryIngested,
    MemoryKind,
    MemoryLink,
    Rehearsal,
    RelationsPruned,
    purged_ids,
)
from eventmem.log import Head
from eventmem.maintenance import sweep_events
from eventmem.policies import cluster, forgetting, rehearsal, summaries
from eventmem.policies.consolidation import is_exempt
from eventmem.policies.lifecycle import SWEEP_POLICY
from eventmem.policies.summaries import EXTRACTIVE, Summarizer, summarizer_id
from eventmem.text import content_hash, dedup_key
from projections import Projections
from projections import graph as graph_view
from projections.state import MemoryRecord, category_key

# dream-1 and dream-2 merged the sides of an open conflict into one consolidated memory.
DREAMS_MERGING_CONFLICTS = frozenset({"dream-1", "dream-2"})


class Plan(NamedTuple):
    events: list[Event]
    contents: dict[str, Content]  # the texts of the memories the cycle creates, to store


# -- the steps ----------------------------------------------------------------------------------


def rehearsal_step(cycle: Cycle) -> None:
    """Endangered memories, the most important first, get a stability boost."""
    if not cycle.params.rehearse:
        return
    chosen = rehearsal.rehearse(cycle.state.records(), cycle.now, cycle.state.state.rehearsed_at,
                                cycle.config.decay, cycle.params)
    by_ns: dict[str, list[Rehearsal]] = {}
    for change in chosen:
        record = cycle.state.get(change.memory_id)
        assert record is not None
        by_ns.setdefault(record.namespace, []).append(change)
    cycle.emit([MemoriesRehearsed(at=cycle.at, namespace=ns, actor="consolidation",
                                  now=cycle.now, changes=tuple(by_ns[ns]))
                for ns in sorted(by_ns)])


def forgetting_step(cycle: Cycle) -> None:
    """Contradictions, the utility floor, redundancy and the capacity cap, per namespace."""
    params, now, decay, utility = cycle.params, cycle.now, cycle.config.decay, cycle.config.utility
    made = cycle.dream_made()
    by_ns: dict[str, list[DormantChange]] = {}
    if params.forget:
        for change in forgetting.contradictions(cycle.state.state.conflicts,
                                                cycle.state.get, now, decay, utility, params):
            record = cycle.state.get(change.memory_id)
            assert record is not None
            by_ns.setdefault(record.namespace, []).append(change)
            cycle.gone.add(change.memory_id)
    for ns in cycle.state.namespaces():
        records = cycle.state.namespace_records(ns)
        ordinary = [r for r in records if r.memory_id not in made]
        if params.cluster or params.forget:
            cycle.pairs[ns] = _pairs(cycle, ns, [r for r in ordinary if r.status == "active"])
        if not params.forget:
            continue
        changes = by_ns.setdefault(ns, [])
        for change in forgetting.utility_floor(
                (r for r in records if r.memory_id not in cycle.gone), now, decay, utility,
                params):
            changes.append(change)
            cycle.gone.add(change.memory_id)
        pairs = cycle.pairs[ns]
        changes += forgetting.redundancy(
            list(zip(pairs.sims.tolist(), pairs.i.tolist(), pairs.j.tolist(), strict=True)),
            pairs.ids, cycle.state.get, cycle.gone, now, decay, utility, params)
        for change in forgetting.capacity((r for r in ordinary if r.memory_id not in cycle.gone),
                                          now, decay, utility, params):
            changes.append(change)
            cycle.gone.add(change.memory_id)
    cycle.emit([MemoriesDormant(at=cycle.at, namespace=ns, actor="consolidation", now=now,
                                changes=tuple(by_ns[ns]))
                for ns in sorted(by_ns) if by_ns[ns]])


def _pairs(cycle: Cycle, namespace: str, records: list[MemoryRecord]) -> Pairs:
    """The similar pairs among ``records`` (exact search over their vector rows)."""
    space = cycle.views.vectors.spaces.get(namespace)
    index = cycle.rows(namespace)
    rows = sorted(row for r in records if (row := index.get(r.memory_id)) is not None)
    if space is None or len(rows) < 2:
        empty = np.empty(0, dtype=np.int64)
        return Pairs([], np.empty((0, 0), dtype=np.float32), empty, empty,
                     np.empty(0, dtype=np.float64))
    matrix = space.matrix[rows]
    params = cycle.params
    threshold = params.redundancy_similarity if params.forget else 1.0
    if params.cluster:
        threshold = min(threshold, params.cluster_similarity)
    i, j, sims = cluster.similar_pairs(matrix, threshold)
    return Pairs([space.ids[row] for row in rows], matrix, i, j, sims)


def cluster_step(cycle: Cycle) -> None:
    """Clusters of similar active episodic memories become consolidated memories."""
    params = cycle.params
    if not params.cluster:
        return
    made = cycle.dream_made()
    kept_out = {m for members in cycle.state.state.consolidations.values() for m in members}
    if cycle.dream_policy not in DREAMS_MERGING_CONFLICTS:
        # The two sides of a conflict left open for the caller ("ask") are not merged into one
        # text that states both: that would settle it behind the caller's back.
        kept_out |= {mid for c in cycle.state.state.conflicts.values()
                     if c.status == "open" for mid in (c.memory_id, c.other_id)}
    planned: list[tuple[str, list[Event], list[DormantChange]]] = []
    texts: dict[str, str] = {}
    for ns in sorted(cycle.pairs):
        pairs = cycle.pairs[ns]
        keep = []
        for position, mid in enumerate(pairs.ids):
            record = cycle.state.get(mid)
            if (record is not None and record.status == "active" and record.tier == "episodic"
                    and not is_exempt(record) and mid not in made and mid not in kept_out
                    and mid not in cycle.gone):
                keep.append(position)
        if len(keep) < params.cluster_min_size:
            continue
        local = np.full(len(pairs.ids), -1, dtype=np.int64)
        local[keep] = np.arange(len(keep))
        li, lj = local[pairs.i], local[pairs.j]
        both = (li >= 0) & (lj >= 0)
        matrix = pairs.matrix[keep]
        ids = [pairs.ids[p] for p in keep]
        found = cluster.clusters(matrix, li[both], lj[both], pairs.sims[both],
                                 similarity=params.cluster_similarity,
                                 min_size=params.cluster_min_size,
                                 linkage=params.cluster_linkage,
                                 max_group=params.cluster_max_group)
        events: list[Event] = []
        dormant: list[DormantChange] = []
        for rows in found:
            made_events, made_dormant = _consolidate(cycle, ns, matrix, rows,
                                                     [ids[r] for r in rows.tolist()], texts)
            events += made_events
            dormant += made_dormant
        planned.append((ns, events, dormant))
    cycle.store(texts)
    for ns, events, dormant in planned:
        if dormant:
            events.append(MemoriesDormant(at=cycle.at, namespace=ns, actor="consolidation",
                                          now=cycle.now, changes=tuple(dormant)))
        cycle.emit(events)


def _consolidate(cycle: Cycle, namespace: str, matrix: np.ndarray, rows: np.ndarray,
                 member_ids: list[str], texts: dict[str, str]
                 ) -> tuple[list[Event], list[DormantChange]]:
    """The events that merge one cluster, and its members' dormant changes."""
    params, config = cycle.params, cycle.config
    members = [cycle.state.get(mid) for mid in member_ids]
    records = cast(list[MemoryRecord], members)
    sources = summaries.pick_sources(
        matrix, rows, [r.created_seq for r in records], [r.dedup_key for r in records],
        lambda p: cycle.text(records[p].content_hash), params.summary_sources,
        config.max_text_chars)
    text, method = _summarize(cycle, [s.text for s in sources])
    memory_id = cycle.new_memory_id()
    chash = content_hash(text)
    texts[chash] = text
    kinds = Counter(r.kind for r in records)
    kind = max(kinds, key=lambda k: (kinds[k], -[r.kind for r in records].index(k)))
    centre = cluster.centroid_cosines(matrix, rows)
    froms = [r.valid_from for r in records]
    untils = [r.valid_until for r in records]
    ingested = MemoryIngested(
        at=cycle.at, namespace=namespace, actor="consolidation", source="consolidation",
        memory_id=memory_id, content_hash=chash, dedup_key=dedup_key(text),
        kind=cast(MemoryKind, kind), kind_rule="dream:majority",
        stability=max(r.stability for r in records),
        importance=max(r.importance for r in records),
        confidence=sum(r.confidence for r in records) / len(records),
        valid_from=None if None in froms else min(cast(list[int], froms)),
        valid_until=None if None in untils else max(cast(list[int], untils)),
        rule="dream:cluster", policy=DREAM_POLICY, tier="semantic",
        derived_from=tuple(member_ids),
        links=tuple(MemoryLink(target=mid, relation="elaborates", weight=round(float(c), 6))
                    for mid, c in zip(member_ids, centre.tolist(), strict=True)))
    consolidated = MemoryConsolidated(
        at=cycle.at, namespace=namespace, actor="consolidation", now=cycle.now,
        memory_id=memory_id, members=tuple(member_ids),
        sources=tuple(member_ids[s.position] for s in sources), method=method,
        algorithm=cluster.algorithm(params.cluster_linkage, params.cluster_similarity),
        threshold=params.cluster_similarity, cohesion=cluster.cohesion(matrix, rows))
    dormant = [forgetting.dormant_change(r, "consolidated", cycle.now, config.decay,
                                         config.utility, other=memory_id,
                                         similarity=float(c))
               for r, c in zip(records, centre.tolist(), strict=True)]
    cycle.gone.update(member_ids)
    return [ingested, consolidated], dormant


def _summarize(cycle: Cycle, texts: list[str]) -> tuple[str, str]:
    """The summary text of ``texts`` (normalized like an ingest's) and the method that made it.
    A summarizer that fails or returns an unusable text falls back to the extractive one."""
    method = summarizer_id(cycle.summarizer)
    try:
        return validation.text(cycle.summarizer.summarize(list(texts)), cycle.config), method
    except (InvalidInputError, ValueError, TypeError):
        if cycle.summarizer is EXTRACTIVE:
            raise
    return (validation.text(EXTRACTIVE.summarize(texts), cycle.config),
            f"{EXTRACTIVE.summarizer_id}:fallback")


def summary_step(cycle: Cycle) -> None:
    """One summary memory per (namespace, kind) with enough active memories, refreshed when
    the membership changed."""
    params = cycle.params
    if not params.summaries:
        return
    texts: dict[str, str] = {}
    planned: list[list[Event]] = []
    for ns in cycle.state.namespaces():
        current = {ref.memory_id for ref in cycle.state.state.summaries.values()}
        by_kind: dict[str, list[MemoryRecord]] = {}
        for record in cycle.state.namespace_records(ns):
            if record.status == "active" and record.memory_id not in current:
                by_kind.setdefault(record.kind, []).append(record)
        for kind in sorted(by_kind):
            members = by_kind[kind]
            if len(members) >= params.summary_min_members:
                planned.append(_summary(cycle, ns, kind, members, texts))
    cycle.store(texts)
    for events in planned:
        cycle.emit(events)


def _summary(cycle: Cycle, namespace: str, kind: str, members: list[MemoryRecord],
             texts: dict[str, str]) -> list[Event]:
    digest = summaries.members_digest([r.memory_id for r in members])
    ref = cycle.state.state.summaries.get(category_key(namespace, kind))
    if ref is not None and ref.members_digest == digest:
        return []
    with_rows = [(r, v) for r in members if (v := cycle.vector(r)) is not None]
    if not with_rows:
        return []
    matrix = np.stack([v for _, v in with_rows])
    sourced = [r for r, _ in with_rows]
    sources = summaries.pick_sources(
        matrix, np.arange(len(sourced)), [r.created_seq for r in sourced],
        [r.dedup_key for r in sourced], lambda p: cycle.text(sourced[p].content_hash),
        cycle.params.summary_sources, cycle.config.max_text_chars)
    if not sources:
        return []
    text, method = _summarize(cycle, [s.text for s in sources])
    source_ids = tuple(sourced[s.position].memory_id for s in sources)
    old = None if ref is None else cycle.state.get(ref.memory_id)

    def summarized(memory_id: str, replaces: str | None = None) -> CategorySummarized:
        return CategorySummarized(
            at=cycle.at, namespace=namespace, actor="consolidation", now=cycle.now,
            memory_id=memory_id, kind=cast(MemoryKind, kind), members=len(members),
            members_digest=digest, sources=source_ids, method=method, replaces=replaces)

    if old is not None and old.status == "active" and old.dedup_key == dedup_key(text):
        # The same summary: record the new membership on it rather than a copy of its text.
        return [summarized(old.memory_id)]
    memory_id = cycle.new_memory_id()
    chash = content_hash(text)
    texts[chash] = text
    ingested = MemoryIngested(
        at=cycle.at, namespace=namespace, actor="consolidation", source="consolidation",
        memory_id=memory_id, content_hash=chash, dedup_key=dedup_key(text),
        kind=cast(MemoryKind, kind), kind_rule="dream:category",
        stability=cycle.config.base_stability_days[kind],
        importance=sum(r.importance for r in members) / len(members),
        rule="dream:summary", policy=DREAM_POLICY, tier="semantic", derived_from=source_ids,
        links=tuple(MemoryLink(target=sid, relation="elaborates", weight=round(s.cosine, 6))
                    for sid, s in zip(source_ids, sources, strict=True)))
    replaces = None
    if old is not None and old.status not in ("superseded", "deleted", "purged", "erased"):
        replaces = old.memory_id
    return [ingested, summarized(memory_id, replaces)]


def graph_step(cycle: Cycle) -> None:
    """The knowledge graph's maintenance: a relation's strength decays with the time since it
    was last stated (recency and confidence, :func:`projections.graph.strength`); one weaker
    than ``prune_strength`` and unseen for ``prune_idle_days`` is pruned, one event per
    namespace. Its entities and the memories naming them stay."""
    params = cycle.params
    if not params.prune_relations:
        return
    graph = cycle.views.graph
    # The graph is the views' as the cycle began; the memories this cycle's sweep purges are
    # judged gone, as their purge (and any rebuild, which never sees their extractions) has it.
    purged: dict[str, set[str]] = {}
    for event in cycle.events:
        if isinstance(event, LifecycleTransitioned) and (ids := purged_ids(event)):
            purged.setdefault(event.namespace, set()).update(ids)
    for namespace in sorted(graph.namespaces):
        weak = graph_view.weak_edges(graph, namespace, cycle.now, below=params.prune_strength,
                                     idle_days=params.prune_idle_days,
                                     purged=frozenset(purged.get(namespace, ())))
        if weak:
            cycle.emit([RelationsPruned(
                at=cycle.at, namespace=namespace, actor="consolidation", now=cycle.now,
                edges=tuple(d for d, _ in weak), strengths=tuple(round(v, 6) for _, v in weak),
                policy=DREAM_POLICY)])


STEPS: tuple[tuple[str, Callable[[Cycle], None]], ...] = (
    ("rehearsal", rehearsal_step),
    ("forgetting", forgetting_step),
    ("clusters", cluster_step),
    ("summaries", summary_step),
    ("graph", graph_step),
)


def plan(views: Projections, now: int, at: int, config: Config, *, head: Head,
         text_of: TextOf, contents_for: ContentsFor,
         summarizer: Summarizer | None = None, sweep_policy: str = SWEEP_POLICY,
         dream_policy: str = DREAM_POLICY) -> Plan:
    """The events of one consolidation at ``now`` (transaction time ``at``), in log order, and
    the content of the memories it creates. ``head`` is the log head the events will follow.

    ``text_of`` reads a stored text by content hash; ``contents_for`` analyses and embeds new
    texts (the engine's content cache). Neither changes the store. ``sweep_policy`` and
    ``dream_policy`` are the versions to decide as: the current ones, or those an audit finds
    recorded in an older log.
    """
    cycle = Cycle(views, now, at, config, head, text_of, contents_for, summarizer)
    cycle.dream_policy = dream_policy
    cycle.emit(sweep_events(views, now, at, config, policy=sweep_policy))
    if config.dream.enabled:
        for _, step in STEPS:
            step(cycle)
    return Plan(cycle.events, cycle.contents)

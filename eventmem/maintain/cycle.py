"""The dream cycle: what ``consolidate(now=...)`` decides, as one ordered list of events.

:func:`plan` runs the steps in order, each a pure function of the state as the earlier steps
left it, ``now`` and the config:

1. the lifecycle sweep (:mod:`eventmem.maintain.sweep`: statuses, tiers, expiry, archival, purge);
2. rehearsal of endangered memories (:mod:`eventmem.policies.dream.rehearsal`);
3. strategic forgetting (:mod:`eventmem.policies.dream.forgetting`);
4. clusters merged into consolidated memories (:mod:`eventmem.policies.dream.cluster`);
5. category summaries (:mod:`eventmem.policies.dream.summaries`);
6. the graph's edge decay and pruning (a hook: :func:`graph_step`);

and, after the entity promotions, the boxes of sessions gone quiet are sealed
(:func:`eventmem.policies.boxes.quiet_boxes`).

Later steps see what earlier ones decided through the cycle's overlay (:class:`Overlay`), while
nothing is folded into the live projections before the engine's one atomic append: the state a
step sees is exactly the state the log holds just before that step's events.

Memories the cycle creates are ``memory.ingested`` events (source and actor "consolidation") with
their text, vector and terms stored like any ingest's, followed by the event that says why
(``memory.consolidated`` or ``memory.category_summarized``). Their text comes from the summarizer
once, here; replay reads it from the store. Running the cycle twice at the same ``now`` plans
nothing the second time (each step's rules are written so that their own outcome does not qualify
again; the tests check it).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, cast

import msgspec
import numpy as np

from eventmem import checks, progress
from eventmem.clock import from_micros
from eventmem.config import Config
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
    TimeSpan,
    memory_ids_of,
    purged_ids,
)
from eventmem.maintain.sweep import entity_events, sweep_events
from eventmem.policies import boxes, plasticity, times
from eventmem.policies.dream import cluster, forgetting, rehearsal, summaries
from eventmem.policies.dream.params import is_exempt
from eventmem.policies.dream.summaries import EXTRACTIVE, Summarizer, summarizer_id
from eventmem.policies.lifecycle import SWEEP_POLICY
from eventmem.storage.envelope import Content, Envelope
from eventmem.storage.log import Head
from eventmem.text.normalize import content_hash, dedup_key
from projections import Projections
from projections import graph as graph_view
from projections import state as state_view
from projections.state import MemoryRecord, State, category_key

# The state of one dream cycle under way: what it was given, what it decided so far, and the
# overlay that shows the state as those decisions leave it.
#
# The steps below must see what earlier steps decided, yet nothing may be folded into the live
# projections before the cycle's one atomic append. :class:`Overlay` keeps copies of
# the records the cycle's events touch (and records of the memories it creates), folded with the
# very same ``projections.state.apply`` and the seqs the log will assign: the state a step sees is
# exactly the state the log holds just before that step's events, which is also what an audit
# re-running the step on the log's prefix sees.

TextOf = Callable[[str], str | None]  # content hash -> the stored text (None when gone)
ContentsFor = Callable[[Mapping[str, str]], Mapping[str, Content]]  # hash -> text, to store


class Overlay:
    """The state as the cycle's events so far leave it, without touching the live state: the
    live records, except those the cycle changed or created, which are folded copies."""

    def __init__(self, base: State, first_seq: int) -> None:
        self._base = base.memories
        self.state = State(
            conflicts=dict(base.conflicts), rehearsed_at=dict(base.rehearsed_at),
            consolidations=dict(base.consolidations), summaries=dict(base.summaries))
        self._next_seq = first_seq
        self._by_namespace: dict[str, list[str]] | None = None
        self.created: list[str] = []

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The record as the cycle's events so far leave it (None: no such memory)."""
        record = self.state.memories.get(memory_id)
        return self._base.get(memory_id) if record is None else record

    def apply(self, events: Iterable[Event]) -> None:
        """Fold events (in log order) into copies of the records they touch."""
        copies = self.state.memories
        for event in events:
            for mid in memory_ids_of(event):
                if mid not in copies and mid in self._base:
                    copies[mid] = msgspec.structs.replace(self._base[mid])
            if isinstance(event, MemoryIngested):
                self.created.append(event.memory_id)
                if self._by_namespace is not None:
                    self._by_namespace.setdefault(event.namespace, []).append(event.memory_id)
            state_view.apply(self.state, Envelope(self._next_seq, event))
            self._next_seq += 1

    def records(self) -> Iterator[MemoryRecord]:
        """Every record, in creation order."""
        copies = self.state.memories
        for mid, record in self._base.items():
            yield copies.get(mid, record)
        for mid in self.created:
            yield copies[mid]

    def namespaces(self) -> list[str]:
        """Every namespace holding a record, the cycle's new memories included, sorted."""
        return sorted(self._namespace_ids())

    def namespace_records(self, namespace: str) -> list[MemoryRecord]:
        """The records of one namespace, in creation order."""
        get = self.get
        return [get(mid) for mid in self._namespace_ids().get(namespace, ())]  # type: ignore[misc]

    def _namespace_ids(self) -> dict[str, list[str]]:
        if self._by_namespace is None:
            found: dict[str, list[str]] = {}
            for record in self.records():
                found.setdefault(record.namespace, []).append(record.memory_id)
            self._by_namespace = found
        return self._by_namespace


class Pairs(NamedTuple):
    """The similar pairs among a namespace's active, ordinary memories (see forgetting_step)."""

    ids: list[str]  # the memories searched, in vector row order
    matrix: np.ndarray  # their unit rows (float32)
    i: np.ndarray
    j: np.ndarray
    sims: np.ndarray
    search: str = "exact"  # how the pairs were found (cluster.pair_search when blocked)


class Cycle:
    """One dream cycle under way: its inputs, the events decided so far, and their overlay."""

    def __init__(self, views: Projections, now: int, at: int, config: Config, head: Head,
                 text_of: TextOf, contents_for: ContentsFor,
                 summarizer: Summarizer | None) -> None:
        self.views, self.now, self.at, self.config, self.head = views, now, at, config, head
        self.params = config.dream
        self.dream_policy = DREAM_POLICY  # the version to decide as (an audit may set an older)
        self.summarizer = summarizer or EXTRACTIVE
        self._text_of = text_of
        self._contents_for = contents_for
        self.events: list[Event] = []
        self.contents: dict[str, Content] = {}
        self.state = Overlay(views.state, head.seq + 1)
        self.gone: set[str] = set()  # made dormant by this cycle's forgetting
        self.pairs: dict[str, Pairs] = {}
        self._texts: dict[str, str | None] = {}
        self._rows: dict[str, dict[str, int]] = {}
        self._new_ids = 0

    def emit(self, events: Sequence[Event]) -> None:
        """Decide ``events``: add them to the cycle's output and fold them into the overlay, so the
        steps after this one see them."""
        self.events += events
        self.state.apply(events)

    def text(self, chash: str) -> str | None:
        """The stored text of a content hash, the texts this cycle creates included: they are
        in the log (and the audit reads them there) before anything later reads the cycle."""
        made = self.contents.get(chash)
        if made is not None:
            return made.text
        if chash not in self._texts:
            self._texts[chash] = self._text_of(chash)
        return self._texts[chash]

    def store(self, texts: Mapping[str, str]) -> None:
        """Analyse and embed the new texts (content hash -> text) the cycle creates."""
        if texts:
            self.contents.update(self._contents_for(texts))

    def new_memory_id(self) -> str:
        """An id for a memory the cycle creates: from the chain head, like the write path's,
        so a replay of the same log makes the same ids."""
        while True:
            self._new_ids += 1
            digest = hashlib.blake2b(self.head.hash + f"dream:{self._new_ids}".encode(),
                                     digest_size=8).hexdigest()
            memory_id = f"mem_{digest}"
            if self.state.get(memory_id) is None:
                return memory_id

    def rows(self, namespace: str) -> dict[str, int]:
        """Memory id -> its row in the namespace's vector space (built once per cycle)."""
        if namespace not in self._rows:
            space = self.views.vectors.spaces.get(namespace)
            ids = [] if space is None else space.ids[:space.count]
            self._rows[namespace] = {mid: row for row, mid in enumerate(ids)}
        return self._rows[namespace]

    def vector(self, record: MemoryRecord) -> np.ndarray | None:
        """A memory's unit vector: from the vector view, or the content this cycle made."""
        row = self.rows(record.namespace).get(record.memory_id)
        if row is not None:
            return self.views.vectors.spaces[record.namespace].take([row])[0]
        content = self.contents.get(record.content_hash)
        if content is None or content.vector is None:
            return None
        return np.frombuffer(content.vector, dtype=np.float32)

    def dream_made(self) -> set[str]:
        """The memories earlier cycles (or this one) made: consolidated ones and summaries."""
        state = self.state.state
        return set(state.consolidations) | {ref.memory_id for ref in state.summaries.values()}


# dream-1 and dream-2 merged the sides of an open conflict into one consolidated memory.
DREAMS_MERGING_CONFLICTS = frozenset({"dream-1", "dream-2"})
# dream-1 to dream-3 searched every namespace's pairs exactly, whatever its size.
DREAMS_EXACT_PAIRS = frozenset({"dream-1", "dream-2", "dream-3"})
# dream-1 to dream-4 could merge an episode with a note.
DREAMS_MIXING_FORMS = frozenset({"dream-1", "dream-2", "dream-3", "dream-4"})
# dream-1 to dream-5 could merge memories whose valid time was over.
DREAMS_MERGING_EXPIRED = frozenset({"dream-1", "dream-2", "dream-3", "dream-4", "dream-5"})
# Episodes: memories of a time (an event, a plan, a passing context). The other kinds are
# notes, stable beliefs (who someone is, what they like, whom they know, what they do as a
# habit). A merge of the two would date a belief, or make an event timeless.
EPISODE_KINDS = frozenset({"event", "plan", "context", "ephemeral"})


class Plan(NamedTuple):
    """What one consolidation decided: its events in log order, and the content (by hash) of the
    memories it creates, to store with them."""

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
            cycle.pairs[ns] = _pairs(cycle, ns, [r for r in ordinary if r.status == "active"],
                                     made)
        if not params.forget:
            continue
        changes = by_ns.setdefault(ns, [])
        for change in forgetting.utility_floor(
                (r for r in records if r.memory_id not in cycle.gone), now, decay, utility,
                params):
            changes.append(change)
            cycle.gone.add(change.memory_id)
        pairs = cycle.pairs[ns]
        # Only the pairs above the redundancy cosine can decide anything there (redundancy
        # reads no other): the rest, most of them at the cluster cosine, stay numpy arrays
        # rather than becoming Python tuples (about 16M of them at 1M memories).
        above = pairs.sims > params.redundancy_similarity
        changes += forgetting.redundancy(
            list(zip(pairs.sims[above].tolist(), pairs.i[above].tolist(),
                     pairs.j[above].tolist(), strict=True)),
            pairs.ids, cycle.state.get, cycle.gone, now, decay, utility, params)
        for change in forgetting.capacity((r for r in ordinary if r.memory_id not in cycle.gone),
                                          now, decay, utility, params):
            changes.append(change)
            cycle.gone.add(change.memory_id)
    cycle.emit([MemoriesDormant(at=cycle.at, namespace=ns, actor="consolidation", now=now,
                                changes=tuple(by_ns[ns]))
                for ns in sorted(by_ns) if by_ns[ns]])


def _pairs(cycle: Cycle, namespace: str, records: list[MemoryRecord], made: set[str]) -> Pairs:
    """The similar pairs among ``records``: exact search over their vector rows, or (dream-4, a
    large namespace) exact within the candidates of pivot blocks."""
    space = cycle.views.vectors.spaces.get(namespace)
    index = cycle.rows(namespace)
    rows = sorted(row for r in records if (row := index.get(r.memory_id)) is not None)
    if space is None or len(rows) < 2:
        empty = np.empty(0, dtype=np.int64)
        return Pairs([], np.empty((0, 0), dtype=np.float32), empty, empty,
                     np.empty(0, dtype=np.float64))
    matrix = space.take(rows)  # cold rows dequantized: as the audit will find them
    params = cycle.params
    threshold = params.redundancy_similarity if params.forget else 1.0
    if params.cluster:
        threshold = min(threshold, params.cluster_similarity)
    ids = [space.ids[row] for row in rows]
    if cycle.dream_policy in DREAMS_EXACT_PAIRS or len(rows) <= params.pairs_exact_max:
        i, j, sims = cluster.similar_pairs(matrix, threshold)
        return Pairs(ids, matrix, i, j, sims)
    # A large namespace: exact cosines within the candidates of pivot blocks (dream-4), which
    # the consolidated memories record; the audit re-runs the same search on the same rows.
    i, j, sims = cluster.blocked_pairs(matrix, threshold, _pivots(cycle, namespace, made),
                                       params.pairs_probes)
    return Pairs(ids, matrix, i, j, sims,
                 cluster.pair_search(params.pairs_probes, params.pairs_pivot_every))


# Memories whose vectors are no pivots: gone, or about to be (a purge removes the vector).
_NO_PIVOT = frozenset({"deleted", "purged", "erased"})


def _pivots(cycle: Cycle, namespace: str, made: set[str]) -> np.ndarray:
    """The pivot vectors of a namespace: chosen by memory id among every memory with a vector
    that is not deleted and not made by a dream cycle, whatever its status or tier. A memory
    this cycle makes dormant stays a pivot, so the next cycle (at the same now) has the same
    pivots, the same candidates among the memories it compares, and nothing new to decide."""
    space = cycle.views.vectors.spaces[namespace]
    get = cycle.state.get
    rows = [row for row, mid in enumerate(space.ids[:space.count])
            if mid not in made and (record := get(mid)) is not None
            and record.status not in _NO_PIVOT]
    chosen = cluster.pivot_rows([space.ids[row] for row in rows], cycle.params.pairs_pivot_every)
    return space.take(np.asarray(rows, dtype=np.int64)[chosen])


def _is_episode(cycle: Cycle, memory_id: str) -> bool:
    record = cycle.state.get(memory_id)
    return record is not None and record.kind in EPISODE_KINDS


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
    current_only = cycle.dream_policy not in DREAMS_MERGING_EXPIRED
    for ns in sorted(cycle.pairs):
        pairs = cycle.pairs[ns]
        keep = []
        for position, mid in enumerate(pairs.ids):
            record = cycle.state.get(mid)
            if (record is not None and record.status == "active" and record.tier == "episodic"
                    and not is_exempt(record) and mid not in made and mid not in kept_out
                    and mid not in cycle.gone
                    and not (current_only and _expired(record, cycle.now))):
                keep.append(position)
        if len(keep) < params.cluster_min_size:
            continue
        local = np.full(len(pairs.ids), -1, dtype=np.int64)
        local[keep] = np.arange(len(keep))
        li, lj = local[pairs.i], local[pairs.j]
        both = (li >= 0) & (lj >= 0)
        if cycle.dream_policy not in DREAMS_MIXING_FORMS:  # an episode and a note stay apart
            episode = np.array([_is_episode(cycle, mid) for mid in pairs.ids], dtype=bool)
            both &= episode[pairs.i] == episode[pairs.j]
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


def _expired(record: MemoryRecord, now: int) -> bool:
    """Whether a memory's valid time is over at ``now`` (the sweep may not have marked it)."""
    return record.invalidated_at is not None or (
        record.valid_until is not None and record.valid_until <= now)


def _spoken_of(cycle: Cycle, member_ids: list[str]) -> tuple[TimeSpan, ...]:
    """The times the members' texts spoke of (read when each was written): the memory that
    carries their facts is found by those dates as they were."""
    intervals = cycle.views.temporal.intervals
    spoken: tuple[TimeSpan, ...] = ()
    for mid in member_ids:
        held = intervals.get(mid)
        if held is not None and held.times:
            spoken = times.merged(spoken, held.times)
    return spoken


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
        derived_from=tuple(member_ids), times=_spoken_of(cycle, member_ids),
        links=tuple(MemoryLink(target=mid, relation="elaborates", weight=round(float(c), 6))
                    for mid, c in zip(member_ids, centre.tolist(), strict=True)))
    consolidated = MemoryConsolidated(
        at=cycle.at, namespace=namespace, actor="consolidation", now=cycle.now,
        memory_id=memory_id, members=tuple(member_ids),
        sources=tuple(member_ids[s.position] for s in sources), method=method,
        algorithm=_algorithm(cycle, namespace),
        threshold=params.cluster_similarity, cohesion=cluster.cohesion(matrix, rows))
    dormant = [forgetting.dormant_change(r, "consolidated", cycle.now, config.decay,
                                         config.utility, other=memory_id,
                                         similarity=float(c))
               for r, c in zip(records, centre.tolist(), strict=True)]
    cycle.gone.update(member_ids)
    return [ingested, consolidated], dormant


def _algorithm(cycle: Cycle, namespace: str) -> str:
    """The clustering, and the pair search when it was not exact (dream-4 on)."""
    params = cycle.params
    name = cluster.algorithm(params.cluster_linkage, params.cluster_similarity)
    search = cycle.pairs[namespace].search
    return name if search == "exact" else f"{name}; pairs={search}"


def _summarize(cycle: Cycle, texts: list[str]) -> tuple[str, str]:
    """The summary text of ``texts`` (normalized like an ingest's) and the method that made it.
    A summarizer that fails or returns an unusable text falls back to the extractive one."""
    method = summarizer_id(cycle.summarizer)
    try:
        return checks.text(cycle.summarizer.summarize(list(texts)), cycle.config), method
    except (InvalidInputError, ValueError, TypeError):
        if cycle.summarizer is EXTRACTIVE:
            raise
    return (checks.text(EXTRACTIVE.summarize(texts), cycle.config),
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


StepListener = Callable[[str, int, int], None]  # (step about to run, steps done, steps in all)


def plan(views: Projections, now: int, at: int, config: Config, *, head: Head,
         text_of: TextOf, contents_for: ContentsFor, terms_of: boxes.TermsOf | None = None,
         summarizer: Summarizer | None = None, sweep_policy: str = SWEEP_POLICY,
         dream_policy: str = DREAM_POLICY, on_step: StepListener | None = None,
         seal_boxes: bool = True) -> Plan:
    """The events of one consolidation at ``now`` (transaction time ``at``), in log order, and
    the content of the memories it creates. ``head`` is the log head the events will follow.

    ``text_of`` reads a stored text by content hash; ``contents_for`` analyses and embeds new
    texts (the engine's content cache). Neither changes the store. ``sweep_policy`` and
    ``dream_policy`` are the versions to decide as: the current ones, or those an audit finds
    recorded in an older log. ``on_step`` hears each step before it runs, and ``("done", n,
    n)`` at the end: the progress of a long cycle (the engine's consolidate reports it).

    ``terms_of`` reads stored terms by content hash: with it (and ``seal_boxes``), the cycle
    ends by sealing the boxes of sessions quiet for ``Config.boxes.gap_s``
    (:func:`eventmem.policies.boxes.quiet_boxes`); an audit of a log from before boxes passes
    ``seal_boxes=False``.
    """
    total = 1 + (len(STEPS) if config.dream.enabled else 0)
    tell = on_step or _quiet
    cycle = Cycle(views, now, at, config, head, text_of, contents_for, summarizer)
    cycle.dream_policy = dream_policy
    tell("sweep", 0, total)
    cycle.emit(sweep_events(views, now, at, config, policy=sweep_policy))
    # Synaptic replay: tags that expired uncaptured are dropped (eventmem.policies.plasticity).
    cycle.emit(plasticity.expired_tags(views.state, now, at))
    # Emotional consolidation: aroused memories are strengthened once, by their arousal.
    cycle.emit(plasticity.emotional(cycle.state.records(), now, at, config.plasticity,
                                    config.decay))
    if config.dream.enabled:
        for done, (name, step) in enumerate(STEPS, start=1):
            tell(name, done, total)
            step(cycle)
    # Last, on what the other steps leave: a cluster the dream merged is not promoted too.
    cycle.emit(entity_events(views, cycle.state.namespaces(), cycle.state.namespace_records,
                             now, at, config, sweep_policy))
    # A session gone quiet: its open box is sealed now rather than at its next memory.
    if terms_of is not None and seal_boxes:
        cycle.emit(boxes.quiet_boxes(views.state, now, at, config.boxes, terms_of))
    tell("done", total, total)
    return Plan(cycle.events, cycle.contents)


def _quiet(step: str, done: int, total: int) -> None:
    """No one listens to the cycle's steps."""


def report_progress(step: str, done: int, total: int) -> None:
    """An ``on_step`` for :func:`plan` that reports the cycle's steps as the progress of
    ``consolidate: <step>`` (:mod:`eventmem.progress`). An audit re-running old cycles passes
    none: its own progress is the log it walks."""
    progress.report(f"consolidate: {step}", done, total)


def check_now(now: int, latest: int) -> None:
    """Refuse a consolidation at ``now`` earlier than ``latest``, the time of the store's latest
    event (InvalidInputError): decisions dated at a time the log has already passed would
    contradict what it holds since (accesses and ingests after ``now`` would read as being in
    the future)."""
    if now < latest:
        raise InvalidInputError(
            f"now={from_micros(now).isoformat()} is earlier than the store's latest event "
            f"({from_micros(latest).isoformat()}); consolidate at that time or later (to see "
            "the past, use as_of(at=...))")

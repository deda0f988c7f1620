"""The query methods shared by the live engine and read-only ``as_of`` views.

A :class:`Reader` answers from projections folded to some seq, at some ``now``; it never writes.
:class:`View` is a Reader whose write methods raise :class:`ReadOnlyError`; :func:`view_at` folds
one at a past time or seq.
"""

from __future__ import annotations

import copy
import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Any, Concatenate, NoReturn, ParamSpec, TypeVar, cast

import msgspec

from eventmem import checks
from eventmem.clock import from_micros, to_micros
from eventmem.config import Config
from eventmem.errors import InvalidInputError, NotFoundError, ReadOnlyError
from eventmem.events import CONTENT_GONE, Event, session_key
from eventmem.graph import GraphReader
from eventmem.metadata import Filter
from eventmem.policies.decay import effective_stability, retention
from eventmem.policies.routing import hot_tier
from eventmem.policies.tiers import hot_set
from eventmem.recall.cache import RecallCache, recall_key
from eventmem.recall.channels import Channel
from eventmem.recall.context import build_context
from eventmem.recall.fuse import Access, Candidate, search
from eventmem.recall.intent import IntentClassifier, IntentQuestion
from eventmem.recall.plan import INTENTS, Intent, QueryPlan, is_chitchat
from eventmem.recall.plan import plan as query_plan
from eventmem.recall.score import PROFILES
from eventmem.results import Box, BoxNeighbour, Conflict, HistoryEntry, Hit, Memory, Version
from eventmem.storage.log import EventLog
from eventmem.text.embedders import Embedder, HashingEmbedder
from eventmem.transfer import Destination, Exported, exported
from eventmem.transfer import write as write_lines
from eventmem.write import resolve as conflict_listing
from eventmem.write.erase import with_later_erasures
from projections import PROJECTION_VERSION, Projections
from projections.graph import Graph
from projections.state import HIDDEN_STATUSES, BoxRecord, MemoryRecord, working_key
from projections.temporal import valid_at as interval_valid_at
from replay.history import history as replay_history
from replay.rebuild import load_or_rebuild, rebuild

# A memory's versions through time, from the temporal projection (no replay).
#
# A fact changes by supersession: a merge, an update or a settled conflict makes a new memory and
# ends the old one's known time (and, when the fact itself changed, its valid time). Following the
# links backwards (``derived_from``, and the memories superseded by each) and forwards
# (``superseded_by``) gives every version with its two intervals.

def versions(views: Projections, memory_id: str) -> list[str]:
    """Every memory in ``memory_id``'s chain of versions, in the order they were recorded."""
    memories = views.state.memories
    superseded: dict[str, list[str]] = {}
    for record in memories.values():
        if record.superseded_by is not None:
            superseded.setdefault(record.superseded_by, []).append(record.memory_id)
    seen: set[str] = set()
    stack = [memory_id]
    while stack:
        mid = stack.pop()
        if mid in seen or mid not in memories:
            continue
        seen.add(mid)
        record = memories[mid]
        stack.extend(record.derived_from)
        stack.extend(superseded.get(mid, ()))
        if record.superseded_by is not None:
            stack.append(record.superseded_by)
    return sorted(seen, key=lambda mid: (memories[mid].created_seq, mid))


# One engine (or view) shared between threads.
#
# Projections are plain Python structures that a fold mutates in place (the BM25 segments seal,
# the vector matrix grows), and the engine's recall is itself a write (the access event). So every
# public method that reads projections or touches the log runs under the instance's one re-entrant
# lock: calls are serialized, a reader never sees a half-folded state, and a snapshot never
# captures one. Re-entrant, because public methods call each other (remember -> remember_many,
# a write that snapshots, context -> recall). An uncontended RLock costs well under a
# microsecond, nothing beside a recall or a durable append.
#
# Why not a readers-writer lock, with reads side by side: it was built and measured (issue 16,
# branch bench, in the history): on 2 cores a 100k-memory recall holds the interpreter's lock for
# most of its time, so recalls searching side by side contend for it and came out slower (8
# threads: 8.2-9.6 recalls/s shared against 10.0-10.7 serialized; 32: 7.0-7.3 against 9.6-11.1),
# and the other reads are pure Python. Worth revisiting on a free-threaded Python.

P = ParamSpec("P")
R = TypeVar("R")
ReaderT = TypeVar("ReaderT", bound="Reader")


def serialized(method: Callable[Concatenate[ReaderT, P], R]
               ) -> Callable[Concatenate[ReaderT, P], R]:
    """``method`` run under its instance's lock (``self._lock``): see the comment above."""
    @functools.wraps(method)
    def run(self: ReaderT, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class Reader:
    """The query methods the live engine and read-only views share: answers from projections
    folded to some seq, at some ``now``; never writes. A subclass provides ``_now``.

    Safe to share between threads: each public method runs under the instance's lock
    (:func:`serialized`)."""

    _lock: threading.RLock
    _log: EventLog
    _views: Projections
    _embedder: Embedder
    config: Config
    # Candidate channels beyond vectors, BM25, context and time (the knowledge graph's, say):
    # name -> Channel. Set it on an instance; its RRF weight is the intent route's (else 1).
    extra_channels: Mapping[str, Channel] = MappingProxyType({})
    _recall_cache: RecallCache[Any]
    # A pluggable intent classifier (eventmem.recall.intent); None: the rules of the query plan.
    intent_classifier: IntentClassifier | None = None

    # -- what a subclass provides -------------------------------------------------------------

    def _now(self) -> int:
        raise NotImplementedError

    def _ensure_current(self) -> None:
        """Hook: a read-only engine catches up to the writer's head here."""

    # -- queries ------------------------------------------------------------------------------

    @property
    @serialized
    def seq(self) -> int:
        """The last seq these answers reflect."""
        self._ensure_current()
        return self._views.seq

    def now(self) -> datetime:
        """The time this reader answers at (aware, UTC): the engine's clock (never before its
        latest event), or the view's time."""
        return from_micros(self._now())

    @serialized
    def get(self, memory_id: str, *, valid_at: datetime | None = None) -> Memory:
        """The memory with this id (archived and deleted ones too). With ``valid_at``, raises
        NotFoundError unless the memory was true at that time."""
        self._ensure_current()
        record = self._views.state.memories.get(memory_id) if isinstance(memory_id, str) else None
        if record is None:
            raise NotFoundError(f"no memory {memory_id!r} in this store")
        if valid_at is not None:
            at = to_micros(valid_at, name="valid_at")
            if not interval_valid_at(self._views.temporal.intervals[memory_id], at):
                raise NotFoundError(f"memory {memory_id!r} was not valid at {valid_at.isoformat()}")
        return self._memory(record)

    @serialized
    def recall(
        self,
        query: str,
        *,
        namespace: str = "default",
        k: int = 5,
        valid_at: datetime | None = None,
        include_hidden: bool = False,
        profile: str = "default",
        min_score: float | None = None,
        filters: Mapping[str, Any] | None = None,
        session: str | None = None,
        include_hot: bool = False,
        box_context: int = 0,
    ) -> list[Hit]:
        """Up to ``k`` memories of ``namespace`` that answer ``query``, best first.

        Only memories with evidence of relevance are returned, so a recall may return fewer
        than ``k``, or none: a shared word, a vector similarity at or above the embedder's
        floor (``Config.vector_floor``), a match of the time the query asks about, a graph
        path from an entity it names, a neighbouring turn of a match, or the attribute it asks
        about. ``min_score``: leave out hits scoring below it. ``filters``: only memories whose
        metadata matches (``{"user": "u42", "score": {"$gte": 3}}``; see
        :mod:`eventmem.metadata`).

        ``valid_at``: only memories true at that time. ``include_hidden``: also deleted, archived
        and superseded ones. ``profile``: how relevance is weighed against recency, retention,
        importance and confidence (``default``, ``recent``, ``important``, ``deep``, ``broad``).
        A greeting or acknowledgement ("thanks!") returns no hits. Each hit's ``signals``
        explain its score: per-channel scores, ranks and weights, and every per-signal score.
        A query longer than ``Config.max_query_chars`` (after whitespace is collapsed) is read
        up to that length: an agent may pass a whole turn as its query.

        ``session``: the caller's session; its memories get ``Config.routing.session_boost``
        (like every boost, it reorders hits of comparable relevance only). ``include_hot``:
        also the hot tier (:meth:`hot` with ``rule="seed"``) after the hits, those not already
        among them, each marked ``signals["hot"] = 1.0`` with score 0: always-relevant
        memories an agent puts in its context whatever the query.

        ``box_context``: for each hit, also up to this many other memories of its box (the
        stretch of its session it was said in; :meth:`boxes`), those nearest to it first, as
        ``hit.neighbours`` in the order they were said, with ``hit.box_id``: the turns around
        a hit, which often hold what it leaves unsaid. They are context, not hits: not scored,
        not counted as accessed. Hidden ones (superseded, archived...) are left out unless
        ``include_hidden``; erased ones always. 0 (the default): none, and hits as before.
        """
        self._ensure_current()
        hits, _, _ = self._search(query, namespace=namespace, k=k, valid_at=valid_at,
                                  include_hidden=include_hidden, profile=profile,
                                  min_score=min_score, filters=filters, session=session,
                                  include_hot=include_hot, box_context=box_context)
        return hits

    def context(
        self,
        query: str,
        *,
        namespace: str = "default",
        k: int = 10,
        budget_tokens: int = 1_000,
        valid_at: datetime | None = None,
        profile: str = "default",
        filters: Mapping[str, Any] | None = None,
    ) -> str:
        """What to put in an agent's prompt for ``query``: the recall's hits, strong ones in full
        with their metadata, middling ones as one line, weak ones left out, within
        ``budget_tokens`` (see :func:`eventmem.recall.context.build_context`). On the engine this
        is a recall like any other, recorded as an access."""
        if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) \
                or budget_tokens < 1:
            raise InvalidInputError(f"budget_tokens must be a positive int, got {budget_tokens!r}")
        hits = self.recall(query, namespace=namespace, k=k, valid_at=valid_at, profile=profile,
                           filters=filters)
        return build_context(hits, budget_tokens=budget_tokens)

    def _search(
        self, query: str, *, namespace: str, k: int, valid_at: datetime | None,
        include_hidden: bool, profile: str = "default", min_score: float | None = None,
        filters: Mapping[str, Any] | None = None, session: str | None = None,
        include_hot: bool = False, box_context: int = 0,
    ) -> tuple[list[Hit], list[Candidate], QueryPlan]:
        query = checks.query(query, self.config)
        namespace = checks.namespace(namespace, self.config)
        k = checks.k(k, self.config)
        at = checks.optional_time(valid_at, "valid_at")
        include_hidden = checks.flag(include_hidden, "include_hidden")
        floor = checks.min_score(min_score)
        matches = Filter.of(filters)
        if session is not None:
            session = checks.label(session, "session")
        include_hot = checks.flag(include_hot, "include_hot")
        if isinstance(box_context, bool) or not isinstance(box_context, int) \
                or not 0 <= box_context <= self.config.boxes.max_size:
            raise InvalidInputError(f"box_context must be an int from 0 to "
                                    f"{self.config.boxes.max_size}, got {box_context!r}")
        if not isinstance(profile, str) or profile not in PROFILES:  # a list is unhashable
            raise InvalidInputError(f"unknown profile {profile!r}; use one of "
                                    f"{', '.join(PROFILES)}")
        now = self._now()
        # The hot-result cache: keyed by the log head (any append makes older answers
        # unreachable) and by every input of the answer, now included (scores decay).
        key = recall_key(query, namespace, self._views.seq,
                         {"k": k, "valid_at": at, "include_hidden": include_hidden,
                          "profile": profile, "now": now, "min_score": floor,
                          "filters": None if matches is None else matches.key,
                          "session": session, "include_hot": include_hot,
                          "box_context": box_context})
        cached = self._recall_cache.get(key) if not self.extra_channels else None
        if cached is not None:
            return _fresh(cached[0]), [(m, s, dict(sig)) for m, s, sig in cached[1]], cached[2]
        plan = query_plan(query, now, self._intent(query, now))
        found = search(self._views, plan, self._access(), namespace=namespace, k=k, now=now,
                       config=self.config, valid_at=at, include_hidden=include_hidden,
                       profile=profile, extra_channels=self.extra_channels, matches=matches,
                       session=session)
        if floor is not None:
            found = [candidate for candidate in found if candidate[1] >= floor]
        if include_hot and not plan.chitchat:
            found = found + self._hot_extra(namespace, now, {mid for mid, _, _ in found})
        memories = self._views.state.memories
        hits = []
        for mid, score, signals in found:
            record = memories[mid]
            hits.append(Hit(memory_id=mid, text=self._text(record), score=score,
                            signals=signals, kind=record.kind,
                            created_at=from_micros(record.created_at),
                            metadata=copy.deepcopy(record.metadata or {})))
        if box_context:
            hits = [self._in_box(hit, box_context, include_hidden) for hit in hits]
        if not self.extra_channels:  # as get: the key does not say which channels answered
            # Copies in and out: a caller editing a hit's signals must not change the answer
            # the next identical recall gets.
            self._recall_cache.put(key, (tuple(_fresh(hits)),
                                         tuple((m, s, dict(sig)) for m, s, sig in found), plan))
        return hits, found, plan

    def _intent(self, query: str, now: int) -> Intent | None:
        """The intent the pluggable classifier gives ``query``, when there is one and it names
        a known intent; None: the plan's rules decide (a greeting asks nothing of it)."""
        classifier = self.intent_classifier
        if classifier is None or is_chitchat(query):
            return None
        answer = classifier.intent(IntentQuestion(query=query, now=now)).intent
        return cast(Intent, answer) if answer in INTENTS else None
    def _in_box(self, hit: Hit, n: int, include_hidden: bool) -> Hit:
        """``hit`` with its box and the ``n`` readable members of it nearest to it."""
        memories = self._views.state.memories
        box_id = memories[hit.memory_id].box
        box = None if box_id is None else self._views.state.boxes.get(box_id)
        if box is None:
            return hit
        members = box.members
        here = members.index(hit.memory_id)
        # The nearest first, the earlier on a tie; texts read only until n are found.
        near: list[tuple[int, str]] = []  # (position, text)
        for position in sorted(range(len(members)), key=lambda p: (abs(p - here), p)):
            if len(near) == n:
                break
            record = memories[members[position]]
            if position == here or (record.status in HIDDEN_STATUSES and not include_hidden):
                continue
            text = self._text(record)
            if text is not None:
                near.append((position, text))
        chosen = sorted(near)
        return msgspec.structs.replace(hit, box_id=box.box_id, neighbours=tuple(
            BoxNeighbour(memory_id=members[p], text=text, offset=p - here,
                         created_at=from_micros(memories[members[p]].created_at))
            for p, text in chosen))

    def _hot_extra(self, namespace: str, now: int, taken: set[str]) -> list[Candidate]:
        """The seed's hot tier of ``namespace`` at ``now``, but ``taken``, as candidates
        after a recall's hits (score 0, ``hot`` 1)."""
        memories = self._views.state.memories
        ids = hot_tier((r for r in memories.values() if r.namespace == namespace), now,
                       self.config.routing)
        return [(mid, 0.0, {"hot": 1.0, "score": 0.0, "utility": memories[mid].utility})
                for mid in ids if mid not in taken]

    def _access(self) -> Access:
        embedder, log = self._embedder, self._log
        return Access(
            embed=lambda texts: embedder.embed(texts),
            texts=log.blobs,
            vectors=lambda hashes: [None if c is None else c.vector
                                    for c in log.contents(hashes)],
            lexical_embedder=bool(getattr(embedder, "lexical",
                                          isinstance(embedder, HashingEmbedder))),
            vector_floor=self.config.vector_floor if self.config.vector_floor is not None
            else float(getattr(embedder, "relevance_floor", 0.0)),
        )

    @serialized
    def timeline(self, memory_id: str | None = None, *, entity: str | None = None,
                 namespace: str = "default") -> list[Version]:
        """The history of a fact or of an entity, from the temporal view (no replay).

        ``timeline(memory_id)``: every version of the fact the memory belongs to (what it
        replaced and what replaced it). ``timeline(entity="Alice", namespace=...)``: every
        memory naming the entity, superseded ones included. Oldest first, each with its valid
        and known intervals.
        """
        if (memory_id is None) == (entity is None):
            raise InvalidInputError("timeline takes a memory_id or entity=, not both")
        if memory_id is not None:
            self.get(memory_id)
            ids = versions(self._views, memory_id)
        else:
            ids = self.graph.memories(entity, namespace=namespace)  # type: ignore[arg-type]
        memories, intervals = self._views.state.memories, self._views.temporal.intervals
        ids = sorted(ids, key=lambda mid: (intervals[mid].valid_from or intervals[mid].recorded_at,
                                           memories[mid].created_seq))
        out = []
        for mid in ids:
            record, interval = memories[mid], intervals[mid]
            out.append(Version(
                memory_id=mid, text=self._text(record), status=record.status,
                valid_from=_time(interval.valid_from), valid_until=_time(interval.valid_until),
                recorded_at=from_micros(interval.recorded_at),
                retracted_at=_time(interval.retracted_at), superseded_by=record.superseded_by))
        return out

    @property
    def graph(self) -> GraphReader:
        """The knowledge graph: ``graph.entity(name, namespace=)``, ``graph.neighbors(...)``,
        ``graph.memories(...)``, ``graph.entities(...)``, ``graph.links(memory_id, ...)``."""
        def views() -> Graph:
            self._ensure_current()
            return self._views.graph
        return GraphReader(views, self._now, self.config, lock=self._lock)

    @serialized
    def conflicts(self, *, namespace: str = "default", status: str | None = "open"
                  ) -> list[Conflict]:
        """The contradictions the write gate found in ``namespace``: open ones by default
        (``status="resolved"`` or ``None`` for the others), oldest first."""
        self._ensure_current()
        namespace = checks.namespace(namespace, self.config)
        if status not in ("open", "resolved", None):
            raise InvalidInputError("status must be 'open', 'resolved' or None")
        return [conflict_listing.as_result(c)
                for c in conflict_listing.listing(self._views, namespace, status)]

    @serialized
    def history(self, memory_id: str) -> list[HistoryEntry]:
        """Every event that touched ``memory_id`` up to this reader's seq, oldest first."""
        self.get(memory_id)
        return replay_history(self._log, memory_id, until=self._views.seq)

    @serialized
    def memories(
        self,
        *,
        namespace: str | None = None,
        status: str | Iterable[str] | None = None,
        kind: str | None = None,
        tags: Sequence[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> Iterator[Memory]:
        """The memories (of ``namespace``, when given), in creation order, whatever their
        status unless filtered.

        ``status``: one status or several (``"active"``, ``("active", "stale")``...).
        ``kind``: one memory kind. ``tags``: memories carrying every one of them. ``since`` /
        ``until``: created at or after / before. ``limit`` and ``cursor`` page through them:
        pass the ``memory_id`` of the last memory of a page as ``cursor`` to get the next.
        ``filters``: only memories whose metadata matches, as for :meth:`recall`.
        """
        self._ensure_current()
        if namespace is not None:
            namespace = checks.namespace(namespace, self.config)
        wanted = checks.statuses(status)
        kind = checks.kind(kind)
        needed = set(checks.labels(tags, "tags")) if tags is not None else set()
        start, end = checks.optional_time(since, "since"), checks.optional_time(until, "until")
        matches = Filter.of(filters)
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 1):
            raise InvalidInputError(f"limit must be a positive int, got {limit!r}")
        after = -1
        if cursor is not None:
            record = self._views.state.memories.get(cursor) if isinstance(cursor, str) else None
            if record is None:
                raise InvalidInputError(f"cursor {cursor!r} names no memory of this store")
            after = record.created_seq
        # Sorted, not dict order: a state loaded from a snapshot has its ids in key order.
        records = sorted(self._views.state.memories.values(), key=lambda r: r.created_seq)
        chosen = [r for r in records
                  if r.created_seq > after
                  and (namespace is None or r.namespace == namespace)
                  and (wanted is None or r.status in wanted)
                  and (kind is None or r.kind == kind)
                  and needed <= set(r.tags)
                  and (start is None or r.created_at >= start)
                  and (end is None or r.created_at < end)
                  and (matches is None or matches(r.metadata))]
        # Built here, under the lock, not lazily: a generator would read the projections
        # between yields, while another thread folds into them.
        return iter([self._memory(record) for record in chosen[:limit]])

    def export_memories(self, destination: Destination, *, namespace: str = "default",
                        include_archived: bool = False) -> int:
        """Write ``namespace``'s memories to ``destination`` (a path or a text stream) as JSON
        lines (:mod:`eventmem.transfer`), oldest first; returns how many. Exported: what the
        namespace holds as current (active and stale memories; with ``include_archived``,
        archived and dormant ones too), not the versions it replaced or what was forgotten.
        :meth:`Engine.import_memories` reads it back, in this store or another, keeping each
        memory's times; an export of the import is the same file but for the ids."""
        # The lines are built under the lock and written after it: a slow destination must
        # not stall the writers.
        return write_lines(self._exported(namespace, include_archived), destination)

    @serialized
    def _exported(self, namespace: str, include_archived: bool) -> list[Exported]:
        self._ensure_current()
        namespace = checks.namespace(namespace, self.config)
        wanted = {"active", "stale"} | ({"archived", "dormant"}
                                        if checks.flag(include_archived, "include_archived")
                                        else set())
        records = sorted((r for r in self._views.state.memories.values()
                          if r.namespace == namespace and r.status in wanted),
                         key=lambda r: r.created_seq)
        lines = []
        for record in records:
            text = self._text(record)
            if text is not None:
                lines.append(exported(record, text))
        return lines

    @serialized
    def namespaces(self) -> list[str]:
        """The namespaces that hold at least one memory, sorted."""
        self._ensure_current()
        return sorted({r.namespace for r in self._views.state.memories.values()})

    @serialized
    def hot(self, *, namespace: str = "default", k: int = 5, rule: str | None = None
            ) -> list[Memory]:
        """The always-relevant memories of ``namespace`` (high utility, often used, still well
        retained), best first: what an agent can put in its context on every turn.

        ``rule`` (default ``Config.routing.hot_rule``): ``"score"`` weighs utility, uses and
        retention (``Config.tiers``); ``"seed"`` is the seed's hot tier: active semantic
        memories of utility >= 0.8, accessed >= 10 times, younger than 30 days, at most 15, by
        utility (``Config.routing``)."""
        self._ensure_current()
        namespace = checks.namespace(namespace, self.config)
        k = checks.k(k, self.config)
        rule = self.config.routing.hot_rule if rule is None else rule
        if rule not in ("score", "seed"):
            raise InvalidInputError(f"unknown hot rule {rule!r}; use 'score' or 'seed'")
        memories = self._views.state.memories
        if rule == "seed":
            ids = hot_tier((r for r in memories.values() if r.namespace == namespace),
                           self._now(), self.config.routing, k)
            return [self._memory(memories[mid]) for mid in ids]
        ids = hot_set((r for r in memories.values() if r.namespace == namespace), self._now(), k,
                      self.config.decay, self.config.utility, self.config.tiers)
        return [self._memory(memories[mid]) for mid in ids]

    @serialized
    def boxes(self, *, namespace: str = "default", session: str | None = None,
              trace_id: str | None = None) -> list[Box]:
        """The boxes of ``namespace`` (of one ``session``, or one trace, if given), in the
        order they were opened, the open ones included (``sealed_at`` None). A box lists its
        memories by id; erased and purged ones are left out, and a box left with none is not
        listed. Memories stored without a session are in no box. See
        :mod:`eventmem.policies.boxes`."""
        self._ensure_current()
        namespace = checks.namespace(namespace, self.config)
        keys: set[str] | None = None
        if session is not None:
            session = checks.label(session, "session")
            keys = {session_key(namespace, session)}  # boxes keep only keys (box_session)
        if trace_id is not None and not isinstance(trace_id, str):
            raise InvalidInputError(f"trace_id must be a str, got {trace_id!r}")
        memories = self._views.state.memories
        found = [box for box in self._views.state.boxes.values()
                 if box.namespace == namespace and (keys is None or box.session in keys)
                 and (trace_id is None or box.trace_id == trace_id)]
        found.sort(key=lambda box: (box.opened_at, memories[box.members[0]].created_seq
                                    if box.members else 0))
        return [b for box in found if (b := self._box(box)) is not None]

    @serialized
    def trace(self, trace_id: str, *, namespace: str | None = None) -> list[Box]:
        """The boxes of a trace (``Box.trace_id``), in the order they were sealed: the stretches
        of conversation, across sessions, on one recurring topic. Raises NotFoundError for an
        unknown trace, or one outside ``namespace`` when it is given (a trace lies in one)."""
        self._ensure_current()
        box_ids = self._views.state.traces.get(trace_id) if isinstance(trace_id, str) else None
        boxes = self._views.state.boxes
        if box_ids is None or (namespace is not None and boxes[box_ids[0]].namespace
                               != checks.namespace(namespace, self.config)):
            where = "this store" if namespace is None else f"namespace {namespace!r}"
            raise NotFoundError(f"no trace {trace_id!r} in {where}")
        return [b for box_id in box_ids if (b := self._box(boxes[box_id])) is not None]

    def _box(self, box: BoxRecord) -> Box | None:
        memories = self._views.state.memories
        members = tuple(mid for mid in box.members if memories[mid].status not in CONTENT_GONE)
        if not members:
            return None
        return Box(box_id=box.box_id, namespace=box.namespace, memory_ids=members,
                   opened_at=from_micros(box.opened_at), last_at=from_micros(box.last_at),
                   sealed_at=None if box.sealed_at is None else from_micros(box.sealed_at),
                   reason=box.reason or None, trace_id=box.trace_id)

    @serialized
    def working(self, session: str, *, namespace: str = "default") -> list[Memory]:
        """The working memory of ``session`` (at most ``Config.tiers.working_capacity``), in the
        order the memories entered it."""
        self._ensure_current()
        namespace = checks.namespace(namespace, self.config)
        session = checks.label(session, "session")
        working = self._views.state.working
        # Grouped by the session's key; in records before labels-1, by the session itself.
        ids = working.get(working_key(namespace, session_key(namespace, session))) \
            or working.get(working_key(namespace, session)) or []
        return [self._memory(self._views.state.memories[mid]) for mid in ids]

    @serialized
    def events(self, start: int = 1, stop: int | None = None) -> Iterator[tuple[int, Event]]:
        """The raw events ``start..stop`` (capped at this reader's seq)."""
        self._ensure_current()
        start = checks.seq(start, "start")
        stop = checks.optional_seq(stop, "stop")
        end = self._views.seq if stop is None else min(stop, self._views.seq)
        return self._log.read(start, end)

    @serialized
    def stats(self) -> dict[str, Any]:
        """Counts of memories by status, tier, kind, priority and namespace, and the means of
        retention, importance, utility and stability over active and stale ones at ``now``.

        Also ``store_format`` (the on-disk format of the store: "3" for a store made now, "2"
        for one made before records were packed; another is refused at open) and
        ``projection_version`` (the version of the projections and of the snapshots this
        eventmem reads and writes: a snapshot of another is ignored and the log folded again).
        A cache of stores, or of figures measured on them, keys on these two."""
        self._ensure_current()
        counts: dict[str, dict[str, int]] = {"status": {}, "tier": {}, "kind": {},
                                              "priority": {}, "namespace": {}}
        now, decay = self._now(), self.config.decay
        totals = {"retention": 0.0, "importance": 0.0, "utility": 0.0, "stability": 0.0}
        live = 0
        for record in self._views.state.memories.values():
            for field, table in counts.items():
                value = getattr(record, field)
                table[value] = table.get(value, 0) + 1
            if record.status in ("active", "stale"):
                live += 1
                totals["retention"] += retention(record, now, decay)
                totals["importance"] += record.importance
                totals["utility"] += record.utility
                totals["stability"] += effective_stability(record, decay)
        return {
            "seq": self._views.seq,
            "now": self.now().isoformat(),
            "memories": len(self._views.state.memories),
            **{f"by_{field}": dict(sorted(table.items())) for field, table in counts.items()},
            # Means over active and stale memories, at this reader's now.
            **{f"mean_{name}": (total / live if live else None) for name, total in totals.items()},
            "embedder": self._embedder.embedder_id,
            "decay_model": decay.model,
            "store_format": self._log.format.decode(),
            "projection_version": PROJECTION_VERSION,
        }

    def _text(self, record: MemoryRecord) -> str | None:
        # None once erased or purged, even where another memory holds the same text.
        return None if record.status in CONTENT_GONE else self._log.blob(record.content_hash)

    def _memory(self, record: MemoryRecord) -> Memory:
        now = self._now()
        gain = self.config.decay
        return Memory(
            memory_id=record.memory_id,
            namespace=record.namespace,
            text=self._text(record),
            kind=record.kind,
            status=record.status,
            tier=record.tier,
            importance=record.importance,
            utility=record.utility,
            stability=effective_stability(record, gain),
            access_count=record.access_count,
            pinned=record.pinned,
            immutable=record.immutable,
            retention=retention(record, now, gain),
            storage_strength=record.access_count + record.reinforce_count,
            priority=record.priority,
            flashbulb=record.flashbulb,
            session=record.session_label,
            valid_from=None if record.valid_from is None else from_micros(record.valid_from),
            valid_until=None if record.valid_until is None else from_micros(record.valid_until),
            source=record.source,
            confidence=record.confidence,
            created_at=from_micros(record.created_at),
            last_access_at=from_micros(record.last_access_at),
            tags=record.tags,
            refs=record.refs,
            superseded_by=record.superseded_by,
            derived_from=record.derived_from,
            metadata=copy.deepcopy(record.metadata or {}),
            category=record.category,
            done_at=None if record.done_at is None else from_micros(record.done_at),
        )


def _fresh(hits: Iterable[Hit]) -> list[Hit]:
    """The hits with signals and metadata of their own (a Hit is frozen, its dicts are not;
    metadata holds lists, copied too)."""
    return [msgspec.structs.replace(h, signals=dict(h.signals),
                                    metadata=copy.deepcopy(h.metadata)) for h in hits]


def _time(micros: int | None) -> datetime | None:
    return None if micros is None else from_micros(micros)


class View(Reader):
    """The store as it stood at one seq: the same query methods, and every write raises."""

    def __init__(self, log: EventLog, views: Projections, embedder: Embedder, config: Config,
                 now: int, *, erasures: int | None = None) -> None:
        self._lock = threading.RLock()  # a view is shared between threads as safely as its engine
        self._log = log
        self._views = views
        self._embedder = embedder
        self.config = config
        self._at = now
        self._recall_cache = RecallCache(max(1, config.recall_cache_size))
        # How many of the log's erasures ``views`` reflects (None: all of them, now).
        self._erasures = len(log.erasure_seqs()) if erasures is None else erasures

    def _now(self) -> int:
        return self._at

    def _ensure_current(self) -> None:
        """An erase after this view was made reaches into it as into any view of the past
        (ARCHITECTURE section 8): its memories become skeletons here too, and no answer this
        view cached before it may hand their text out again."""
        seqs = self._log.erasure_seqs()
        if len(seqs) > self._erasures:
            later = (event for seq in seqs[self._erasures:]
                     for _, event in self._log.read(seq, seq))
            with_later_erasures(self._views, later)
            self._erasures = len(seqs)
            self._recall_cache.clear()

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        """Refused: a view is read-only (raises ReadOnlyError); write through the engine."""
        raise ReadOnlyError(
            f"this is a read-only view of the store as of seq {self._views.seq}; "
            "write through the engine itself"
        )

    remember = remember_many = forget = pin = unpin = resolve = erase = compact = _refuse
    touch = feedback = consolidate = snapshot = end_session = resolve_commitment = _refuse


def view_at(log: EventLog, embedder: Embedder, config: Config, *, head: int,
            at: datetime | None, seq: int | None, snapshots: bool = True) -> View:
    """A read-only view of the store as it stood at time ``at`` or just after ``seq`` (exactly
    one of them; ``seq`` at most ``head``), folded afresh from the log: from the newest usable
    snapshot at or before that point, or with ``snapshots=False`` from the log's first event."""
    if (at is None) == (seq is None):
        raise InvalidInputError("as_of takes exactly one of at= or seq=")
    if seq is not None:
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= head:
            raise InvalidInputError(f"seq must be an int from 0 to the head ({head})")
        until = seq
        now = log.event(seq).at if seq else 0
    else:
        now = to_micros(at, name="at")  # type: ignore[arg-type]
        until = log.seq_at_time(now)
    # Counted first: an erase landing during the fold is then applied again, which is harmless.
    erasures = len(log.erasure_seqs())
    # Always a fresh fold: a view must never share (or be changed with) the live state.
    views = load_or_rebuild(log, until=until)[0] if snapshots else rebuild(log, until=until)
    return View(log, views, embedder, config, now, erasures=erasures)

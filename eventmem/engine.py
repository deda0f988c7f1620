"""The engine: eventmem's one facade over the log, the projections and the policies.

Every write follows the same path: check the input, decide (the gate), append the decision events
with their content in one LMDB transaction, then fold the new events into the projections. If the
append fails nothing is folded, so the live state never runs ahead of the log.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from eventmem import ingest, validation
from eventmem.clock import Clock, SystemClock, to_micros
from eventmem.config import Config
from eventmem.content import Content
from eventmem.embedders import EMBEDDERS, Embedder, default_embedder
from eventmem.envelope import Envelope
from eventmem.errors import (
    ClosedError,
    EmbedderMismatchError,
    InvalidInputError,
    NotFoundError,
    ReadOnlyError,
    StoreError,
)
from eventmem.events import (
    EmbedderRegistered,
    Event,
    FeedbackGiven,
    MemoryForgotten,
    MemoryIngested,
    MemoryPinned,
    MemoryRecalled,
    MemoryTouched,
    MemoryUnpinned,
)
from eventmem.log import EventLog, Head
from eventmem.maintenance import SweepReport, purged_contents, sweep_events
from eventmem.maintenance import report as sweep_report
from eventmem.opslog import ops_logger
from eventmem.policies.decay import stability_after_access
from eventmem.policies.utility import after_feedback
from eventmem.reader import Reader, View
from eventmem.results import Hit, RememberResult
from eventmem.text import content_hash, packed_terms
from projections.state import MemoryRecord
from replay.rebuild import load_or_rebuild
from replay.verify import VerifyReport, verify

_ITEM_FIELDS = frozenset({
    "text", "namespace", "kind", "source", "importance", "confidence", "valid_from",
    "valid_until", "pinned", "immutable", "tags", "refs",
})


class Engine(Reader):
    """A store opened for reading and writing (or read-only with ``readonly=True``).

    Use :func:`eventmem.open`; close it, or use it as a context manager.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        embedder: Embedder | None = None,
        config: Config | None = None,
        readonly: bool = False,
    ) -> None:
        self.config = config or Config()
        self.clock: Clock = clock or SystemClock()
        self.readonly = readonly
        self._closed = False
        self._log = EventLog.open(path, readonly=readonly, sync=self.config.sync,
                                  map_size=self.config.map_size)
        try:
            self._embedder = self._bind_embedder(embedder)
            self._views, self.opened_from = load_or_rebuild(self._log)
            # The seq of the snapshot it opened from ("snapshot@SEQ+TAIL"), not the head: after
            # a crash the replayed tail must still be snapshotted on close.
            self._snapshot_seq = (
                self._views.seq - int(self.opened_from.rsplit("+", 1)[1])
                if self.opened_from.startswith("snapshot") else 0
            )
            self._last_at = self._head_time()
        except BaseException:
            self._log.close()
            raise
        self._ops = ops_logger(self._log.path, enabled=not readonly)
        self._ops.info("open", seq=self._views.seq, origin=self.opened_from)

    @property
    def path(self) -> str:
        return str(self._log.path)

    @property
    def store(self) -> EventLog:
        """The event log underneath (for operator tooling: replay, stats)."""
        return self._log

    @property
    def embedder(self) -> Embedder:
        return self._embedder

    def _bind_embedder(self, given: Embedder | None) -> Embedder:
        """Use the store's embedder; record one on a new store; refuse to mix another in."""
        stored = self._log.embedder_id()
        if stored is None:
            embedder = given or default_embedder()
            if not self.readonly:
                event = EmbedderRegistered(at=to_micros(self.clock.now()), namespace="",
                                           embedder_id=embedder.embedder_id, dim=embedder.dim)
                self._log.append([event], meta={b"embedder": embedder.embedder_id.encode()})
            return embedder
        if given is not None:
            if given.embedder_id != stored:
                raise EmbedderMismatchError(
                    f"store {self._log.path} holds vectors of embedder {stored!r}, not "
                    f"{given.embedder_id!r}; open it with that embedder (or none, to use it)"
                )
            return given
        factory = EMBEDDERS.get(stored)
        if factory is None:
            raise EmbedderMismatchError(
                f"store {self._log.path} was embedded with {stored!r}, which this eventmem "
                "cannot create; pass that embedder to open()"
            )
        return factory()

    def _head_time(self) -> int:
        head = self._log.head().seq
        return next(self._log.read(head, head))[1].at if head else 0

    # -- lifecycle ----------------------------------------------------------------------------

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Snapshot the projections (when there is anything new) and close the store."""
        if self._closed:
            return
        try:
            if not self.readonly and self._views.seq > self._snapshot_seq:
                try:
                    self.snapshot()
                except StoreError as exc:
                    # A snapshot is a cache: a full disk at close must not keep the store
                    # locked or lose anything; the next open replays the log's tail instead.
                    self._ops.info("close_snapshot_failed", error=str(exc))
            self._ops.info("close", seq=self._views.seq)
        finally:
            self._closed = True
            self._ops.close()
            self._log.close()

    def snapshot(self) -> int:
        """Write a snapshot of the projections now; returns its seq."""
        self._check_writable()
        self._log.put_snapshot(self._views.seq, self._views.to_bytes(),
                               keep=self.config.snapshots_kept)
        self._snapshot_seq = self._views.seq
        return self._snapshot_seq

    def _ensure_current(self) -> None:
        if self._closed:
            raise ClosedError("the store is closed; open it again")
        if self.readonly:
            self.refresh()

    def refresh(self) -> int:
        """Fold in whatever another process appended since; returns the new seq."""
        head = self._log.head().seq
        if head > self._views.seq:
            self._views.apply_all(self._log.envelopes(self._views.seq + 1, head))
        return self._views.seq

    def _now(self) -> int:
        return max(to_micros(self.clock.now(), name="clock.now()"), self._last_at)

    def _check_writable(self) -> None:
        if self._closed:
            raise ClosedError("the store is closed; open it again")
        if self.readonly:
            raise ReadOnlyError(f"store {self._log.path} is open read-only")

    # -- writing ------------------------------------------------------------------------------

    def remember(
        self,
        text: str,
        *,
        namespace: str = "default",
        kind: str | None = None,
        source: str = "user",
        importance: float | None = None,
        confidence: float = 1.0,
        valid_from: datetime | None = None,
        valid_until: datetime | None = None,
        pinned: bool = False,
        immutable: bool = False,
        tags: Sequence[str] = (),
        refs: Sequence[str] = (),
        session: str | None = None,
    ) -> RememberResult:
        """Store what the agent learned; returns the action taken and the memory it landed in.

        An exact duplicate (same text up to case and spacing) in the namespace reinforces the
        existing memory instead of storing it twice. Left out, ``kind`` is classified from the
        text, ``importance`` scored (novelty, arousal, reward, attention) and a plan's
        ``valid_until`` inferred ("by Friday"). With a ``session`` the memory enters that
        session's working memory (at most 9; the weakest moves on to episodic). Invalid input
        raises InvalidInputError and writes nothing.
        """
        item = dict(text=text, namespace=namespace, kind=kind, source=source,
                    importance=importance, confidence=confidence, valid_from=valid_from,
                    valid_until=valid_until, pinned=pinned, immutable=immutable, tags=tags,
                    refs=refs, session=session)
        return self.remember_many([item])[0]

    def remember_many(
        self, items: Iterable[str | Mapping[str, Any]], *, namespace: str = "default"
    ) -> list[RememberResult]:
        """Remember many texts in one atomic, durable append (one fsync for the whole batch).

        Each item is a text or a mapping of :meth:`remember`'s arguments; ``namespace`` is the
        default for items that name none. If any item is invalid, nothing is written.
        """
        self._check_writable()
        if isinstance(items, str | bytes | Mapping):  # would iterate characters or keys
            raise InvalidInputError(
                "remember_many takes a list of texts or mappings; for one text use remember()")
        checked = ingest.check_items(items, namespace, self.config)
        if not checked:
            return []
        at = self._now()
        contents = self._contents_for({content_hash(item["text"]): item["text"]
                                       for item in checked})
        decided = ingest.decide(self._views, checked, contents, at=at, head=self._log.head(),
                                config=self.config)
        created = {h: contents[h] for h in decided.texts}
        seqs = self._log.append(decided.events, contents=created)
        self._fold(decided.events, seqs, created)
        self._ops.info("remember", count=len(decided.events), first_seq=seqs[0],
                       last_seq=seqs[-1])
        return [RememberResult(memory_id=mid, action=action, seq=seq,
                               rule=getattr(event, "rule", ""))
                for (mid, action), seq, event in zip(decided.actions, seqs, decided.events,
                                                      strict=False)]

    def _contents_for(self, texts: Mapping[str, str]) -> dict[str, Content]:
        """Content for these texts (content hash -> text): what the store already holds where it
        holds it (the vector cache), the rest analysed here, embedded in one batch."""
        hashes = list(texts)
        out = {h: c for h, c in zip(hashes, self._log.contents(hashes), strict=True)
               if c is not None and c.vector is not None and c.terms is not None}
        missing = [h for h in hashes if h not in out]
        if missing:
            rows = self._embedder.embed([texts[h] for h in missing])
            for h, row in zip(missing, rows, strict=True):
                out[h] = Content(texts[h], row.tobytes(), packed_terms(texts[h]))
        return out

    def _fold(self, events: list[Event], seqs: list[int],
              contents: Mapping[str, Content] | None = None) -> None:
        """Apply appended events to the projections, with the content they introduced."""
        self._views.apply_all(_envelopes(events, seqs, contents or {}))
        self._last_at = max(self._last_at, events[-1].at)
        due = max(self.config.snapshot_every, self._snapshot_seq // 2)
        if self._views.seq - self._snapshot_seq >= due:
            self.snapshot()

    def _append_one(self, event: Event) -> int:
        seq = self._log.append([event])[0]
        self._fold([event], [seq])
        return seq

    def forget(self, memory_id: str, *, reason: str = "explicit") -> int:
        """Delete a memory: an event (status ``deleted``), not an erasure. Returns its seq."""
        self._check_writable()
        record = self._record(memory_id)
        if record.status == "deleted":
            return record.updated_seq
        seq = self._append_one(MemoryForgotten(at=self._now(), namespace=record.namespace,
                                               actor="user", memory_id=memory_id, reason=reason))
        self._ops.info("forget", memory_id=memory_id, seq=seq)
        return seq

    def touch(self, memory_id: str) -> int:
        """Record that the agent used a memory: an access, like being recalled. It restores
        retention, grows stability by the spacing effect and revives a stale, archived or
        dormant memory. Returns the seq."""
        self._check_writable()
        record = self._record(memory_id)
        now = self._now()
        stability = stability_after_access(record, now, self.config.decay)
        return self._append_one(MemoryTouched(at=now, namespace=record.namespace, actor="agent",
                                              memory_id=memory_id, stability=stability))

    def feedback(self, memory_id: str, *, useful: bool | float = True) -> float:
        """Say whether a memory helped: utility moves 10% of the way to 1 (useful) or 0 (not),
        or to a graded target in [0, 1]. Returns the new utility."""
        self._check_writable()
        record = self._record(memory_id)
        if isinstance(useful, bool):
            target = 1.0 if useful else 0.0
        else:
            target = validation.unit_float(useful, "useful")
        now = self._now()
        utility = after_feedback(record.utility, target, record.utility_at or record.created_at,
                                 now, self.config.utility)
        self._append_one(FeedbackGiven(at=now, namespace=record.namespace, actor="agent",
                                       memory_id=memory_id, target=target, utility=utility))
        return utility

    def consolidate(self, *, now: datetime | None = None) -> SweepReport:
        """Maintenance at ``now`` (default: the clock): the lifecycle sweep (stale, archived,
        deleted, purged), tier promotion and demotion, and expiry of time-bounded memories.
        Each decision is appended as an event carrying ``now``; running it twice at the same
        ``now`` changes nothing the second time."""
        self._check_writable()
        at = self._now()
        when = at if now is None else to_micros(now, name="now")
        events = sweep_events(self._views, when, at, self.config)
        seqs = []
        if events:
            seqs = self._log.append(events, drop_contents=purged_contents(self._views, events))
        if events:
            self._fold(events, seqs)
        # ANN indexes (a cache over sealed vector segments): build the missing ones and rebuild
        # those that lost rows to a purge, then snapshot so a reopened store has them.
        if self._views.vectors.build_indexes():
            self.snapshot()
        self._ops.info("consolidate", now=when, events=len(events))
        return sweep_report(when, events, seqs)

    def pin(self, memory_id: str) -> int:
        """Pin a memory: it is exempt from forgetting. Returns the seq (no event if pinned)."""
        return self._set_pin(memory_id, True)

    def unpin(self, memory_id: str) -> int:
        return self._set_pin(memory_id, False)

    def _set_pin(self, memory_id: str, pinned: bool) -> int:
        self._check_writable()
        record = self._record(memory_id)
        if record.pinned == pinned:
            return record.updated_seq
        cls = MemoryPinned if pinned else MemoryUnpinned
        return self._append_one(cls(at=self._now(), namespace=record.namespace, actor="user",
                                    memory_id=memory_id))

    def _record(self, memory_id: str) -> MemoryRecord:
        record = self._views.state.memories.get(memory_id) if isinstance(memory_id, str) else None
        if record is None:
            raise NotFoundError(f"no memory {memory_id!r} in this store")
        return record

    # -- reading that writes ------------------------------------------------------------------

    def recall(
        self,
        query: str,
        *,
        namespace: str = "default",
        k: int = 5,
        valid_at: datetime | None = None,
        include_hidden: bool = False,
    ) -> list[Hit]:
        """Reader.recall, and the recall is recorded as one ``memory.recalled`` event (the access
        that reinforces the returned memories, and the trail of what the agent was given)."""
        self._ensure_current()
        hits, _ = self._search(query, namespace=namespace, k=k, valid_at=valid_at,
                               include_hidden=include_hidden)
        if self.config.record_recalls and not self.readonly:
            now = self._now()
            memories = self._views.state.memories
            self._append_one(MemoryRecalled(
                at=now, namespace=namespace, actor="agent",
                query=validation.query(query, self.config), k=k,
                memory_ids=tuple(h.memory_id for h in hits),
                scores=tuple(h.score for h in hits),
                valid_at=None if valid_at is None else to_micros(valid_at),
                stabilities=tuple(stability_after_access(memories[h.memory_id], now,
                                                         self.config.decay) for h in hits)))
        return hits

    # -- the past, and checks -----------------------------------------------------------------

    def as_of(self, *, at: datetime | None = None, seq: int | None = None) -> View:
        """A read-only view of the store as it stood at time ``at`` or just after ``seq``."""
        self._ensure_current()
        if (at is None) == (seq is None):
            raise InvalidInputError("as_of takes exactly one of at= or seq=")
        head = self._views.seq
        if seq is not None:
            if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= head:
                raise InvalidInputError(f"seq must be an int from 0 to the head ({head})")
            until = seq
            now = next(self._log.read(seq, seq))[1].at if seq else 0
        else:
            now = to_micros(at, name="at")  # type: ignore[arg-type]
            until = self._log.seq_at_time(now)
        # Always a fresh fold: a view must never share (or be changed with) the live state.
        views, _ = load_or_rebuild(self._log, until=until)
        return View(self._log, views, self._embedder, self.config, now)

    def verify(self, *, expected_head: Head | None = None) -> VerifyReport:
        """Check the hash chain, the blobs, the head, and live projections against a rebuild."""
        self._ensure_current()
        report = verify(self._log, live=self._views, expected_head=expected_head)
        self._ops.info("verify", ok=report.ok, findings=len(report.findings))
        return report

    def head(self) -> Head:
        self._ensure_current()
        return self._log.head()


def _envelopes(
    events: list[Event], seqs: list[int], contents: Mapping[str, Content]
) -> Iterator[Envelope]:
    """The appended events as the log reader would hand them to a fold (with the text too)."""
    for event, seq in zip(events, seqs, strict=True):
        content = contents.get(event.content_hash) if isinstance(event, MemoryIngested) else None
        if content is None:
            yield Envelope(seq, event)
        else:
            yield Envelope(seq, event, content.text, content.vector, content.terms)

"""The engine: eventmem's one facade over the log, the projections and the policies.

Every write follows the same path: check the input, decide (the gate), append the decision events
with their content in one LMDB transaction, then fold the new events into the projections. If the
append fails nothing is folded, so the live state never runs ahead of the log.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import msgspec
import numpy as np

from eventmem import checks, progress, transfer
from eventmem import metadata as caller_metadata
from eventmem.clock import Clock, SystemClock, to_micros
from eventmem.config import Config, record_config
from eventmem.errors import (
    ClosedError,
    EmbedderMismatchError,
    InvalidInputError,
    NotFoundError,
    ReadOnlyError,
    StoreError,
)
from eventmem.events import (
    CommitmentResolved,
    EmbedderRegistered,
    Event,
    FeedbackGiven,
    MemoryForgotten,
    MemoryIngested,
    MemoryPinned,
    MemoryRecalled,
    MemoryTouched,
    MemoryUnpinned,
    RecalledQuery,
    session_key,
)
from eventmem.judges import NO_JUDGES, Judges
from eventmem.maintain import cycle
from eventmem.maintain.sweep import ConsolidationReport, purged_contents
from eventmem.maintain.sweep import report as consolidation_report
from eventmem.policies import boxes, plasticity
from eventmem.policies.decay import stability_after_access
from eventmem.policies.dream.summaries import Summarizer
from eventmem.policies.extract.judge import FactExtractor
from eventmem.policies.utility import after_feedback
from eventmem.reader import Reader, View, serialized, view_at
from eventmem.recall.cache import RecallCache
from eventmem.recall.intent import is_rules as intent_rules
from eventmem.results import Action, Hit, RememberResult
from eventmem.storage.envelope import Content, appended
from eventmem.storage.log import EventLog, Head
from eventmem.storage.opslog import ops_logger
from eventmem.text.embedders import EMBEDDERS, CheckedEmbedder, Embedder, default_embedder
from eventmem.text.normalize import content_hash, dedup_key
from eventmem.write import batch, erase, resolve
from eventmem.write.analysis import contents_for
from eventmem.write.compound import split_items
from eventmem.write.erase import Erasure
from eventmem.write.items import Item, check_items, masked
from eventmem.write.neighbours import eligible
from eventmem.write.session import session_end
from eventmem.write.workers import Pool, workers_for, worth_sharing
from projections import Projections, quantize
from projections.state import MemoryRecord, as_accessed, dedup_slot
from replay.audit import AuditReport, audit
from replay.compare import TOLERANCE
from replay.rebuild import load_or_rebuild
from replay.verify import VerifyReport, verify

_QUERY = msgspec.json.Encoder(order="deterministic")  # RecalledQuery documents, as content
IMPORT_BATCH = 1_000  # memories per atomic append of an import: bounded memory, resumable
# Stored texts the write path keeps read (Engine._text_of): about a tenth of a KB each.
_TEXTS_KEPT = 1 << 16

# Opening a store: its event log, the embedder bound to it, and the projections folded to its head.
#
# :func:`open_store` is the first half of :class:`eventmem.engine.Engine`'s construction: it opens
# the
# log, binds the embedder (:func:`bind_embedder`: the store's own, recorded on a new store, another
# refused), records the config a writer decides with (:func:`eventmem.config.record_config`),
# loads the projections from the latest snapshot plus the log's tail (or rebuilds them), and notes
# where that snapshot stood and the time of the latest event. If any step fails the log is closed
# again.

class Opened(NamedTuple):
    """An open store, as the engine starts from it."""

    log: EventLog
    embedder: CheckedEmbedder  # the store's embedder, its output checked (.inner: as given)
    views: Projections
    opened_from: str  # "snapshot@SEQ+TAIL" or "rebuild+TAIL" (load_or_rebuild)
    snapshot_seq: int  # the seq of the snapshot it opened from (0: none)
    last_at: int  # the time of the latest event (0: an empty log)
    rejected: tuple[tuple[int, str], ...]  # (seq, why) of a snapshot it did not trust


def open_store(path: str | os.PathLike[str], *, config: Config, clock: Clock,
               embedder: Embedder | None, readonly: bool) -> Opened:
    """Open the store at ``path`` (see the module docstring)."""
    log = EventLog.open(path, readonly=readonly, sync=config.sync, map_size=config.map_size)
    try:
        bound = bind_embedder(log, embedder, clock=clock, readonly=readonly)
        if not readonly:  # the parameters this writer decides with (replay/audit.py)
            record_config(log, config)
        rejected: list[tuple[int, str]] = []
        views, opened_from = load_or_rebuild(log, on_reject=lambda seq, why:
                                             rejected.append((seq, why)))
        # The seq of the snapshot it opened from ("snapshot@SEQ+TAIL"), not the head: after
        # a crash the replayed tail must still be snapshotted on close.
        snapshot_seq = (
            views.seq - int(opened_from.rsplit("+", 1)[1])
            if opened_from.startswith("snapshot") else 0
        )
        last_at = head_time(log)
    except BaseException:
        log.close()
        raise
    return Opened(log, bound, views, opened_from, snapshot_seq, last_at, tuple(rejected))


def bind_embedder(log: EventLog, given: Embedder | None, *, clock: Clock,
                  readonly: bool) -> CheckedEmbedder:
    """Use the store's embedder; record one on a new store; refuse to mix another in (another
    id, or the same id with vectors of another length)."""
    stored = log.embedder_id()
    if stored is None:
        embedder = given or default_embedder()
        if not readonly:
            event = EmbedderRegistered(at=to_micros(clock.now()), namespace="",
                                       embedder_id=embedder.embedder_id, dim=embedder.dim,
                                       cold_vectors=quantize.CODES)
            log.append([event], meta={b"embedder": embedder.embedder_id.encode()})
        return CheckedEmbedder(embedder, embedder.dim)
    if given is not None:
        if given.embedder_id != stored:
            raise EmbedderMismatchError(
                f"store {log.path} holds vectors of embedder {stored!r}, not "
                f"{given.embedder_id!r}; open it with that embedder (or none, to use it)"
            )
        embedder = given
    else:
        factory = EMBEDDERS.get(stored)
        if factory is None:
            raise EmbedderMismatchError(
                f"store {log.path} was embedded with {stored!r}, which this eventmem "
                "cannot create; pass that embedder to open()"
            )
        embedder = factory()
    dim = recorded_dim(log)
    if dim is not None and embedder.dim != dim:
        raise EmbedderMismatchError(
            f"store {log.path} holds {dim}-dimensional vectors of embedder {stored!r}; the "
            f"embedder given under that id makes {embedder.dim}-dimensional ones"
        )
    return CheckedEmbedder(embedder, embedder.dim if dim is None else dim)


def recorded_dim(log: EventLog) -> int | None:
    """The vector length the store's embedder registration recorded (its first event), or
    None when the first event is not one (an erased or foreign log)."""
    if log.head().seq == 0:
        return None
    first = log.event(1)
    return first.dim if isinstance(first, EmbedderRegistered) else None


def head_time(log: EventLog, head: int | None = None) -> int:
    """The time of the log's latest event, or of the event at seq ``head`` (0 for none)."""
    head = log.head().seq if head is None else head
    return log.event(head).at if head else 0


class Engine(Reader):
    """A store opened for reading and writing (or read-only with ``readonly=True``).

    Use :func:`eventmem.open`; close it, or use it as a context manager. One engine may be
    shared between threads: every public method that reads the projections or touches the log
    runs under the engine's lock, so writes are serialized and reads see whole folds
    (:func:`eventmem.reader.serialized`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        embedder: Embedder | None = None,
        config: Config | None = None,
        readonly: bool = False,
        summarizer: Summarizer | None = None,
        judges: Judges | None = None,
    ) -> None:
        checks.plugins(clock=clock, embedder=embedder, summarizer=summarizer, config=config)
        if judges is not None and not isinstance(judges, Judges):
            raise InvalidInputError(f"judges must be an eventmem.Judges, got "
                                    f"{type(judges).__name__}")
        self.judges = judges or NO_JUDGES
        try:
            self.judges.check()
        except TypeError as exc:
            raise InvalidInputError(str(exc)) from None
        self.intent_classifier = None if intent_rules(self.judges.intent) \
            else self.judges.intent
        readonly = checks.flag(readonly, "readonly")
        self.config = config or Config()
        self.clock: Clock = clock or SystemClock()
        self._recall_cache: RecallCache[Any] = RecallCache(max(1, self.config.recall_cache_size))
        self.summarizer = summarizer  # None: extractive (eventmem.policies.dream.summaries)
        self.readonly = readonly
        self._closed = False
        self._lock = threading.RLock()
        opened = open_store(path, config=self.config, clock=self.clock, embedder=embedder,
                            readonly=readonly)
        self._log, self._embedder, self._views = opened.log, opened.embedder, opened.views
        self.opened_from, self._snapshot_seq = opened.opened_from, opened.snapshot_seq
        self._last_at = opened.last_at
        self._given_embedder = opened.embedder.inner  # _embedder checks its output
        self._pool: Pool | None = None  # started by the first large parallel write
        # Stored texts the write path read, by content hash (see _text_of).
        self._texts: dict[str, str] = {}
        try:
            self._ops = ops_logger(self._log.path, enabled=not readonly,
                                   max_bytes=self.config.ops_log_max_bytes,
                                   keep=self.config.ops_log_files)
        except OSError as exc:
            self._log.close()  # the store must not stay locked by an engine that never opened
            raise StoreError(f"cannot open the ops log of {self._log.path}: {exc.strerror}; "
                             "check the directory's permissions and free space") from exc
        for seq, why in opened.rejected:  # a cache not used: the operator hears why
            self._ops.info("snapshot_rejected", snapshot_seq=seq, why=why)
        self._ops.info("open", seq=self._views.seq, origin=self.opened_from)

    @property
    def path(self) -> str:
        """The store's directory."""
        return str(self._log.path)

    @property
    def store(self) -> EventLog:
        """The event log underneath (for operator tooling: replay, stats)."""
        return self._log

    @property
    def embedder(self) -> Embedder:
        """The store's embedder, as given to (or created by) open()."""
        return self._given_embedder

    # -- lifecycle ----------------------------------------------------------------------------

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @serialized
    def close(self) -> None:
        """Snapshot the projections (when there is anything new) and close the store."""
        if self._closed:
            return
        try:
            if not self.readonly and self._views.seq > self._snapshot_seq:
                try:
                    self._write_snapshot(reread=False)  # closing: nothing reads it again
                except StoreError as exc:
                    # A snapshot is a cache: a full disk at close must not keep the store
                    # locked or lose anything; the next open replays the log's tail instead.
                    self._ops.info("close_snapshot_failed", error=str(exc))
            self._ops.info("close", seq=self._views.seq)
        finally:
            # Whatever failed above (a full disk, say), the store is released: its writer lock
            # and LMDB environment, so this process or another can open it again.
            self._closed = True
            try:
                self._ops.close()
            finally:
                self._log.close()
                if self._pool is not None:
                    self._pool.close()
                    self._pool = None

    @serialized
    def snapshot(self) -> int:
        """Write a snapshot of the projections now; returns its seq. The projections then read
        their columns from it (see :meth:`_reread_snapshot`)."""
        return self._write_snapshot(reread=True)

    def _write_snapshot(self, *, reread: bool) -> int:
        self._check_writable()
        # Config.snapshot_rows False: the vector rows stay in the store's vector cache alone, and
        # the snapshot names them.
        rows_by_key = not self.config.snapshot_rows
        self._log.put_snapshot(self._views.seq, self._views.to_parts(rows_by_key=rows_by_key),
                               keep=self.config.snapshots_kept)
        self._snapshot_seq = self._views.seq
        if reread:
            self._reread_snapshot()
        return self._snapshot_seq

    def _reread_snapshot(self) -> None:
        """Read the projections back from the snapshot just written, keeping what lives only
        in memory (the ANN segments: :meth:`Vectors.adopt_segments`).

        Projections opened from a snapshot read their columns from its mapped file, and
        writing a snapshot removes the older files (an erase removes them all): a removed file
        stays on disk, pages and all, for as long as a process maps it. Its pages hold what the
        log has dropped since (an erase's vectors and terms, a purge's), so the engine lets go
        of it at once rather than at close, and never holds a file the store no longer names.
        Reading back costs the snapshot's column checksums (the file is in the page cache,
        just written); the values decoded so far are decoded again when next used."""
        found = self._log.latest_snapshot(self._views.seq)
        # The rows it names are the live ones (just dumped): taken as they are, not read again.
        live = self._views.vectors.warm_rows()
        rows = (lambda keys: live[0]) if len(live) == 1 else (lambda keys: b"".join(live))
        fresh = Projections.from_bytes(found.data, rows) if found is not None else None
        if fresh is None or fresh.seq != self._views.seq:
            # Not expected (the bytes were just written and synced); a snapshot is a cache,
            # so the projections stay as they are and the operator hears of it.
            self._ops.info("snapshot_reread_failed", seq=self._views.seq)
            return
        fresh.vectors.adopt_segments(self._views.vectors)
        self._views = fresh

    def log_op(self, op: str, **fields: object) -> None:
        """Write one line to the store's ops log: ``op`` and ``fields`` (ids, counts, codes;
        never memory text or queries, which an erase could not reach there). For what runs
        around the engine, such as the server's access refusals. Best effort, as every ops-log
        line; nothing when the store is read-only."""
        self._ops.info(op, **fields)

    def _ensure_current(self) -> None:
        if self._closed:
            raise ClosedError("the store is closed; open it again")
        if self.readonly:
            self.refresh()

    @serialized
    def refresh(self) -> int:
        """Fold in whatever another process appended since; returns the new seq."""
        head = self._log.head().seq
        if head > self._views.seq:
            self._views.apply_all(self._log.envelopes(self._views.seq + 1, head))
            # Its now is never before the latest event it folded, as a fresh open's is: the
            # writer's clock may run ahead of this reader's.
            self._last_at = max(self._last_at, head_time(self._log, self._views.seq))
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
        on_conflict: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        tier: str | None = None,
    ) -> RememberResult:
        """Store what the agent learned; returns the action taken and the memory it landed in.

        An exact duplicate (same text up to case and spacing) in the namespace reinforces the
        existing memory instead of storing it twice. Left out, ``kind`` is classified from the
        text, ``importance`` scored (novelty, arousal, reward, attention) and a plan's
        ``valid_until`` inferred ("by Friday"). With a ``session`` the memory enters that
        session's working memory (at most 9; the weakest moves on to episodic). Invalid input
        raises InvalidInputError and writes nothing.

        The write gate compares the text with the namespace's nearest memories: a semantic
        duplicate reinforces, a near duplicate merges (or is skipped when it adds nothing), and a
        contradiction is settled by ``on_conflict`` (default ``Config.gate.strategy``):
        keep_existing, use_new, merge, ask (both kept; see :meth:`conflicts`) or temporal.
        Input the observer filter refuses (markup, prompt injection, code) comes back
        ``action="rejected"`` with the reason, and only the rejection is recorded.

        ``metadata``: a small JSON object of the caller's (at most 32 keys, 4 KB), returned with
        the memory and matched by ``recall(filters=...)`` and ``memories(filters=...)``; a new
        version of the memory (an update, a merge) carries it on. It is caller data, erased
        with the text, and no decision of the engine reads it.

        ``tier``: episodic, semantic or procedural, to store the memory there instead of
        where the engine puts it (a session's working memory; the procedural tier for a how-to
        or an always/never rule; episodic otherwise). Each memory also gets a retention
        category (correction, procedure, decision, preference, fact:
        :mod:`eventmem.policies.category`), recorded with its rule.
        """
        item = dict(text=text, namespace=namespace, kind=kind, source=source,
                    importance=importance, confidence=confidence, valid_from=valid_from,
                    valid_until=valid_until, pinned=pinned, immutable=immutable, tags=tags,
                    refs=refs, session=session, on_conflict=on_conflict, metadata=metadata,
                    tier=tier)
        # The namespace goes in as the batch's default too, where it is checked as given: in a
        # mapping None means "the default namespace", but remember(namespace=None) is refused
        # like every other call's None, never a silent write into "default".
        return self.remember_many([item], namespace=namespace)[0]

    @serialized
    def remember_many(
        self, items: Iterable[str | Mapping[str, Any]], *, namespace: str = "default",
        workers: int | None = 1,
    ) -> list[RememberResult]:
        """Remember many texts in one atomic, durable append (one fsync for the whole batch).

        Each item is a text or a mapping of :meth:`remember`'s arguments; ``namespace`` is the
        default for items that name none. If any item is invalid, nothing is written.

        ``workers``: processes that analyse the texts (terms, entities, the vector, the
        readings the gate asks for) while this one decides; 0 or None means every core. Only a
        batch of a few hundred new texts or more is shared (a smaller one is analysed here);
        the decisions, and so the log, are the same bytes whatever the number. The workers
        start with the first such batch and stop when the store closes; a script that uses
        them must start from an ``if __name__ == "__main__":`` block, as any that starts
        processes (:mod:`eventmem.write.workers`, which also says what a custom embedder
        needs to be shipped to them).
        """
        self._check_writable()
        # A text or a mapping would iterate characters or keys; None or a number not at all.
        if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
            raise InvalidInputError(
                "remember_many takes a list of texts or mappings; for one text use remember()")
        count = workers_for(workers)  # a bad count is refused before the items are read
        checked = check_items(items, namespace, self.config)
        return self._write(split_items(checked, self.config.formation), workers=count)

    def _write(self, checked: list[Item], op: str = "remember", *,
               workers: int = 1) -> list[RememberResult]:
        """Decide checked items, append the decisions in one transaction and fold them."""
        if not checked:
            return []
        checked = masked(checked, self.config.observer)
        at = self._now()
        contents = self._contents_for({content_hash(item.text): item.text
                                       for item in checked}, extractor=self.judges.facts,
                                      workers=workers)
        decided = batch.decide(self._views, checked, contents, at=at, head=self._log.head(),
                                config=self.config, text_of=self._text_of,
                                vector_of=self._vector_of, analyse=self._analyse,
                                contradiction=self.judges.contradiction,
                                linker=self.judges.links, extractor=self.judges.facts)
        seqs = self._log.append(decided.events, contents=decided.contents)
        self._fold(decided.events, seqs, decided.contents)
        self._ops.info(op, count=len(decided.events), first_seq=seqs[0], last_seq=seqs[-1])
        # Synaptic tagging and capture, decided on the state the batch left (its own append:
        # the write's decisions stand whether or not this follows).
        # Box seals too, on the same state (the audit re-derives both from it).
        ingested = [e for e in decided.events if isinstance(e, MemoryIngested)]
        self._append_plasticity([
            *plasticity.after_write(self._views.state, ingested, at, self.config.plasticity,
                                    self.config.decay),
            *boxes.after_write(self._views.state, ingested, at, self.config.boxes,
                               self._terms_of)])
        # One result per item the caller gave: a split statement's is its first clause's.
        return [RememberResult(memory_id=o.memory_id, action=o.action, seq=seqs[o.event],
                               rule=o.rule, reason=o.reason, neighbour=o.neighbour,
                               similarity=o.similarity, conflict_id=o.conflict_id)
                for o, item in zip(decided.outcomes, checked, strict=True) if item.part == 0]

    @serialized
    def update(self, memory_id: str, text: str, *,
               metadata: Mapping[str, Any] | None = None) -> RememberResult:
        """Replace a memory's text with ``text``: a new version, superseding the old one from
        now on (``action="updated"``, rule ``caller_update``). The old version stays in the
        history (:meth:`history`, :meth:`timeline`, ``recall(valid_at=...)`` before now) and
        the new one keeps what it had earned (kind, importance, stability, pin, tags, and its
        metadata with ``metadata`` laid over it). The write gate does not judge it: the caller
        said what the memory now holds.

        The same text with no new metadata changes nothing (``action="skipped"``, rule
        ``unchanged``, nothing recorded). A deleted, superseded, erased or immutable memory
        cannot be updated (InvalidInputError): update the version that replaced it, or
        remember anew."""
        self._check_writable()
        record = self._record(memory_id)
        if record.status in ("deleted", "superseded"):
            later = f" by {record.superseded_by}" if record.superseded_by else ""
            raise InvalidInputError(f"memory {memory_id!r} is {record.status}{later}; "
                                    "update the current version, or remember anew")
        if record.immutable:
            raise InvalidInputError(f"memory {memory_id!r} is immutable")
        text = checks.text(text, self.config)
        given = caller_metadata.check(metadata)
        if dedup_key(text) == record.dedup_key \
                and caller_metadata.merged(record.metadata, given) == (record.metadata or None):
            return RememberResult(memory_id=memory_id, action="skipped", seq=None,
                                  rule="unchanged")
        return self._write([Item(text=text, namespace=record.namespace, metadata=given,
                                 replaces=memory_id)], op="update")[0]

    @serialized
    def import_memories(self, source: transfer.Destination, *,
                        namespace: str | None = None,
                        workers: int | None = 1) -> list[RememberResult]:
        """Import memories exported by :meth:`export_memories` (JSON lines, from this store or
        another): each is created as it was exported (text, kind, times, importance,
        confidence, pin, tags, refs, metadata), keeping the time it was first recorded
        (``Memory.created_at``) and its valid time; its retention starts afresh now. The write
        gate does not judge them (their store settled them), but a memory whose text the
        namespace already holds is not imported twice (``action="skipped"``, rule
        ``already_present``, nothing recorded): an import can be run again after a crash.

        ``namespace``: import every memory there (default: each line's own). Every line is
        read and checked before anything is written (a bad line raises InvalidInputError
        naming it, and nothing is written); the memories are then written in batches of 1,000,
        each one atomic. Returns one result per line, in order. ``workers``: as for
        :meth:`remember_many`."""
        self._check_writable()
        count = workers_for(workers)
        items = transfer.read(source, namespace=namespace, config=self.config, now=self._now())
        state = self._views.state
        # Each line's memory: one the namespace holds already, else the first line of the
        # file with its text (the lines that create one are ``fresh``).
        present: dict[int, str | int] = {}  # line -> a memory id, or the line creating it
        first_line: dict[str, int] = {}
        fresh: list[int] = []
        for index, item in enumerate(items):
            slot = dedup_slot(item.namespace, dedup_key(item.text))
            holder = state.by_dedup.get(slot)
            if holder is not None and eligible(state.memories[holder]):
                present[index] = holder
            elif slot in first_line:
                present[index] = first_line[slot]
            else:
                first_line[slot] = index
                fresh.append(index)
        created: dict[int, RememberResult] = {}
        progress.report("import", 0, len(fresh))
        for start in range(0, len(fresh), IMPORT_BATCH):
            chunk = fresh[start:start + IMPORT_BATCH]
            created.update(zip(chunk, self._write([items[i] for i in chunk], op="import",
                                                  workers=count), strict=True))
            progress.report("import", start + len(chunk), len(fresh))
        results = []
        for index in range(len(items)):
            if index in created:
                results.append(created[index])
                continue
            held = present[index]
            if isinstance(held, str):
                memory_id: str | None = held
            elif created[held].memory_id is None:
                results.append(created[held])  # its first line was rejected: so is this one
                continue
            else:
                memory_id = created[held].memory_id
            results.append(RememberResult(memory_id=memory_id, action="skipped", seq=None,
                                          rule="already_present"))
        return results

    def _text_of(self, memory_id: str) -> str:
        # The write path reads the same stored texts call after call (gate-7's searches read a
        # hundred-odd a remember), each a read transaction and a decompression. A content
        # hash's text never changes; it only goes, when a purge or an erase drops it, and
        # those empty this (no other process writes while this engine is the writer).
        chash = self._views.state.memories[memory_id].content_hash
        text = self._texts.get(chash)
        if text is None:
            text = self._log.blob(chash)
            if text is None:
                return ""
            if len(self._texts) >= _TEXTS_KEPT:
                del self._texts[next(iter(self._texts))]  # the oldest goes first
            self._texts[chash] = text
        return text

    def _vector_of(self, memory_id: str) -> np.ndarray:
        chash = self._views.state.memories[memory_id].content_hash
        content = self._log.contents([chash])[0]
        vector = content.vector if content is not None else None
        return np.frombuffer(vector or bytes(4 * self._embedder.dim), dtype=np.float32)

    def _analyse(self, text: str) -> Content:
        """A text the write path synthesized, analysed as its inputs are (the fact extractor)."""
        chash = content_hash(text)
        return self._contents_for({chash: text}, extractor=self.judges.facts)[chash]

    def _contents_for(self, texts: Mapping[str, str],
                      extractor: FactExtractor | None = None, *, workers: int = 1
                      ) -> dict[str, Content]:
        pool = self._workers(workers) if worth_sharing(len(texts), workers) else None
        found = contents_for(self._log, self._embedder, texts, extractor, pool)
        if pool is not None and pool.broken:  # a worker died: the next write starts afresh
            pool.close()
            self._pool = None
        return found

    def _workers(self, count: int) -> Pool:
        """The engine's worker processes, ``count`` of them (started, or restarted with the
        new count, here)."""
        if self._pool is not None and self._pool.workers != count:
            self._pool.close()
            self._pool = None
        if self._pool is None:
            self._pool = Pool(self._embedder, count)
        return self._pool

    def _fold(self, events: list[Event], seqs: list[int],
              contents: Mapping[str, Content] | None = None) -> None:
        """Apply appended events to the projections, with the content they introduced."""
        self._views.apply_all(appended(events, seqs, contents or {}))
        self._last_at = max(self._last_at, events[-1].at)
        due = max(self.config.snapshot_every, self._snapshot_seq // 2)
        if self._views.seq - self._snapshot_seq >= due:
            self.snapshot()

    def _terms_of(self, hashes: Sequence[str]) -> list[bytes | None]:
        """The stored BM25 terms of each content hash (None where the content is gone)."""
        return self._log.terms(hashes)

    def _append_plasticity(self, events: list[Event]) -> None:
        """Append and fold the tags and captures a write decided after it: one transaction,
        right after the write's own (they are decided on the state the write left; an
        access's co-activation and spreading go in the access's own transaction)."""
        if events:
            seqs = self._log.append(events)
            self._fold(events, seqs)
            self._ops.info("plasticity", count=len(events), first_seq=seqs[0], last_seq=seqs[-1])

    def _append_one(self, event: Event, op: str, **logged: object) -> int:
        """Append and fold one event, and say so in the ops log as ``op`` with its seq and
        ``logged`` (ids and numbers: the ops log never holds text)."""
        seq = self._log.append([event])[0]
        self._fold([event], [seq])
        self._ops.info(op, seq=seq, **logged)
        return seq

    @serialized
    def forget(self, memory_id: str, *, reason: str = "explicit") -> int:
        """Delete a memory: an event (status ``deleted``), not an erasure. Returns its seq.
        ``reason`` is a short code (``explicit``, ``outdated``), never prose, as for
        :meth:`erase`: the event keeps it for good."""
        self._check_writable()
        reason = checks.reason(reason)
        record = self._record(memory_id)
        if record.status == "deleted":
            return record.updated_seq
        # The later clauses of a statement the write path split go with the memory the caller
        # was given for it (the first clause: they link to it ``part_of``), in one append.
        links = self._views.graph.namespaces.get(record.namespace)
        parts = sorted(other for other, relation, _, outgoing in (
            links.links.view(memory_id) if links is not None else ())
            if relation == "part_of" and not outgoing
            and (part := self._views.state.memories.get(other)) is not None
            and part.status != "deleted")
        at = self._now()
        events: list[Event] = [MemoryForgotten(at=at, namespace=record.namespace, actor="user",
                                               memory_id=mid, reason=reason)
                               for mid in (memory_id, *parts)]
        seqs = self._log.append(events)
        self._fold(events, seqs)
        self._ops.info("forget", seq=seqs[0], memory_id=memory_id, parts=len(parts))
        return seqs[0]

    @serialized
    def touch(self, memory_id: str) -> int:
        """Record that the agent used a memory: an access, like being recalled. It restores
        retention, grows stability by the spacing effect and revives a stale, archived or
        dormant memory. Returns the seq."""
        self._check_writable()
        record = self._record(memory_id)
        now = self._now()
        stability = stability_after_access(record, now, self.config.decay)
        event = MemoryTouched(at=now, namespace=record.namespace, actor="agent",
                              memory_id=memory_id, stability=stability)
        after = plasticity.after_access(
            self._views, (memory_id,), now, self.config.plasticity, self.config.decay,
            recall=False, left=as_accessed(self._views.state.memories, (memory_id,), now,
                                           (stability,)))
        seqs = self._log.append([event, *after])  # one transaction, as recall's
        self._fold([event, *after], seqs)
        self._ops.info("touch", seq=seqs[0], memory_id=memory_id, plasticity=len(after))
        return seqs[0]

    @serialized
    def resolve_commitment(self, memory_id: str) -> int:
        """Mark a plan or commitment done: one ``memory.commitment_resolved`` event. Its valid
        time ends now, it leaves recall (``include_hidden=True`` and ``valid_at`` still find
        it), and a consolidation archives it ``LifecycleParams.done_archive_days`` (90) later.
        Returns the seq (the earlier one, and nothing recorded, when it is already done). A
        memory of another kind than plan raises InvalidInputError."""
        self._check_writable()
        record = self._record(memory_id)
        if record.kind != "plan":
            raise InvalidInputError(
                f"memory {memory_id!r} is a {record.kind}, not a plan or commitment; only a "
                "plan can be marked done (store it with kind='plan')")
        if record.done_at is not None:
            return record.updated_seq
        return self._append_one(CommitmentResolved(at=self._now(), namespace=record.namespace,
                                                   actor="user", memory_id=memory_id),
                                "resolve_commitment", memory_id=memory_id)

    @serialized
    def end_session(self, session: str, *, namespace: str = "default") -> int:
        """End a session: every working-memory item that ``remember(..., session=session)`` put
        in ``namespace`` moves to the episodic tier at once (one ``memory.tier_changed`` event,
        reason ``session_ended``), where it decays at the episodic rate. Returns how many moved
        (0, and nothing recorded, when the session holds none). A consolidation moves working
        items out on its own too (after 30 minutes, 2 accesses or at importance >= 0.6:
        ``TierParams``); this is for a caller that knows the session is over."""
        self._check_writable()
        session = checks.label(session, "session")
        namespace = checks.namespace(namespace, self.config)
        now = self._now()
        # Working memory is grouped by the session's key; records written before labels-1
        # (the session in the clear) by the session itself.
        events = (session_end(self._views, namespace, session_key(namespace, session), now,
                              self.config)
                  or session_end(self._views, namespace, session, now, self.config))
        if not events:
            return 0
        moved = len(events[0].changes)
        self._append_one(events[0], "end_session", namespace=namespace, moved=moved)
        return moved

    @serialized
    def feedback(self, memory_id: str, *, useful: bool | float = True) -> float:
        """Say whether a memory helped: utility moves 10% of the way to 1 (useful) or 0 (not),
        or to a graded target in [0, 1]. Returns the new utility."""
        self._check_writable()
        record = self._record(memory_id)
        if isinstance(useful, bool):
            target = 1.0 if useful else 0.0
        else:
            target = checks.unit_float(useful, "useful")
        now = self._now()
        utility = after_feedback(record.utility, target, record.utility_at or record.created_at,
                                 now, self.config.utility)
        self._append_one(FeedbackGiven(at=now, namespace=record.namespace, actor="agent",
                                       memory_id=memory_id, target=target, utility=utility),
                         "feedback", memory_id=memory_id, target=target)
        return utility

    @serialized
    def consolidate(self, *, now: datetime | None = None,
                    dry_run: bool = False) -> ConsolidationReport:
        """Maintenance at ``now`` (default: the clock), in one atomic append:

        * the lifecycle sweep (stale, archived, deleted, purged), tier promotion and demotion,
          and expiry of time-bounded memories;
        * the dream cycle (``Config.dream``): rehearsal of endangered memories, strategic
          forgetting to the dormant tier (open contradictions, the utility floor, redundancy,
          the capacity cap), clusters of similar memories merged into consolidated memories,
          and a summary memory per (namespace, kind).

        Each decision is an event carrying ``now`` and its evidence; running it twice at the
        same ``now`` changes nothing the second time. Pinned and immutable memories are never
        made dormant, trimmed or merged. A ``now`` earlier than the store's latest event is
        refused (InvalidInputError, nothing written): the log has already passed that time.

        ``dry_run=True`` decides exactly as a real run would and returns the same report, but
        appends nothing (the report's ``seqs`` are empty and its ``dry_run`` set); it needs no
        writer, so a read-only engine can preview maintenance while another process writes.
        """
        dry_run = checks.flag(dry_run, "dry_run")
        if dry_run:
            self._ensure_current()  # a read-only engine catches up with the writer first
        else:
            self._check_writable()
        at = self._now()
        when = at if now is None else to_micros(now, name="now")
        cycle.check_now(when, self._last_at)
        planned = cycle.plan(self._views, when, at, self.config, head=self._log.head(),
                             text_of=self._log.blob, contents_for=self._contents_for,
                             terms_of=self._terms_of, summarizer=self.summarizer,
                             on_step=cycle.report_progress)
        events = planned.events
        if dry_run:
            self._ops.info("consolidate", now=when, events=len(events), dry_run=True)
            return consolidation_report(when, events, [], dry_run=True)
        seqs: list[int] = []
        if events:
            # A purge must not drop content a memory this cycle creates holds (same text).
            dropped = [h for h in purged_contents(self._views, events)
                       if h not in planned.contents]
            seqs = self._log.append(events, contents=planned.contents, drop_contents=dropped)
            if dropped:
                self._texts.clear()
            self._fold(events, seqs, planned.contents)
        # ANN indexes (a cache over sealed vector segments): build the missing ones and rebuild
        # those that lost rows to a purge, then snapshot so a reopened store has them.
        if self._views.vectors.build_indexes():
            self.snapshot()
        self._ops.info("consolidate", now=when, events=len(events))
        return consolidation_report(when, events, seqs)

    @serialized
    def erase(self, memory_id: str | None = None, *, namespace: str | None = None,
              reason: str = "request") -> Erasure:
        """Erase a memory's content (``memory_id``) or every memory of ``namespace`` (exactly one
        of them), and every memory derived from an erased one (a merge copies text). Returns what
        it erased; ``reason`` is a short code (``gdpr:art17``), never prose.

        One ``memory.erased`` event per namespace and, in the same transaction, the removal of
        every text, vector and term set only erased memories reference (their own text and the
        caller inputs recorded for them), of their tags, refs and session as given, of the
        queries of recalls that returned one of them (a namespace erase: every query the
        namespace recorded) and of every snapshot; a fresh snapshot follows. The
        memories stay as skeletons with status ``erased`` and no text, in every view, past ones
        included; their events stay, so the chain verifies. Erasing what is already erased
        writes nothing; an unknown id or an empty namespace raises NotFoundError. The freed
        bytes stay in the file until :meth:`compact`. See :mod:`eventmem.write.erase`.
        """
        self._check_writable()
        if (memory_id is None) == (namespace is None):
            raise InvalidInputError("erase takes exactly one of memory_id= or namespace=")
        reason = checks.reason(reason)
        memories = self._views.state.memories
        if memory_id is not None:
            roots = [self._known(memory_id).memory_id]
        else:
            namespace = checks.namespace(namespace, self.config)
            roots = erase.namespace_roots(memories, namespace)
            if not roots:
                raise NotFoundError(f"no memory in namespace {namespace!r}")
        erased = erase.targets(memories, roots)
        if not erased:
            return Erasure(memory_ids=(), cascaded=(), contents_removed=0, seqs=())
        gone = set(erased)
        referenced = erase.referenced_contents(
            (event for _, event in self._log.memory_events(erased)), gone)
        if namespace is not None:  # its recall queries too, those that found nothing included
            referenced |= erase.namespace_queries(self._log.events_tagged(
                b"memory.recalled", self._views.seq), namespace)
        dropped = erase.contents_to_drop(memories, gone, referenced)
        shared = resolve.kept_evidence(self._views, gone)  # other conflicts' evidence
        dropped = [h for h in dropped if h not in shared]
        events = erase.erasure_events(memories, erased, at=self._now(), reason=reason,
                                        requested=memory_id)
        seqs = self._log.erase(events, drop_contents=dropped)
        self._texts.clear()  # (what was erased must not be read back from here)
        self._fold(list(events), seqs)
        if self._snapshot_seq != self._views.seq:  # the erase removed every snapshot
            self.snapshot()  # and the projections let go of the one they read (the erased rows)
        self._recall_cache.clear()  # cached answers are stale, and may quote what was erased
        self._ops.info("erase", memories=len(erased), contents=len(dropped), first_seq=seqs[0],
                       last_seq=seqs[-1])
        return Erasure(memory_ids=tuple(erased), cascaded=tuple(m for m in erased
                                                                if m not in set(roots)),
                       contents_removed=len(dropped), seqs=tuple(seqs))

    @serialized
    def compact(self) -> tuple[int, int]:
        """Rewrite the store file without its free pages (atomically replacing ``data.mdb``), so
        that the bytes an erase or a purge freed are gone from disk. Snapshots beyond
        ``config.snapshots_kept`` (a store written with a larger setting holds them until its
        next snapshot) are dropped first. Needs this engine to be the writer and no other
        process to have the store open (StoreLockedError otherwise). Returns the file size
        before and after."""
        self._check_writable()
        self._log.trim_snapshots(self.config.snapshots_kept)
        before, after = self._log.compact()
        self._ops.info("compact", before=before, after=after)
        return before, after

    @serialized
    def resolve(self, conflict_id: str, *, strategy: str = "use_new") -> RememberResult:
        """Settle an open conflict: ``keep_existing``, ``use_new``, ``merge`` (one memory
        carries both) or ``temporal`` (the later valid time wins). The loser is superseded, not
        deleted. Returns the memory that holds the answer."""
        self._check_writable()
        found = resolve.open_conflict(self._views, conflict_id, strategy)
        events, contents, winner = resolve.resolution_events(
            self._views, found, strategy, at=self._now(), head=self._log.head(),
            config=self.config, text_of=self._text_of, analyse=self._analyse)
        seqs = self._log.append(events, contents=contents)
        self._fold(events, seqs, contents)
        self._ops.info("resolve", conflict_id=conflict_id, strategy=strategy, winner=winner,
                       first_seq=seqs[0], last_seq=seqs[-1])
        action: Action = "merged" if strategy == "merge" else "superseded"
        return RememberResult(memory_id=winner, action=action, seq=seqs[0],
                              rule=getattr(events[-1], "rule", ""), conflict_id=conflict_id)

    def pin(self, memory_id: str) -> int:
        """Pin a memory: it is exempt from forgetting. Returns the seq (no event if pinned)."""
        return self._set_pin(memory_id, True)

    def unpin(self, memory_id: str) -> int:
        """Unpin a memory: it can be forgotten again. Returns the seq (no event if unpinned)."""
        return self._set_pin(memory_id, False)

    @serialized
    def _set_pin(self, memory_id: str, pinned: bool) -> int:
        self._check_writable()
        record = self._record(memory_id)
        if record.pinned == pinned:
            return record.updated_seq
        cls = MemoryPinned if pinned else MemoryUnpinned
        return self._append_one(cls(at=self._now(), namespace=record.namespace, actor="user",
                                    memory_id=memory_id),
                                "pin" if pinned else "unpin", memory_id=memory_id)

    def _record(self, memory_id: str) -> MemoryRecord:
        record = self._known(memory_id)
        if record.status in ("erased", "purged"):  # its content is gone: the memory is final
            raise InvalidInputError(
                f"memory {memory_id!r} is {record.status}; it can no longer change")
        return record

    def _known(self, memory_id: str) -> MemoryRecord:
        record = self._views.state.memories.get(memory_id) if isinstance(memory_id, str) else None
        if record is None:
            raise NotFoundError(f"no memory {memory_id!r} in this store")
        return record

    # -- reading that writes ------------------------------------------------------------------

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
        """Reader.recall, and the recall is recorded as one ``memory.recalled`` event (the access
        that reinforces the returned memories, and only those, and the trail of what the agent
        was given). A greeting or acknowledgement asks for nothing: no hits, and nothing
        recorded. The hot memories ``include_hot`` adds are not recorded as accessed: they
        answer no query, and counting them would keep them hot for ever."""
        self._ensure_current()
        hits, _, plan = self._search(query, namespace=namespace, k=k, valid_at=valid_at,
                                     include_hidden=include_hidden, profile=profile,
                                     min_score=min_score, filters=filters, session=session,
                                     include_hot=include_hot, box_context=box_context)
        accessed = [h for h in hits if not h.signals.get("hot")]
        if self.config.record_recalls and not self.readonly and not plan.chitchat:
            now = self._now()
            memories = self._views.state.memories
            # The query is caller text: stored as content, which an erasure can remove; the
            # event names it by hash.
            document = _QUERY.encode(RecalledQuery(
                namespace=namespace, query=checks.query(query, self.config))).decode()
            query_hash = content_hash(document)
            event = MemoryRecalled(
                at=now, namespace=namespace, actor="agent", query="", query_hash=query_hash,
                k=k, memory_ids=tuple(h.memory_id for h in accessed),
                scores=tuple(h.score for h in accessed),
                valid_at=None if valid_at is None else to_micros(valid_at),
                stabilities=tuple(stability_after_access(memories[h.memory_id], now,
                                                         self.config.decay) for h in accessed),
                # Why it searched as it did, when a classifier other than the rules said so.
                intent="" if self.intent_classifier is None else plan.intent,
                intent_judge="" if self.intent_classifier is None
                else self.intent_classifier.judge_id)
            # The co-activation it decides goes in the same transaction: one commit per recall.
            after = plasticity.after_access(
                self._views, event.memory_ids, now, self.config.plasticity, self.config.decay,
                recall=True, left=as_accessed(memories, event.memory_ids, now, event.stabilities))
            seqs = self._log.append([event, *after], contents={query_hash: Content(document)})
            self._fold([event, *after], seqs)
            # never the query: it is text
            self._ops.info("recall", seq=seqs[0], hits=len(accessed), plasticity=len(after))
        return hits

    # -- the past, and checks -----------------------------------------------------------------

    @serialized
    def as_of(self, *, at: datetime | None = None, seq: int | None = None) -> View:
        """A read-only view of the store as it stood at time ``at`` or just after ``seq``."""
        self._ensure_current()
        return view_at(self._log, self._embedder, self.config, head=self._views.seq, at=at,
                       seq=seq)

    @serialized
    def replay(self) -> View:
        """A read-only view of the store at this engine's seq, folded from the log's first event
        without any snapshot: what an open without a usable snapshot computes. It answers as
        ``as_of(seq=self.seq)`` does (which may start from a snapshot). For operators: time a
        full replay, or read the store past a snapshot they distrust. Appends nothing."""
        self._ensure_current()
        return view_at(self._log, self._embedder, self.config, head=self._views.seq, at=None,
                       seq=self._views.seq, snapshots=False)

    @serialized
    def verify(self, *, expected_head: Head | None = None) -> VerifyReport:
        """Check the hash chain, the blobs, what is derived from each text (vector, terms,
        extraction) against a re-derivation, the head, and live projections against a
        rebuild."""
        self._ensure_current()
        report = verify(self._log, live=self._views, expected_head=checks.head(expected_head),
                        embedder=self._embedder)
        self._ops.info("verify", ok=report.ok, findings=len(report.findings))
        return report

    @serialized
    def audit(self, *, until: int | None = None, tolerance: float = TOLERANCE,
              workers: int | None = None) -> AuditReport:
        """Re-derive every recorded decision (write gate, resolutions, consolidations, the
        stabilities of accesses, feedback) on the state as it was, and report each one that
        comes out differently: another action, or a score off by more than ``tolerance``.
        Read-only: appends nothing. See :mod:`replay.audit`.

        ``workers``: processes that share the log's ranges (0: every core; None: every core
        for a log of ``replay.audit.SPREAD_FROM`` events or more, else one). The report is the
        same whatever the number."""
        self._ensure_current()
        report = audit(self._log, config=self.config, embedder=self._embedder,
                       until=checks.optional_seq(until, "until"),
                       tolerance=checks.tolerance(tolerance), workers=workers)
        self._ops.info("audit", ok=report.ok, findings=len(report.findings),
                       checked=report.decisions_checked, unverifiable=report.unverifiable)
        return report

    @serialized
    def head(self) -> Head:
        """The log's head: its last seq and the hash that chains every event up to it."""
        self._ensure_current()
        return self._log.head()

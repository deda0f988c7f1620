"""The append-only, hash-chained event log in one LMDB environment.

Sub-databases::

    log        seq (8-byte big-endian)  -> prev_hash (32 bytes) + event (msgpack; in a store
                                           of format 3 packed: eventmem.codec.pack)
    content, blobs, vectors             texts, vectors and terms by hash (eventmem.storage.content)
    by_memory  memory id                -> seq (dupsort, so a memory's seqs come back in order)
    snapshots  seq (8-byte big-endian)  -> SNAPSHOT_FILE_FRAME + the log's chain hash at that seq
                                           + the name of the file holding the serialized
                                           projection state (a cache; eventmem.storage.snapfiles)
    meta       b"format", b"head" (seq + hash), b"embedder", b"slots" (next slot),
               b"erasures" (the seqs of the erasure events, 8 bytes each)

A record's hash is blake2b-256 over its seq and its value, and each value starts with the previous
record's hash, so editing, dropping or reordering any record breaks the chain. The head (seq and
hash of the last record) is written in the same transaction as every append, so a truncated tail is
caught too. One write transaction per call: a batch is all-or-nothing and, with ``sync`` on (the
default), durable when the call returns.

:class:`EventLog` holds an :class:`eventmem.storage.environment.Environment`, the LMDB environment
under the log: one writer and any number of readers, transactions, growth, a full disk,
compaction.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path
from typing import NamedTuple, cast

import lmdb
import msgspec

from eventmem import codec
from eventmem.errors import (
    CorruptRecordError,
    IncompatibleStoreError,
    ReadOnlyError,
    StoreLockedError,
)
from eventmem.events import AnyEvent, Event, memory_ids_of
from eventmem.storage import snapfiles
from eventmem.storage.content import ContentTables
from eventmem.storage.envelope import Content, Envelope
from eventmem.storage.environment import DEFAULT_MAP_SIZE, Environment

__all__ = [
    "FORMAT_VERSION",
    "GENESIS",
    "HASH_SIZE",
    "READABLE_FORMATS",
    "EventLog",
    "Head",
    "Pinned",
    "RawRecord",
    "Snapshot",
    "record_hash",
    "seq_key",
]

# The format a new store is made in. 3: records are packed (eventmem.codec.pack) and vector rows
# compressed (eventmem.storage.content), together a third of a short memory's bytes; a store of
# format 2 keeps plain records and raw float32 rows, and this version still reads and writes it
# as such (an older eventmem refuses format 3 rather than misread it).
FORMAT_VERSION = b"3"
READABLE_FORMATS = (b"2", FORMAT_VERSION)
GENESIS = bytes(32)  # the "previous hash" of the first record
HASH_SIZE = 32
_READ_CHUNK = 1024  # records decoded and joined with their content at a time
# A stored snapshot starts with this, then the chain hash of the record it was taken at: what ties
# it to this log (another store's snapshot at the same seq names another hash). A value without
# the frame is an older eventmem's snapshot, tied to nothing.
SNAPSHOT_FRAME = b"emsnap1\x00"
# Since projection version 15 the snapshot is a file (eventmem.storage.snapfiles): the value is
# this frame, the chain hash, and the file's name.
SNAPSHOT_FILE_FRAME = b"emsnap2\x00"


def _file_of(value: bytes) -> str | None:
    """The snapshot file a ``snapshots`` value names (None: the snapshot is in the value)."""
    if not value.startswith(SNAPSHOT_FILE_FRAME):
        return None
    try:
        return value[len(SNAPSHOT_FILE_FRAME) + HASH_SIZE:].decode()
    except UnicodeDecodeError:
        return None


def seq_key(seq: int) -> bytes:
    """A seq's key in the log and snapshot tables: 8 bytes big-endian, so keys sort by seq."""
    return seq.to_bytes(8, "big")


def record_hash(seq: int, value: bytes | memoryview) -> bytes:
    """A record's chain hash: blake2b-256 over its seq key and its stored value (the previous
    record's hash, then the encoded event)."""
    h = hashlib.blake2b(seq_key(seq), digest_size=HASH_SIZE)
    h.update(value)
    return h.digest()


class Head(NamedTuple):
    """The seq and hash of the log's last record: what the next record chains from."""

    seq: int  # 0 for an empty log
    hash: bytes  # GENESIS for an empty log


class Pinned(NamedTuple):
    """The log's ends, its record of erasures and its blobs as one read transaction sees them."""

    head: Head
    last_seq: int  # the log's last key (0: empty); the head's seq unless damaged
    erasures: tuple[int, ...]
    blobs: Iterator[tuple[str, bytes]]  # (content hash, text bytes), valid inside pinned()


class Snapshot(NamedTuple):
    """A stored snapshot: its seq, the projections' bytes (a read-only map of its file; empty
    when the file is missing), and the chain hash of the log record it was taken at (None for
    an untied snapshot of an older eventmem)."""

    seq: int
    data: bytes | memoryview
    chain_hash: bytes | None


class RawRecord(NamedTuple):
    """One log record as stored, undecoded: its seq, the hash it chains from, and the event."""

    seq: int
    prev_hash: bytes
    payload: bytes  # the encoded event

    @property
    def hash(self) -> bytes:
        """This record's chain hash (:func:`record_hash`)."""
        return record_hash(self.seq, self.prev_hash + self.payload)


class EventLog:
    """The store on disk. Use :meth:`open`; close with :meth:`close`."""

    def __init__(self, environment: Environment) -> None:
        self.environment = environment
        # The store's format (READABLE_FORMATS), known once _check_format read it.
        self.format = FORMAT_VERSION
        self._open_dbs()
        # The head as this writer last left it (None: a reader's log). Every append checks the
        # log still ends there, inside its write transaction: should a second writer ever get
        # past the locks, its commits are found and the append refused, never chained onto a
        # log this writer's projections know nothing of.
        self._written: Head | None = None

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        sync: bool = True,
        map_size: int = DEFAULT_MAP_SIZE,
    ) -> EventLog:
        """Open (creating, when writable) the store at ``path``.

        A writer takes the store's writer lock; a second writer fails with StoreLockedError.
        """
        def build(environment: Environment) -> EventLog:
            log = cls(environment)
            log._check_format()
            if not log.readonly:
                log._written = log.head()
                snapfiles.sweep(log.path, log._snapshot_files())
            return log

        return Environment.open(path, readonly=readonly, sync=sync, map_size=map_size,
                                build=build)

    @property
    def path(self) -> Path:
        """The store's directory."""
        return self.environment.path

    @property
    def readonly(self) -> bool:
        """Whether the store was opened read-only."""
        return self.environment.readonly

    def close(self) -> None:
        """Close the store and release its writer lock."""
        self.environment.close()

    @property
    def packed(self) -> bool:
        """Whether records and vector rows are stored packed: every format since 2 (module doc)."""
        return self.format != b"2"

    def compact(self) -> tuple[int, int]:
        """Rewrite the file with only its live data (see :meth:`Environment.compact`)."""
        return self.environment.compact(reopened=self._open_dbs)

    def _open_dbs(self) -> None:
        env, readonly = self.environment.env, self.readonly
        self._log = env.open_db(b"log", create=not readonly)
        self.content = ContentTables(env, readonly=readonly, packed=self.packed)
        self._by_memory = env.open_db(b"by_memory", dupsort=True, create=not readonly)
        self._snapshots = env.open_db(b"snapshots", create=not readonly)
        self._meta = env.open_db(b"meta", create=not readonly)

    def _check_format(self) -> None:
        with self.environment.env.begin(db=self._meta) as txn:
            found = txn.get(b"format")
        if found is None and not self.readonly:
            self.environment.write(lambda txn: txn.put(b"format", FORMAT_VERSION, db=self._meta))
        elif found is not None and found not in READABLE_FORMATS:
            raise IncompatibleStoreError(
                f"store format {found.decode(errors='replace')} is not one of "
                f"{', '.join(f.decode() for f in READABLE_FORMATS)}; "
                "open it with the eventmem version that wrote it"
            )
        # A read-only open of a store no writer has opened yet (no format) reads nothing packed.
        self.format = FORMAT_VERSION if found is None else bytes(found)
        self.content.packed = self.packed

    # -- writing ------------------------------------------------------------------------------

    def append(
        self,
        events: Sequence[Event],
        *,
        contents: Mapping[str, Content] | None = None,
        meta: Mapping[bytes, bytes] | None = None,
        drop_contents: Sequence[str] = (),
    ) -> list[int]:
        """Append ``events``, with the content they reference (content hash -> Content; content
        the store already holds is kept as it is), in one transaction. ``drop_contents``: content
        hashes whose text, vector and terms the events remove (a purge), in the same
        transaction, so the log never refers to removed bytes without saying so.

        Returns the seqs assigned, gapless after the current head.
        """
        encoded = [codec.encode(event) for event in events]
        seqs, self._written = self.environment.write(
            lambda txn: self._append_in(txn, events, encoded, contents, meta, drop_contents))
        return seqs

    def _append_in(
        self,
        txn: lmdb.Transaction,
        events: Sequence[Event],
        encoded: Sequence[bytes],
        contents: Mapping[str, Content] | None,
        meta: Mapping[bytes, bytes] | None,
        drop_contents: Sequence[str],
    ) -> tuple[list[int], Head]:
        """The body of :meth:`append`, inside the caller's write transaction; returns the seqs
        and the new head."""
        head = self._head(txn)
        if head != self._written:
            raise StoreLockedError(
                f"the log of {self.path} moved under this writer (head {head.seq}, not the "
                f"{self._written.seq if self._written else 0} it last wrote): another process "
                "wrote to it (its writer.lock deleted?). Nothing was written; close this store "
                "and open it again")
        if contents:
            self.content.put(txn, contents, self._meta)
        for content_hash in drop_contents:
            self.content.drop(txn, content_hash)
        for key, value in (meta or {}).items():
            txn.put(key, value, db=self._meta)
        seq, prev = head.seq, head.hash
        seqs = []
        packed = self.packed
        for event, payload in zip(events, encoded, strict=True):
            seq += 1
            value = prev + (codec.pack(payload) if packed else payload)
            txn.put(seq_key(seq), value, db=self._log, append=True)
            for mid in memory_ids_of(event):
                txn.put(mid.encode(), seq_key(seq), db=self._by_memory, dupdata=True)
            prev = record_hash(seq, value)
            seqs.append(seq)
        txn.put(b"head", seq_key(seq) + prev, db=self._meta)
        return seqs, Head(seq, prev)

    # -- erasure (ARCHITECTURE section 8) -----------------------------------------------------

    def erase(self, events: Sequence[Event], *, drop_contents: Sequence[str]) -> list[int]:
        """Append erasure events and, in the same transaction, remove the text, vector and terms
        of ``drop_contents`` and every snapshot (snapshots hold vectors and terms of the erased
        content; the engine takes a fresh one after folding). The events' seqs are added to
        meta ``erasures``, so a view of the past finds the later erasures without a log scan.

        The freed LMDB pages still hold the erased bytes until :meth:`compact`.
        """
        encoded = [codec.encode(event) for event in events]

        def body(txn: lmdb.Transaction) -> tuple[list[int], Head, list[str]]:
            dropped = self._keep_snapshots(txn, 0)
            seqs, head = self._append_in(txn, events, encoded, None, None, drop_contents)
            known = txn.get(b"erasures", db=self._meta) or b""
            txn.put(b"erasures", bytes(known) + b"".join(map(seq_key, seqs)), db=self._meta)
            return seqs, head, dropped

        seqs, self._written, dropped = self.environment.write(body)
        snapfiles.remove(self.path, dropped)
        return seqs

    def erasure_seqs(self) -> list[int]:
        """The seqs of every erasure event, in order."""
        return list(_seqs(self.get_meta(b"erasures")))

    def memory_events(self, memory_ids: Iterable[str]) -> list[tuple[int, Event]]:
        """Every event that touched any of ``memory_ids`` (by the by-memory index), in seq order,
        each once."""
        with self.environment.read_txn() as txn:
            cursor = txn.cursor(db=self._by_memory)
            seqs: set[bytes] = set()
            for mid in memory_ids:
                if cursor.set_key(mid.encode()):
                    seqs.update(bytes(v) for v in cursor.iternext_dup())
            out = []
            for key in sorted(seqs):
                value = txn.get(key, db=self._log)
                seq = int.from_bytes(key, "big")
                if value is None:
                    raise CorruptRecordError("record missing from the log", seq=seq)
                out.append((seq, codec.decode(value[HASH_SIZE:], seq=seq)))
            return out

    def set_meta(self, key: bytes, value: bytes) -> None:
        """Write one meta value, in a write transaction of its own."""
        self.environment.write(lambda txn: txn.put(key, value, db=self._meta))

    # -- reading ------------------------------------------------------------------------------

    def _head(self, txn: lmdb.Transaction) -> Head:
        raw = txn.get(b"head", db=self._meta)
        if raw is None:
            return Head(0, GENESIS)
        return Head(int.from_bytes(raw[:8], "big"), bytes(raw[8:]))

    def head(self) -> Head:
        """The seq and hash of the last record (``Head(0, GENESIS)`` when empty)."""
        with self.environment.read_txn() as txn:
            return self._head(txn)

    @contextmanager
    def pinned(self) -> Iterator[Pinned]:
        """The head, the log's last seq, the erasures and the blobs, all read in one
        transaction: a consistent prefix to check while another process appends (``verify``).
        Its ``blobs`` are read only inside the ``with`` block."""
        with self.environment.read_txn() as txn:
            cursor = txn.cursor(db=self._log)
            last = int.from_bytes(cursor.key(), "big") if cursor.last() else 0
            erasures = tuple(_seqs(txn.get(b"erasures", db=self._meta)))
            yield Pinned(self._head(txn), last, erasures, self.content.iter_blobs(txn))

    def get_meta(self, key: bytes) -> bytes | None:
        """One meta value, or None when it was never set."""
        with self.environment.read_txn() as txn:
            value = txn.get(key, db=self._meta)
            return None if value is None else bytes(value)

    def iter_raw(self, start: int = 1, stop: int | None = None) -> Iterator[RawRecord]:
        """Records with ``start <= seq <= stop`` (``stop`` None: to the log's end), undecoded.

        Read a chunk at a time, each in its own read transaction, so none stays open while the
        caller works between records: growing the map (this process's writer, or a reader
        adopting another process's growth) ends every transaction the process has open. Records
        never change once written, so the chunks join into what one transaction would read.
        """
        while True:
            chunk: list[RawRecord] = []
            error = None
            with self.environment.read_txn() as txn:
                try:
                    chunk.extend(islice(self._iter_raw(txn, start, stop), _READ_CHUNK))
                except CorruptRecordError as exc:  # after the good records before it
                    error = exc
            yield from chunk
            if error is not None:
                raise error
            if len(chunk) < _READ_CHUNK:
                return
            start = chunk[-1].seq + 1

    def _iter_raw(self, txn: lmdb.Transaction, start: int, stop: int | None) -> Iterator[RawRecord]:
        cursor = txn.cursor(db=self._log)
        if not cursor.set_range(seq_key(start)):
            return
        for key, value in cursor:
            seq = int.from_bytes(key, "big")
            if stop is not None and seq > stop:
                return
            if len(value) < HASH_SIZE:
                raise CorruptRecordError("record shorter than its hash prefix", seq=seq)
            yield RawRecord(seq, bytes(value[:HASH_SIZE]), bytes(value[HASH_SIZE:]))

    def event(self, seq: int) -> Event:
        """The event at ``seq``; CorruptRecordError when the log has no record there (an index
        or head of a damaged store can name one)."""
        for _, event in self.read(seq, seq):
            return event
        raise CorruptRecordError("record missing from the log", seq=seq)

    def read(self, start: int = 1, stop: int | None = None) -> Iterator[tuple[int, Event]]:
        """Decoded events with ``start <= seq <= stop``."""
        for raw in self.iter_raw(start, stop):
            yield raw.seq, codec.decode(raw.payload, seq=raw.seq)

    def envelopes(
        self, start: int = 1, stop: int | None = None, *, with_text: bool = False
    ) -> Iterator[Envelope]:
        """Events ready to fold: content events come with their vector and terms joined (None
        where erased or never stored); their text too when ``with_text``."""
        for chunk in self.envelope_chunks(start, stop, with_text=with_text):
            yield from chunk

    def envelope_chunks(
        self, start: int = 1, stop: int | None = None, *, with_text: bool = False
    ) -> Iterator[list[Envelope]]:
        """:meth:`envelopes` in lists of consecutive records, the way a rebuild folds them.

        Records are read in chunks, and each chunk's content is looked up with one multi-key
        read per sub-database: this is the rebuild's hot loop.
        """
        # One read transaction per chunk, none open between them (see iter_raw).
        if stop is not None and stop < start:
            return
        table, table_txn = None, None
        while True:
            with self.environment.read_txn() as txn:
                if table_txn is None:
                    # Reading most of the log (a rebuild): the content table in one scan, not
                    # by key.
                    head = self._head(txn).seq
                    span = (head if stop is None else min(stop, head)) - start + 1
                    table_txn = txn.id()
                    if span >= self.content.count(txn) // 2:
                        table = self.content.records(txn)
                elif table is not None and txn.id() != table_txn:
                    table = None  # a write since the scan: look content up afresh
                cursor = txn.cursor(db=self._log)
                if not cursor.set_range(seq_key(start)):
                    return
                # (a plain transaction: keys and values are bytes, not the memoryviews the
                # stubs allow)
                records = cast(Iterator[tuple[bytes, bytes]], cursor.iternext())
                chunk = list(islice(records, _READ_CHUNK))
                last = None if stop is None else seq_key(stop)
                done = len(chunk) < _READ_CHUNK
                if last is not None and chunk and chunk[-1][0] >= last:
                    chunk = [record for record in chunk if record[0] <= last]
                    done = True
                envelopes = (self.content.join(txn, _decode_chunk(chunk), with_text, table)
                             if chunk else None)
            if envelopes:
                yield envelopes
            if done or not chunk:
                return
            start = int.from_bytes(chunk[-1][0], "big") + 1

    def read_time_range(self, start_at: int, end_at: int) -> Iterator[tuple[int, Event]]:
        """Events with ``start_at <= at < end_at`` (microseconds). Event times are monotone."""
        first = self.seq_at_time(start_at - 1) + 1
        for seq, event in self.read(first):
            if event.at >= end_at:
                return
            yield seq, event

    def seq_at_time(self, at: int) -> int:
        """The last seq whose event time is ``<= at`` (0 if none): a binary search over the log,
        valid because the engine keeps transaction times monotone."""
        lo, hi = 0, self.head().seq
        with self.environment.read_txn() as txn:
            while lo < hi:
                mid = (lo + hi + 1) // 2
                value = txn.get(seq_key(mid), db=self._log)
                if value is None:
                    raise CorruptRecordError("record missing from the log", seq=mid)
                if codec.decode(value[HASH_SIZE:], seq=mid).at <= at:
                    lo = mid
                else:
                    hi = mid - 1
        return lo

    def seqs_for_memory(self, memory_id: str) -> list[int]:
        """Every seq that touched ``memory_id``, in order."""
        with self.environment.read_txn() as txn:
            cursor = txn.cursor(db=self._by_memory)
            if not cursor.set_key(memory_id.encode()):
                return []
            return [int.from_bytes(v, "big") for v in cursor.iternext_dup()]

    def blob(self, content_hash: str) -> str | None:
        """The text stored for ``content_hash`` (None when absent or erased)."""
        with self.environment.read_txn() as txn:
            return self.content.blob(txn, content_hash)

    def blobs(self, content_hashes: Iterable[str]) -> list[str | None]:
        """:meth:`blob` of each hash, in one read transaction (a recall reads hundreds)."""
        with self.environment.read_txn() as txn:
            return [self.content.blob(txn, h) for h in content_hashes]

    def iter_blobs(self) -> Iterator[tuple[str, bytes]]:
        """(content hash, stored text bytes) for every text in the store."""
        with self.environment.read_txn() as txn:
            yield from self.content.iter_blobs(txn)

    def events_tagged(self, tag: bytes, stop: int) -> Iterator[Event]:
        """The events up to ``stop`` whose record holds ``tag`` (an event tag such as
        ``b"memory.recalled"``): a whole-log scan that decodes only those records."""
        for raw in self.iter_raw(1, stop):
            # The plain bytes: a packed record's tag is deflated out of sight.
            payload = codec.unpack(raw.payload, seq=raw.seq)
            if tag in payload:
                yield codec.decode(payload, seq=raw.seq)

    def iter_derived(self) -> Iterator[tuple[str, bytes, Content | None]]:
        """(content hash, text bytes, its stored vector, terms and extraction) for every content
        (see :meth:`eventmem.storage.content.ContentTables.iter_derived`)."""
        with self.environment.read_txn() as txn:
            yield from self.content.iter_derived(txn)

    def contents(self, content_hashes: Sequence[str]) -> list[Content | None]:
        """What the store holds for each content hash (None where it holds nothing)."""
        with self.environment.read_txn() as txn:
            return [self.content.get(txn, h) for h in content_hashes]

    def vector_rows(self, keys: bytes) -> bytearray | None:
        """The stored vector rows of these contents (``keys``: their 16-byte content keys,
        joined), joined in order; None when any is not stored (see
        :meth:`eventmem.storage.content.ContentTables.vector_rows`)."""
        with self.environment.read_txn() as txn:
            return self.content.vector_rows(txn, keys)

    def terms(self, content_hashes: Sequence[str]) -> list[bytes | None]:
        """The stored BM25 terms of each content hash (:meth:`contents`' ``terms``, read alone:
        a box's topic reads them for every member at each write of its session)."""
        with self.environment.read_txn() as txn:
            return [self.content.terms(txn, h) for h in content_hashes]

    def embedder_id(self) -> str | None:
        """The id of the store's embedder, recorded by its first writer (None before)."""
        raw = self.get_meta(b"embedder")
        return None if raw is None else raw.decode()

    # -- snapshots (a cache of projection state; never the source of truth) -------------------

    def put_snapshot(self, seq: int, data: bytes | Iterable[bytes | memoryview], *,
                     keep: int = 1) -> None:
        """Store a snapshot taken at ``seq`` (its bytes, or its parts in order), tied to the
        chain hash of the log's record there (read in the same transaction), and drop all but
        the newest ``keep`` (at least 1).

        The bytes go to a file (:mod:`eventmem.storage.snapfiles`), written and synced before
        the one transaction that names it and drops the old entries: a crash before it commits
        leaves the snapshots as they were, so the store always holds a whole one (or none). The
        files of the ones dropped are removed after it commits."""
        if keep < 1:
            raise ValueError("keep at least one snapshot: the one just stored")
        self.environment.check_open()
        if self.readonly:
            raise ReadOnlyError(f"store at {self.path} is open read-only")
        name = snapfiles.write(self.path, seq, [data] if isinstance(data, bytes) else data)

        def body(txn: lmdb.Transaction) -> list[str]:
            tie = self._hash_at(txn, seq)
            txn.put(seq_key(seq), SNAPSHOT_FILE_FRAME + tie + name.encode(), db=self._snapshots)
            return [old for old in self._keep_snapshots(txn, keep) if old != name]

        try:
            dropped = self.environment.write(body)
        except BaseException:
            if name not in self._snapshot_files():
                snapfiles.remove(self.path, [name])
            raise
        snapfiles.remove(self.path, dropped)

    def trim_snapshots(self, keep: int) -> int:
        """Drop all but the newest ``keep`` (at least 1) snapshots, in one transaction (what a
        store written with a larger ``keep`` holds until its next snapshot); returns how many
        were dropped."""
        if keep < 1:
            raise ValueError("keep at least one snapshot: the one an open starts from")
        before = len(self.snapshot_seqs())
        dropped = self.environment.write(lambda txn: self._keep_snapshots(txn, keep))
        snapfiles.remove(self.path, dropped)
        return before - len(self.snapshot_seqs())

    def _keep_snapshots(self, txn: lmdb.Transaction, keep: int) -> list[str]:
        """Drop all but the newest ``keep`` entries; returns the names of their files (removed
        by the caller once the transaction commits)."""
        cursor = txn.cursor(db=self._snapshots)
        entries = [(bytes(k), bytes(v)) for k, v in cursor]
        dropped = entries[:-keep] if keep else entries
        for key, _ in dropped:
            txn.delete(key, db=self._snapshots)
        return [name for _, value in dropped if (name := _file_of(value)) is not None]

    def _snapshot_files(self) -> list[str]:
        """The names of the snapshot files the table names."""
        with self.environment.read_txn() as txn:
            return [name for _, value in txn.cursor(db=self._snapshots)
                    if (name := _file_of(bytes(value))) is not None]

    def latest_snapshot(self, max_seq: int | None = None) -> Snapshot | None:
        """The newest snapshot taken at or before ``max_seq``. Whether it belongs to this log
        is the caller's to check: its ``chain_hash`` against :meth:`chain_hash`."""
        with self.environment.read_txn() as txn:
            cursor = txn.cursor(db=self._snapshots)
            if max_seq is None:
                found = cursor.last()
            elif cursor.set_range(seq_key(max_seq + 1)):
                found = cursor.prev()
            else:
                found = cursor.last()
            if not found:
                return None
            seq, value = int.from_bytes(cursor.key(), "big"), bytes(cursor.value())
        framed = len(SNAPSHOT_FRAME) + HASH_SIZE
        name = _file_of(value)
        if name is not None:
            mapped = snapfiles.open_map(self.path, name)
            return Snapshot(seq, b"" if mapped is None else mapped,
                            value[len(SNAPSHOT_FILE_FRAME):framed])
        if value.startswith(SNAPSHOT_FRAME) and len(value) >= framed:
            return Snapshot(seq, value[framed:], value[len(SNAPSHOT_FRAME):framed])
        return Snapshot(seq, value, None)

    def chain_hash(self, seq: int) -> bytes:
        """The chain hash of the record at ``seq`` (GENESIS for 0): the head hash the log had
        when ``seq`` was its last record. Raises CorruptRecordError when the record is missing."""
        with self.environment.read_txn() as txn:
            return self._hash_at(txn, seq)

    def _hash_at(self, txn: lmdb.Transaction, seq: int) -> bytes:
        if seq == 0:
            return GENESIS
        value = txn.get(seq_key(seq), db=self._log)
        if value is None:
            raise CorruptRecordError("record missing from the log", seq=seq)
        return record_hash(seq, value)

    def snapshot_seqs(self) -> list[int]:
        """The seqs the stored snapshots were taken at, oldest first."""
        with self.environment.read_txn() as txn:
            cursor = txn.cursor(db=self._snapshots)
            return [int.from_bytes(k, "big") for k in cursor.iternext(values=False)]

    def stats(self) -> dict[str, int]:
        """Entry counts of the log, content and snapshot tables, and the map size in bytes."""
        with self.environment.read_txn() as txn:
            return {
                "events": txn.stat(self._log)["entries"],
                **self.content.stats(txn),
                "snapshots": txn.stat(self._snapshots)["entries"],
                "map_size": self.environment.env.info()["map_size"],
            }


_event_decode = msgspec.msgpack.Decoder(AnyEvent).decode  # codec's typed decoder, without its frame


def _seqs(raw: bytes | memoryview | None) -> Iterator[int]:
    """The seqs packed in a meta value (8 bytes each, big-endian)."""
    raw = bytes(raw or b"")
    return (int.from_bytes(raw[i:i + 8], "big") for i in range(0, len(raw), 8))


def _decode_chunk(records: list[tuple[bytes, bytes]]) -> list[tuple[int, Event]]:
    """(seq, event) of raw log records. The common case decodes in one comprehension; a record
    that does not decode as a current event goes through :func:`codec.decode` (upcasters, and
    the error naming its seq)."""
    seqs = [int.from_bytes(key, "big") for key, _ in records]
    unpack = codec.unpack
    try:
        events = [_event_decode(unpack(memoryview(value)[HASH_SIZE:])) for _, value in records]
    except (msgspec.DecodeError, UnicodeDecodeError, CorruptRecordError):
        events = [codec.decode(memoryview(value)[HASH_SIZE:], seq=seq)
                  for seq, (_, value) in zip(seqs, records, strict=True)]
    return list(zip(seqs, events, strict=True))

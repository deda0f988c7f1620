"""The append-only, hash-chained event log in one LMDB environment.

Sub-databases::

    log        seq (8-byte big-endian)  -> prev_hash (32 bytes) + event (msgpack)
    content, blobs, vectors             texts, vectors and terms by hash (eventmem.content)
    by_memory  memory id                -> seq (dupsort, so a memory's seqs come back in order)
    snapshots  seq (8-byte big-endian)  -> serialized projection state (a cache)
    meta       b"format", b"head" (seq + hash), b"embedder", b"slots" (next slot),
               b"erasures" (the seqs of the erasure events, 8 bytes each)

A record's hash is blake2b-256 over its seq and its value, and each value starts with the previous
record's hash, so editing, dropping or reordering any record breaks the chain. The head (seq and
hash of the last record) is written in the same transaction as every append, so a truncated tail is
caught too. One write transaction per call: a batch is all-or-nothing and, with ``sync`` on (the
default), durable when the call returns.

One process writes (an exclusive ``flock`` on ``writer.lock``); any number of processes read with
plain LMDB read transactions and can catch up to the head at any time.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import islice
from pathlib import Path
from typing import NamedTuple, TypeVar, cast

import lmdb
import msgspec

from eventmem import codec
from eventmem.content import Content, ContentTables
from eventmem.envelope import Envelope
from eventmem.errors import (
    ClosedError,
    CorruptRecordError,
    IncompatibleStoreError,
    ReadOnlyError,
    StorageFullError,
    StoreError,
    StoreLockedError,
)
from eventmem.events import AnyEvent, Event, memory_ids_of

T = TypeVar("T")

FORMAT_VERSION = b"2"
GENESIS = bytes(32)  # the "previous hash" of the first record
HASH_SIZE = 32
_READ_CHUNK = 1024  # records decoded and joined with their content at a time
DEFAULT_MAP_SIZE = 1 << 30  # sparse on Linux; grows by doubling when full
COMPACT_TMP = "data.mdb.compact"  # compact() writes the copy here, then renames it over data.mdb


def seq_key(seq: int) -> bytes:
    return seq.to_bytes(8, "big")


def record_hash(seq: int, value: bytes | memoryview) -> bytes:
    h = hashlib.blake2b(seq_key(seq), digest_size=HASH_SIZE)
    h.update(value)
    return h.digest()


class Head(NamedTuple):
    seq: int  # 0 for an empty log
    hash: bytes  # GENESIS for an empty log


class RawRecord(NamedTuple):
    seq: int
    prev_hash: bytes
    payload: bytes  # the encoded event

    @property
    def hash(self) -> bytes:
        return record_hash(self.seq, self.prev_hash + self.payload)


class EventLog:
    """The store on disk. Use :meth:`open`; close with :meth:`close`."""

    def __init__(self, path: Path, env: lmdb.Environment, *, readonly: bool, lock_fd: int | None):
        self.path = path
        self.readonly = readonly
        self._env = env
        self._lock_fd = lock_fd
        self._closed = False
        self._open_dbs()

    def _open_dbs(self) -> None:
        env, readonly = self._env, self.readonly
        self._log = env.open_db(b"log", create=not readonly)
        self.content = ContentTables(env, readonly=readonly)
        self._by_memory = env.open_db(b"by_memory", dupsort=True, create=not readonly)
        self._snapshots = env.open_db(b"snapshots", create=not readonly)
        self._meta = env.open_db(b"meta", create=not readonly)

    # -- opening and closing ------------------------------------------------------------------

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
        root = Path(path)
        lock_fd = None
        if readonly:
            if not (root / "data.mdb").exists():
                raise StoreError(f"no store at {root}: open it writable once to create it")
        else:
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(root, 0o700)  # owner-only even when the directory already existed
            lock_fd = os.open(root / "writer.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(lock_fd)
                raise StoreLockedError(
                    f"another process is writing to {root}; open it with readonly=True to read"
                ) from None
            (root / COMPACT_TMP).unlink(missing_ok=True)  # a compaction that died before its rename
        try:
            env = lmdb.open(
                str(root),
                map_size=map_size,
                max_dbs=8,
                readonly=readonly,
                sync=sync,
                mode=0o600,
                max_readers=256,
                # py-lmdb would otherwise refuse a read-only open while the map is larger than
                # map_size; 0 adopts the size the writer left.
            )
            if readonly:
                env.set_mapsize(0)
            # Free the reader slots of processes that died inside a read transaction: a stale
            # slot pins old pages (the file only grows) and the table has max_readers places.
            env.reader_check()
            log = cls(root, env, readonly=readonly, lock_fd=lock_fd)
            log._check_format()
        except lmdb.Error as exc:
            if lock_fd is not None:
                os.close(lock_fd)
            raise StoreError(f"cannot open store at {root}: {exc}") from exc
        except BaseException:
            if lock_fd is not None:
                os.close(lock_fd)
            raise
        return log

    def _check_format(self) -> None:
        with self._env.begin(db=self._meta) as txn:
            found = txn.get(b"format")
        if found is None and not self.readonly:
            self._write(lambda txn: txn.put(b"format", FORMAT_VERSION, db=self._meta))
        elif found is not None and found != FORMAT_VERSION:
            raise IncompatibleStoreError(
                f"store format {found.decode()} is not {FORMAT_VERSION.decode()}; "
                "open it with the eventmem version that wrote it"
            )

    def close(self) -> None:
        self._closed = True
        self._env.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- writing ------------------------------------------------------------------------------

    def _write(self, body: Callable[[lmdb.Transaction], T]) -> T:
        """Run ``body(txn)`` in one write transaction; grow the map and retry when it is full.

        Any failure aborts the transaction, so the store is exactly as before the call.
        """
        self._check_open()
        if self.readonly:
            raise ReadOnlyError(f"store at {self.path} is open read-only")
        while True:
            try:
                with self._env.begin(write=True) as txn:
                    return body(txn)
            except lmdb.MapFullError:
                self._env.set_mapsize(self._env.info()["map_size"] * 2)
            except lmdb.Error as exc:
                if _is_disk_full(exc) or self._short_of_space(exc):
                    raise StorageFullError(
                        f"disk full while writing to {self.path}; nothing was written. "
                        "Free space and retry."
                    ) from exc
                raise StoreError(f"write to {self.path} failed: {exc}") from exc

    def _short_of_space(self, exc: lmdb.Error) -> bool:
        # When the disk has some room but not enough, the kernel's short write reaches LMDB as
        # EIO at commit, not ENOSPC: an I/O error with almost no space left is a full disk.
        return "Input/output error" in str(exc) and _low_space(self.path)

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
        return self._write(
            lambda txn: self._append_in(txn, events, encoded, contents, meta, drop_contents))

    def _append_in(
        self,
        txn: lmdb.Transaction,
        events: Sequence[Event],
        encoded: Sequence[bytes],
        contents: Mapping[str, Content] | None,
        meta: Mapping[bytes, bytes] | None,
        drop_contents: Sequence[str],
    ) -> list[int]:
        """The body of :meth:`append`, inside the caller's write transaction."""
        head = self._head(txn)
        if contents:
            self.content.put(txn, contents, self._meta)
        for content_hash in drop_contents:
            self.content.drop(txn, content_hash)
        for key, value in (meta or {}).items():
            txn.put(key, value, db=self._meta)
        seq, prev = head.seq, head.hash
        seqs = []
        for event, payload in zip(events, encoded, strict=True):
            seq += 1
            value = prev + payload
            txn.put(seq_key(seq), value, db=self._log, append=True)
            for mid in memory_ids_of(event):
                txn.put(mid.encode(), seq_key(seq), db=self._by_memory, dupdata=True)
            prev = record_hash(seq, value)
            seqs.append(seq)
        txn.put(b"head", seq_key(seq) + prev, db=self._meta)
        return seqs

    # -- erasure (ARCHITECTURE section 8) -----------------------------------------------------

    def erase(self, events: Sequence[Event], *, drop_contents: Sequence[str]) -> list[int]:
        """Append erasure events and, in the same transaction, remove the text, vector and terms
        of ``drop_contents`` and every snapshot (snapshots hold vectors and terms of the erased
        content; the engine takes a fresh one after folding). The events' seqs are added to
        meta ``erasures``, so a view of the past finds the later erasures without a log scan.

        The freed LMDB pages still hold the erased bytes until :meth:`compact`.
        """
        encoded = [codec.encode(event) for event in events]

        def body(txn: lmdb.Transaction) -> list[int]:
            for key in [bytes(k) for k in txn.cursor(db=self._snapshots).iternext(values=False)]:
                txn.delete(key, db=self._snapshots)
            seqs = self._append_in(txn, events, encoded, None, None, drop_contents)
            known = txn.get(b"erasures", db=self._meta) or b""
            txn.put(b"erasures", bytes(known) + b"".join(map(seq_key, seqs)), db=self._meta)
            return seqs

        return self._write(body)

    def erasure_seqs(self) -> list[int]:
        """The seqs of every erasure event, in order."""
        raw = self.get_meta(b"erasures") or b""
        return [int.from_bytes(raw[i:i + 8], "big") for i in range(0, len(raw), 8)]

    def memory_events(self, memory_ids: Iterable[str]) -> list[tuple[int, Event]]:
        """Every event that touched any of ``memory_ids`` (by the by-memory index), in seq order,
        each once."""
        with self._read_txn() as txn:
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

    def compact(self) -> tuple[int, int]:
        """Rewrite the environment without its free pages and replace ``data.mdb`` with it
        (atomically, by rename), so bytes an erasure or a purge freed are gone from the file.
        Returns the file's size before and after.

        Needs the writer lock (this log is open writable) and no other process with the store
        open: their map of the old file would go stale. Raises StoreLockedError then.
        """
        self._check_open()
        if self.readonly:
            raise ReadOnlyError(f"store at {self.path} is open read-only")
        data, tmp = self.path / "data.mdb", self.path / COMPACT_TMP
        tmp.unlink(missing_ok=True)
        try:
            self._copy_live(tmp)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        before = data.stat().st_size
        info, flags = self._env.info(), self._env.flags()
        self._env.close()
        try:
            self._replace_alone(tmp, data)
        finally:
            self._env = lmdb.open(str(self.path), map_size=info["map_size"], max_dbs=8,
                                  sync=flags["sync"], mode=0o600, max_readers=256)
            self._open_dbs()
        return before, data.stat().st_size

    def _copy_live(self, target: Path) -> None:
        """Write every live key and value, database by database, into a fresh environment and
        leave its file at ``target``.

        Not LMDB's own compacting copy: that copies pages whole, and a page's unused bytes (and
        a one-page overflow value's tail) can hold stale data, since LMDB reuses page buffers
        without clearing them. Erased text could survive there. A fresh environment only ever
        holds what is written into it: live data.
        """
        work = target.with_name(target.name + ".d")
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(mode=0o700)
        try:
            fresh = lmdb.open(str(work), map_size=self._env.info()["map_size"], max_dbs=8,
                              sync=False, mode=0o600, max_readers=8)
            try:
                with self._env.begin() as src, fresh.begin(write=True) as dst:
                    for name in [bytes(key) for key, _ in src.cursor()]:
                        source_db = self._env.open_db(name, txn=src, create=False)
                        # The stubs omit flags()'s transaction argument; py-lmdb takes it.
                        dupsort = bool(source_db.flags(src)["dupsort"])  # type: ignore[call-arg]
                        target_db = fresh.open_db(name, txn=dst, dupsort=dupsort)
                        dst.cursor(db=target_db).putmulti(
                            src.cursor(db=source_db).iternext(), dupdata=dupsort,
                            append=not dupsort)
                fresh.sync(True)
            finally:
                fresh.close()
            os.replace(work / "data.mdb", target)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def set_meta(self, key: bytes, value: bytes) -> None:
        self._write(lambda txn: txn.put(key, value, db=self._meta))

    def _replace_alone(self, tmp: Path, data: Path) -> None:
        """Rename ``tmp`` over ``data`` if no other process has the environment open.

        Every process with the environment open holds a shared ``fcntl`` lock on the first byte
        of ``lock.mdb`` (LMDB's own liveness lock); with ours closed, an exclusive lock there is
        granted only when no one else holds it, and holding it keeps new openers waiting until
        the rename is done. (Locks are per process: a second environment of this process on
        the same store goes unseen, and would be left on the old file.)
        """
        lock_fd = os.open(self.path / "lock.mdb", os.O_RDWR)
        try:
            try:
                fcntl.lockf(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
            except OSError:
                tmp.unlink(missing_ok=True)
                raise StoreLockedError(
                    f"another process has {self.path} open; close it, then compact") from None
            # The copy is whole on disk before the rename: a crash before it leaves the old
            # store and a stray copy (removed by the next writable open).
            os.replace(tmp, data)
            _fsync_dir(self.path)
        finally:
            os.close(lock_fd)  # releases the lock (before LMDB reopens and takes its own)

    # -- reading ------------------------------------------------------------------------------

    def _check_open(self) -> None:
        # Views and readers outlive the engine that made them: after close they get a clear
        # ClosedError instead of lmdb's "closed/deleted/dropped object".
        if self._closed:
            raise ClosedError(f"the store at {self.path} is closed; open it again")

    def _read_txn(self) -> lmdb.Transaction:
        self._check_open()
        try:
            return self._env.begin()
        except lmdb.MapResizedError:
            # Another process grew the map; adopt its size and try again.
            self._env.set_mapsize(0)
            return self._env.begin()

    def _head(self, txn: lmdb.Transaction) -> Head:
        raw = txn.get(b"head", db=self._meta)
        if raw is None:
            return Head(0, GENESIS)
        return Head(int.from_bytes(raw[:8], "big"), bytes(raw[8:]))

    def head(self) -> Head:
        """The seq and hash of the last record (``Head(0, GENESIS)`` when empty)."""
        with self._read_txn() as txn:
            return self._head(txn)

    def get_meta(self, key: bytes) -> bytes | None:
        with self._read_txn() as txn:
            value = txn.get(key, db=self._meta)
            return None if value is None else bytes(value)

    def iter_raw(self, start: int = 1, stop: int | None = None) -> Iterator[RawRecord]:
        """Records with ``start <= seq <= stop`` (``stop`` None: to the head), undecoded."""
        with self._read_txn() as txn:
            yield from self._iter_raw(txn, start, stop)

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
        with self._read_txn() as txn:
            cursor = txn.cursor(db=self._log)
            if (stop is not None and stop < start) or not cursor.set_range(seq_key(start)):
                return
            last = seq_key(stop) if stop is not None else None
            # Reading most of the log (a rebuild): the content table in one scan, not by key.
            head = self._head(txn).seq
            span = (head if stop is None else min(stop, head)) - start + 1
            table = self.content.records(txn) if span >= self.content.count(txn) // 2 else None
            # (a plain transaction: keys and values are bytes, not the memoryviews the stubs allow)
            records = cast(Iterator[tuple[bytes, bytes]], cursor.iternext())
            while True:
                chunk = list(islice(records, _READ_CHUNK))
                if last is not None and chunk and chunk[-1][0] > last:
                    chunk = [record for record in chunk if record[0] <= last]
                    if chunk:
                        yield self.content.join(txn, _decode_chunk(chunk), with_text, table)
                    return
                if not chunk:
                    return
                yield self.content.join(txn, _decode_chunk(chunk), with_text, table)

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
        with self._read_txn() as txn:
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
        with self._read_txn() as txn:
            cursor = txn.cursor(db=self._by_memory)
            if not cursor.set_key(memory_id.encode()):
                return []
            return [int.from_bytes(v, "big") for v in cursor.iternext_dup()]

    def blob(self, content_hash: str) -> str | None:
        """The text stored for ``content_hash`` (None when absent or erased)."""
        with self._read_txn() as txn:
            return self.content.blob(txn, content_hash)

    def iter_blobs(self) -> Iterator[tuple[str, bytes]]:
        """(content hash, stored text bytes) for every text in the store."""
        with self._read_txn() as txn:
            yield from self.content.iter_blobs(txn)

    def contents(self, content_hashes: Sequence[str]) -> list[Content | None]:
        """What the store holds for each content hash (None where it holds nothing)."""
        with self._read_txn() as txn:
            return [self.content.get(txn, h) for h in content_hashes]

    def embedder_id(self) -> str | None:
        raw = self.get_meta(b"embedder")
        return None if raw is None else raw.decode()

    # -- snapshots (a cache of projection state; never the source of truth) -------------------

    def put_snapshot(self, seq: int, data: bytes, *, keep: int = 2) -> None:
        """Store a snapshot taken at ``seq`` and drop all but the newest ``keep``."""

        def body(txn: lmdb.Transaction) -> None:
            txn.put(seq_key(seq), data, db=self._snapshots)
            keys = [bytes(k) for k in txn.cursor(db=self._snapshots).iternext(values=False)]
            for old in keys[:-keep] if keep else keys:
                txn.delete(old, db=self._snapshots)

        self._write(body)

    def latest_snapshot(self, max_seq: int | None = None) -> tuple[int, bytes] | None:
        """The newest snapshot taken at or before ``max_seq``."""
        with self._read_txn() as txn:
            cursor = txn.cursor(db=self._snapshots)
            if max_seq is None:
                found = cursor.last()
            elif cursor.set_range(seq_key(max_seq + 1)):
                found = cursor.prev()
            else:
                found = cursor.last()
            if not found:
                return None
            return int.from_bytes(cursor.key(), "big"), bytes(cursor.value())

    def snapshot_seqs(self) -> list[int]:
        with self._read_txn() as txn:
            cursor = txn.cursor(db=self._snapshots)
            return [int.from_bytes(k, "big") for k in cursor.iternext(values=False)]

    def stats(self) -> dict[str, int]:
        with self._read_txn() as txn:
            return {
                "events": txn.stat(self._log)["entries"],
                **self.content.stats(txn),
                "snapshots": txn.stat(self._snapshots)["entries"],
                "map_size": self._env.info()["map_size"],
            }


_event_decode = msgspec.msgpack.Decoder(AnyEvent).decode  # codec's typed decoder, without its frame


def _decode_chunk(records: list[tuple[bytes, bytes]]) -> list[tuple[int, Event]]:
    """(seq, event) of raw log records. The common case decodes in one comprehension; a record
    that does not decode as a current event goes through :func:`codec.decode` (upcasters, and
    the error naming its seq)."""
    seqs = [int.from_bytes(key, "big") for key, _ in records]
    try:
        events = [_event_decode(memoryview(value)[HASH_SIZE:]) for _, value in records]
    except (msgspec.DecodeError, UnicodeDecodeError):
        events = [codec.decode(memoryview(value)[HASH_SIZE:], seq=seq)
                  for seq, (_, value) in zip(seqs, records, strict=True)]
    return list(zip(seqs, events, strict=True))


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _low_space(path: Path, margin: int = 1 << 20) -> bool:
    try:
        info = os.statvfs(path)
    except OSError:
        return False
    return info.f_bavail * info.f_frsize < margin


def _is_disk_full(exc: lmdb.Error) -> bool:
    return isinstance(exc, lmdb.DiskError) or f"[Errno {errno.ENOSPC}]" in str(exc) or (
        "No space left" in str(exc)
    )

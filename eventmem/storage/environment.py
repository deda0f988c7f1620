"""One LMDB environment on disk, as the event log holds it: who may write, transactions, growth,
a full disk, and compaction.

One process writes; any number of processes read with plain LMDB read transactions and can
catch up to the head at any time. The writer holds an exclusive ``flock`` on ``writer.lock`` and
another on ``data.mdb`` itself: deleting ``writer.lock`` (or LMDB's ``lock.mdb``) under a running
writer lets no second writer in, since the file LMDB writes cannot be deleted without deleting
the store. (``flock``, not ``fcntl``: an ``fcntl`` lock is dropped when any descriptor of the file
in the process closes, as LMDB's own and every read-only environment's do.) Before LMDB maps
``data.mdb``, :mod:`eventmem.storage.datafile` checks that it holds every page its meta names and
was not emptied (CorruptStoreError, not a SIGBUS or a new empty store). A write transaction that
finds the map full doubles it and runs again; one that finds the disk full raises
StorageFullError and leaves the store as it was. :meth:`Environment.compact` rewrites the
environment with only its live data.

The sub-databases and what they mean belong to the log built on it
(:class:`eventmem.storage.log.EventLog`), which holds an :class:`Environment` and opens its tables
in it.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

import lmdb

from eventmem import progress
from eventmem.errors import (
    ClosedError,
    InvalidInputError,
    ReadOnlyError,
    StorageFullError,
    StoreError,
    StoreLockedError,
)
from eventmem.storage import datafile

T = TypeVar("T")

DEFAULT_MAP_SIZE = 1 << 30  # sparse on Linux; grows by doubling when full
COMPACT_TMP = "data.mdb.compact"  # compact() writes the copy here, then renames it over data.mdb
COMPACT_WORK = COMPACT_TMP + ".d"  # the fresh environment compact() writes the copy in


class Environment:
    """An LMDB environment at ``path``. Use :meth:`open`; close with :meth:`close`.

    ``env`` is the lmdb environment itself: its owner opens sub-databases in it and begins read
    transactions through :meth:`read_txn`, write transactions through :meth:`write`.
    """

    def __init__(self, path: Path, env: lmdb.Environment, *, readonly: bool,
                 lock_fds: tuple[int, ...] = ()):
        self.path = path
        self.readonly = readonly
        self.env = env
        self._lock_fds = list(lock_fds)  # writer.lock, data.mdb (a writer's; see the module doc)
        self._closed = False

    # -- opening and closing ------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        sync: bool = True,
        map_size: int = DEFAULT_MAP_SIZE,
        build: Callable[[Environment], T],
    ) -> T:
        """Open (creating, when writable) the environment at ``path`` and return ``build`` of it:
        what its owner makes of the open environment (an LMDB error in ``build`` is reported as
        one of opening the store, and releases the writer lock).

        A writer takes the store's writer lock; a second writer fails with StoreLockedError.
        """
        root = store_directory(path)
        lock_fds: list[int] = []
        if not readonly:
            try:
                root.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.chmod(root, 0o700)  # owner-only even when the directory already existed
            except OSError as exc:
                raise StoreError(f"cannot create the store directory {root}: {exc.strerror}; "
                                 "give a directory path you may write to") from None
        if readonly and not root.is_dir():
            raise StoreError(f"no store at {root}: open it writable once to create it")
        _refuse_links(root)
        if readonly:
            datafile.check(root, readonly=True)
            if not (root / "data.mdb").exists():
                raise StoreError(f"no store at {root}: open it writable once to create it")
        else:
            lock_fds.append(_exclusive(root / "writer.lock", root))
            try:
                datafile.check(root, readonly=False)  # before data.mdb is created to lock it
                lock_fds.append(_exclusive(root / "data.mdb", root))
            except BaseException:
                os.close(lock_fds.pop())
                raise
            # What a compaction that died before its rename left: the copy, its working dir.
            (root / COMPACT_TMP).unlink(missing_ok=True)
            shutil.rmtree(root / COMPACT_WORK, ignore_errors=True)
        try:
            if not readonly:
                _reserve_lock_page(root)
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
            built = build(cls(root, env, readonly=readonly, lock_fds=tuple(lock_fds)))
            if not readonly and not (root / datafile.MARKER).exists():
                # Its first transaction (the format) durable first: the marker must never
                # stand beside a data file that a crash could still leave empty.
                env.sync(True)
                with suppress(OSError):  # a full disk, say: the next writable open marks it
                    datafile.mark(root)
        except lmdb.Error as exc:
            for fd in lock_fds:
                os.close(fd)
            if _is_disk_full(exc):
                raise StorageFullError(f"disk full: cannot open the store at {root}; "
                                       "free space and open it again") from exc
            raise StoreError(f"cannot open store at {root}: {exc}") from exc
        except BaseException:
            for fd in lock_fds:
                os.close(fd)
            raise
        return built

    def close(self) -> None:
        """Close the environment and release the writer's locks."""
        self._closed = True
        try:
            self.env.close()
        finally:
            while self._lock_fds:
                os.close(self._lock_fds.pop())

    # -- writing ------------------------------------------------------------------------------

    def write(self, body: Callable[[lmdb.Transaction], T]) -> T:
        """Run ``body(txn)`` in one write transaction; grow the map and retry when it is full.

        Any failure aborts the transaction, so the store is exactly as before the call.
        """
        self.check_open()
        if self.readonly:
            raise ReadOnlyError(f"store at {self.path} is open read-only")
        while True:
            try:
                with self.env.begin(write=True) as txn:
                    return body(txn)
            except lmdb.MapFullError:
                self.env.set_mapsize(self.env.info()["map_size"] * 2)
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

    # -- compaction ---------------------------------------------------------------------------

    def compact(self, *, reopened: Callable[[], None]) -> tuple[int, int]:
        """Rewrite the environment without its free pages and replace ``data.mdb`` with it
        (atomically, by rename), so bytes an erasure or a purge freed are gone from the file.
        Returns the file's size before and after.

        ``reopened`` runs once the environment is open again (its owner's tables were closed
        with it). Needs the writer lock (the environment is open writable) and no other process
        with the store open: their map of the old file would go stale. Raises StoreLockedError
        then.
        """
        self.check_open()
        if self.readonly:
            raise ReadOnlyError(f"store at {self.path} is open read-only")
        data, tmp = self.path / "data.mdb", self.path / COMPACT_TMP
        tmp.unlink(missing_ok=True)
        try:
            self._copy_live(tmp)
        except (lmdb.Error, OSError) as exc:
            tmp.unlink(missing_ok=True)
            if isinstance(exc, StorageFullError) or _is_disk_full(exc) or _low_space(self.path):
                raise StorageFullError(
                    f"disk full while compacting {self.path}: the copy needs room for the "
                    "store's live data; the store is unchanged. Free space and retry."
                ) from exc
            raise StoreError(f"compacting {self.path} failed: {exc}") from exc
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        before = data.stat().st_size
        info, flags = self.env.info(), self.env.flags()
        self.env.close()
        try:
            self._replace_alone(tmp, data)
        finally:
            self.env = lmdb.open(str(self.path), map_size=info["map_size"], max_dbs=8,
                                  sync=flags["sync"], mode=0o600, max_readers=256)
            reopened()
        return before, data.stat().st_size

    def _copy_live(self, target: Path) -> None:
        """Write every live key and value, database by database, into a fresh environment and
        leave its file at ``target``.

        Not LMDB's own compacting copy: that copies pages whole, and a page's unused bytes (and
        a one-page overflow value's tail) can hold stale data, since LMDB reuses page buffers
        without clearing them. Erased text could survive there. A fresh environment only ever
        holds what is written into it: live data.
        """
        work = target.with_name(COMPACT_WORK)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(mode=0o700)
        try:
            _reserve_lock_page(work)
            fresh = lmdb.open(str(work), map_size=self.env.info()["map_size"], max_dbs=8,
                              sync=False, mode=0o600, max_readers=8)
            try:
                with self.env.begin() as src, fresh.begin(write=True) as dst:
                    tables = [(name, self.env.open_db(name, txn=src, create=False))
                              for name in [bytes(key) for key, _ in src.cursor()]]
                    sizes = [src.stat(db)["entries"] for _, db in tables]
                    done, total = 0, sum(sizes)
                    for (name, source_db), size in zip(tables, sizes, strict=True):
                        # The stubs omit flags()'s transaction argument; py-lmdb takes it.
                        dupsort = bool(source_db.flags(src)["dupsort"])  # type: ignore[call-arg]
                        target_db = fresh.open_db(name, txn=dst, dupsort=dupsort)
                        rows = src.cursor(db=source_db).iternext()
                        dst.cursor(db=target_db).putmulti(
                            _reported(rows, done, total) if progress.active() else rows,
                            dupdata=dupsort, append=not dupsort)
                        done += size
                fresh.sync(True)
            finally:
                fresh.close()
            os.replace(work / "data.mdb", target)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _replace_alone(self, tmp: Path, data: Path) -> None:
        """Rename ``tmp`` over ``data`` if no other process has the environment open.

        Every process with the environment open holds a shared ``fcntl`` lock on the first byte
        of ``lock.mdb`` (LMDB's own liveness lock); with ours closed, an exclusive lock there is
        granted only when no one else holds it, and holding it keeps new openers waiting until
        the rename is done. (Locks are per process: a second environment of this process on
        the same store goes unseen, and would be left on the old file.)
        """
        lock_fd = os.open(self.path / "lock.mdb", os.O_RDWR | os.O_NOFOLLOW)
        try:
            try:
                fcntl.lockf(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
            except OSError:
                tmp.unlink(missing_ok=True)
                raise StoreLockedError(
                    f"another process has {self.path} open; close it, then compact") from None
            # The writer's lock moves to the new file before it becomes data.mdb: no moment
            # in which a second writer could take the store.
            new_fd = _exclusive(tmp, self.path)
            # The copy is whole on disk before the rename: a crash before it leaves the old
            # store and a stray copy (removed by the next writable open).
            try:
                os.replace(tmp, data)
            except BaseException:
                os.close(new_fd)
                raise
            os.close(self._lock_fds[1])  # the old file's
            self._lock_fds[1] = new_fd
            fsync_dir(self.path)
        finally:
            os.close(lock_fd)  # releases the lock (before LMDB reopens and takes its own)

    # -- read transactions --------------------------------------------------------------------

    def check_open(self) -> None:
        """Raise ClosedError once the environment is closed."""
        # Views and readers outlive the engine that made them: after close they get a clear
        # ClosedError instead of lmdb's "closed/deleted/dropped object".
        if self._closed:
            raise ClosedError(f"the store at {self.path} is closed; open it again")

    @contextmanager
    def read_txn(self) -> Iterator[lmdb.Transaction]:
        """A read transaction for a ``with`` block, adopting the map size another process grew
        the map to. An LMDB failure inside the block (a damaged file, an I/O error) reaches the
        caller as StoreError, the one error tree of the public API."""
        self.check_open()
        try:
            try:
                txn = self.env.begin()
            except lmdb.MapResizedError:
                # Another process grew the map; adopt its size and try again.
                self.env.set_mapsize(0)
                txn = self.env.begin()
            with txn:
                yield txn
        except lmdb.Error as exc:
            raise StoreError(
                f"reading the store at {self.path} failed ({exc}); run `eventmem verify` on it, "
                "and restore it from a copy if the file is damaged") from exc


def store_directory(path: object) -> Path:
    """The store's directory for ``path``, or InvalidInputError for a path that cannot name one
    (StoreError where it names a file). ``""`` is refused: it would be the current directory,
    and the store would take it over (its mode made owner-only, its files put beside yours)."""
    if not isinstance(path, str | os.PathLike):
        raise InvalidInputError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise InvalidInputError("path must be text, not bytes")
    if not text:
        raise InvalidInputError("path is empty: name the store's directory")
    if "\x00" in text:
        raise InvalidInputError("path contains a NUL character")
    root = Path(text)
    if root.exists() and not root.is_dir():
        raise StoreError(f"{root} is a file, not a store directory; give a directory path")
    return root


def _refuse_links(root: Path) -> None:
    """Refuse a store with a symbolic link in it. LMDB, the writer lock and the ops log would
    follow it: a ``lock.mdb`` link overwrites whatever it points at, a ``data.mdb`` link puts
    the store elsewhere. Nothing eventmem writes there is a link, so one is refused, whatever
    its name. (The store directory itself may be a link: that is the caller's path.)"""
    try:
        with os.scandir(root) as entries:
            links = sorted(entry.name for entry in entries if entry.is_symlink())
    except OSError as exc:
        raise StoreError(f"cannot read the store directory {root}: {exc.strerror}") from None
    if links:
        raise StoreError(
            f"{root / links[0]} is a symbolic link; a store holds no links (eventmem would "
            "write through it, outside the store). Replace it with the file it points to, or "
            "remove it")


def _exclusive(path: Path, root: Path) -> int:
    """An open descriptor of ``path`` (created when missing) holding an exclusive ``flock``,
    or StoreLockedError when another process holds it."""
    try:  # O_NOFOLLOW too: a link planted after the store's links were refused
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise StoreError(f"cannot open {path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreLockedError(
            f"another process is writing to {root}; it can still be read "
            "(eventmem.open(..., readonly=True); the CLI's read commands do so)"
        ) from None
    return fd


def _reserve_lock_page(root: Path) -> None:
    """Create LMDB's ``lock.mdb`` with its first page allocated, unless it exists.

    LMDB sizes a new lock file with ``ftruncate`` (a hole) and writes its header through a
    shared mapping: on a full disk that first write is a SIGBUS, which kills the process. An
    allocated first page (the header and the first readers' slots) turns the full disk into
    ENOSPC here, a clear error. LMDB still grows the file to the size it wants (the store's
    table of 256 readers is four pages); every opener then sizes its reader table by the file.
    """
    try:
        fd = os.open(root / "lock.mdb", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    try:
        os.posix_fallocate(fd, 0, os.sysconf("SC_PAGE_SIZE"))
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            return  # a file system without fallocate: LMDB makes the file as it always did
        (root / "lock.mdb").unlink(missing_ok=True)
        raise StorageFullError(
            f"disk full: no room for the lock file of {root}; free space and retry") from None
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (a rename, a new or removed file) durable."""
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


def _is_disk_full(exc: Exception) -> bool:
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    return isinstance(exc, lmdb.DiskError) or f"[Errno {errno.ENOSPC}]" in str(exc) or (
        "No space left" in str(exc)
    )


def _reported(rows: Iterator[tuple[bytes, bytes]], done: int, total: int
              ) -> Iterator[tuple[bytes, bytes]]:
    """``rows`` as they are, reporting the compaction's progress every few thousand."""
    count = 0
    for count, row in enumerate(rows, start=1):
        yield row
        if count % 4096 == 0:
            progress.report("compact", done + count, total)
    progress.report("compact", done + count, total)

"""Snapshot files: the projections' snapshots, one file each beside ``data.mdb``, memory-mapped.

A snapshot is read in place: an open maps its file and the projections read their columns from
the map, decoding a record only when it is used (see :mod:`projections.columns`). Kept in LMDB
it could be read in place only inside a read transaction, and an engine holding one for its
whole life would stop the writer reusing any page freed since (the file would grow with every
write); copied out of LMDB it costs a copy of the whole snapshot (a gigabyte at 1M memories)
and as much resident memory. A file needs neither: pages are read when touched and stay
shareable page cache, and a file replaced or removed while mapped stays readable by whoever
mapped it (POSIX keeps an unlinked file until its last map goes), so a reader is never pulled
out from under. Such a file stays on disk until then, holding whatever the log dropped since (an
erase's vectors and terms): the engine that writes a snapshot therefore reads its projections
back from the new file at once (``Engine.snapshot``) and holds no removed one.

The ``snapshots`` table of the log stays the index: seq -> the chain hash tie and the file's
name (:class:`eventmem.storage.log.EventLog`). A file is written whole and synced under a
temporary name, renamed, and only then named in the table, in the transaction that drops the
old ones; their files are removed after it commits. A crash between leaves a file no entry
names, removed by the next writer (:func:`sweep`).
"""

from __future__ import annotations

import errno
import mmap
import os
from collections.abc import Iterable
from pathlib import Path

from eventmem.errors import StorageFullError, StoreError
from eventmem.storage.environment import fsync_dir

DIRECTORY = "snapshots"
SUFFIX = ".emsnap"
_TMP = ".tmp"


def name_of(seq: int) -> str:
    """The file name of the snapshot taken at ``seq`` (zero-padded: names sort by seq)."""
    return f"{seq:020d}{SUFFIX}"


def write(store: Path, seq: int, parts: Iterable[bytes | memoryview]) -> str:
    """Write a snapshot's parts to its file, durably (synced, then renamed into place, the
    directory synced); returns its name. A full disk raises StorageFullError, any other
    failure StoreError; either way no file is left half written (a snapshot is a cache: the
    log is as it was)."""
    try:
        return _write(store, seq, parts)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise StorageFullError(f"disk full while writing a snapshot of {store}; the log is "
                                   "intact. Free space and retry.") from exc
        raise StoreError(f"cannot write a snapshot of {store}: {exc}") from exc


def _write(store: Path, seq: int, parts: Iterable[bytes | memoryview]) -> str:
    folder = store / DIRECTORY
    folder.mkdir(mode=0o700, exist_ok=True)
    name = name_of(seq)
    tmp = folder / (name + _TMP)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "wb", closefd=False) as f:
            for part in parts:
                f.write(part)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, folder / name)
    fsync_dir(folder)
    return name


def open_map(store: Path, name: str) -> memoryview | None:
    """The snapshot file ``name``, mapped read-only (None when it is missing or empty: the
    caller rebuilds, as for any snapshot it cannot use)."""
    if os.sep in name or name != os.path.basename(name):  # a damaged entry naming elsewhere
        return None
    try:
        with open(store / DIRECTORY / name, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                return None
            # The map outlives the descriptor; the projections read from it for their life.
            return memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
    except FileNotFoundError:
        return None


def remove(store: Path, names: Iterable[str]) -> None:
    """Remove snapshot files (a process that mapped one keeps reading it until it lets go)."""
    folder = store / DIRECTORY
    for name in names:
        (folder / name).unlink(missing_ok=True)


def sweep(store: Path, keep: Iterable[str]) -> list[str]:
    """Remove every file of the snapshot folder but ``keep`` (what the table names): those a
    crash left between writing a file and naming it, or naming it and removing the old ones.
    Returns the names removed."""
    folder = store / DIRECTORY
    if not folder.is_dir():
        return []
    kept = set(keep)
    gone = sorted(name for name in os.listdir(folder) if name not in kept)
    remove(store, gone)
    return gone

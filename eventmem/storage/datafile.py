"""LMDB's data file as it lies on disk, checked before LMDB maps it.

LMDB maps ``data.mdb`` and reads its pages through the map: a file cut short under the pages its
meta names kills the process with SIGBUS at open (read-only too), which no ``try`` can catch.
And a ``data.mdb`` of 0 bytes is, to LMDB, a new environment: it would open as an empty store
and every memory would be silently gone. So before LMDB sees the file, :func:`check` reads the
two meta pages itself and refuses a file that does not hold every page the newest meta names;
and a small marker file beside it (:data:`MARKER`, written once the store's first transaction is
on disk) says the store was ever written, so an emptied or deleted ``data.mdb`` is damage, not a
new store. Both raise :class:`~eventmem.errors.CorruptStoreError`.

The meta page layout is LMDB 0.9's (``MDB_meta`` after the 16-byte page header, 64-bit builds):
magic and version, the map address and size, the free and main databases' records (the page size
is kept in the free database's ``md_pad``), the last page used, and the transaction id. LMDB uses
the valid meta with the larger transaction id; so does this check.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import NamedTuple

from eventmem.errors import CorruptStoreError

MARKER = "eventmem.store"  # beside data.mdb: this store's data file has been written
# Its existence is what counts; it holds only a version, no words: the erasure scans look for
# erased words in every file of the store, and a marker's prose could hold any of them.
_MARKER_TEXT = b"1\n"

_MAGIC = 0xBEEFC0DE
_VERSION = 1
_PAGE_HEADER = 16  # mp_pgno (8), mp_pad (2), mp_flags (2), mp_lower (2), mp_upper (2)
_META = struct.Struct("<IIQQ")  # mm_magic, mm_version, mm_address, mm_mapsize
_DB = 48  # one MDB_db record: md_pad, md_flags, md_depth, five page counts, md_root
_LAST = struct.Struct("<QQ")  # mm_last_pg, mm_txnid (after the two MDB_db records)
_META_SIZE = _PAGE_HEADER + _META.size + 2 * _DB + _LAST.size
_PAGE_SIZES = tuple(1 << n for n in range(9, 17))  # 512 B .. 64 KiB: what LMDB may use


class Meta(NamedTuple):
    """What one of LMDB's two meta pages says."""

    page_size: int
    last_page: int  # the last page the environment uses (the file must hold 0..last_page)
    txnid: int


def read_meta(raw: bytes) -> Meta | None:
    """The meta page at the start of ``raw``, or None when it is not one (torn, zeroed)."""
    if len(raw) < _META_SIZE:
        return None
    magic, version, _, _ = _META.unpack_from(raw, _PAGE_HEADER)
    if magic != _MAGIC or version != _VERSION:
        return None
    page_size = struct.unpack_from("<I", raw, _PAGE_HEADER + _META.size)[0]
    last_page, txnid = _LAST.unpack_from(raw, _PAGE_HEADER + _META.size + 2 * _DB)
    if page_size not in _PAGE_SIZES:
        return None
    return Meta(page_size, last_page, txnid)


def check(root: Path, *, readonly: bool) -> None:
    """Refuse (CorruptStoreError) a ``data.mdb`` in ``root`` that LMDB cannot open safely: cut
    short of the pages its newest meta names, emptied or missing where the marker says the
    store was written, or (read-only) empty. A missing or empty file of a store never written
    passes: a writer creates it, as LMDB would."""
    data = root / "data.mdb"
    written = (root / MARKER).exists()
    try:
        fd = os.open(data, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        if written:
            raise CorruptStoreError(
                f"{data} is missing, but the store was written: its memories are gone from "
                "this directory. Restore the store from a copy") from None
        return
    try:
        # Meta first, size after, through one descriptor: a writer extends the file before it
        # writes the meta naming the new pages, and a compaction's rename cannot slip between.
        head = os.pread(fd, _PAGE_SIZES[-1] + _META_SIZE, 0)
        size = os.fstat(fd).st_size
        if size == 0:
            if written or readonly:
                raise CorruptStoreError(
                    f"{data} is empty (0 bytes), but the store was written: every memory is "
                    "gone from this file. Restore the store from a copy; it was not opened, "
                    "so nothing was overwritten")
            return
        first = read_meta(head)
        page_size = first.page_size if first is not None else _guess_page_size(head)
        second = read_meta(head[page_size:]) if page_size else None
        metas = [m for m in (first, second) if m is not None]
        if not metas:
            raise CorruptStoreError(
                f"{data} ({size} bytes) has no readable LMDB meta page: it is damaged or not "
                "an eventmem store. Restore the store from a copy")
        newest = max(metas, key=lambda m: m.txnid)
        needed = (newest.last_page + 1) * newest.page_size
        if size < max(needed, 2 * newest.page_size):
            raise CorruptStoreError(
                f"{data} is cut short: {size} bytes, but its meta names pages up to "
                f"{newest.last_page} ({needed} bytes). Opening it would crash the process; "
                "restore the store from a copy")
    finally:
        os.close(fd)


def _guess_page_size(head: bytes) -> int:
    """The page size at which a valid second meta page starts, when the first is torn."""
    for size in _PAGE_SIZES:
        if read_meta(head[size:]) is not None:
            return size
    return 0


def mark(root: Path) -> None:
    """Write the marker that says this store's data file has been written (once; atomically, so
    a crash leaves it whole or absent). Call it only once the data file is on disk."""
    marker = root / MARKER
    if marker.exists():
        return
    tmp = root / (MARKER + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, _MARKER_TEXT)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, marker)
    dir_fd = os.open(root, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)

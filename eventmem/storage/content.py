"""The content tables of a store: texts, their vectors and their BM25 terms, addressed by hash.

::

    content    content hash (16 bytes)  -> slot (8-byte big-endian) + the text's BM25 terms
    blobs      slot                     -> UTF-8 text
    vectors    slot                     -> float32 bytes, made by the store's embedder; in a
                                           store of format 3, zlib-compressed (see below)
    extractions slot                    -> the entities and relations extracted from the text
                                           (msgpack; only for texts that name something)

Events reference content by the hash of its text, but it is stored under slots numbered in
arrival order: LMDB appends sequential keys several times faster than it inserts random ones. The
terms ride in the content record itself, so a fold reads one record for the slot and the terms and
one for the vector. The store has one embedder (recorded in meta; a mismatch is refused), so the
vector table keyed by content is the (embedder, content hash) cache of the design. Every method
takes the caller's transaction: content is written and removed with the events that refer to it.

Vector rows are most of a store's bytes: 1 KB of float32 per text at the default 256 dimensions,
and three of them fill a 4 KB page, so the table cost about 1.4 KB per memory. A store of format 3
(:data:`eventmem.storage.log.FORMAT_VERSION`) keeps each row zlib-compressed instead: the default
embedder's rows are half zeros and repeat a few dozen magnitudes, and compress to about 440
bytes. Lossless, so every fold, decision, replay and audit sees the very float32 bytes the
embedder made; the rows are unpacked here, and nothing above this module knows. A store made
before (format 2) keeps raw rows, so an older eventmem can still read it.
"""

from __future__ import annotations

import zlib
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from typing import Any

import lmdb

from eventmem.errors import CorruptRecordError
from eventmem.events import CONTENT_EVENTS, Event
from eventmem.storage.envelope import Content, Envelope


def content_key(content_hash: str) -> bytes:
    """The ``content`` table's key for a content hash: the hash's 16 bytes. A hash that is not
    hex comes from a damaged record (the write path only makes hex ones): CorruptRecordError."""
    try:
        return bytes.fromhex(content_hash)
    except (ValueError, TypeError):
        raise CorruptRecordError(f"content hash {content_hash!r} is not hex") from None


def slot_key(slot: int) -> bytes:
    """A slot's key in the slot-keyed tables: 8 bytes big-endian, so keys sort in arrival order
    and every put appends."""
    return slot.to_bytes(8, "big")


# ``txn: Any`` below: our transactions are plain (non-buffer) ones, which return bytes, while
# py-lmdb's stubs also allow memoryviews.
class ContentTables:
    """The content, blobs, vectors and extractions tables of one environment. Every method takes
    the caller's transaction, so content is written and removed with the events that refer to it."""

    def __init__(self, env: lmdb.Environment, *, readonly: bool, packed: bool) -> None:
        # packed: vector rows are stored compressed (a store of format 3; see the module doc).
        self.packed = packed
        self._content = env.open_db(b"content", create=not readonly)
        self._blobs = env.open_db(b"blobs", create=not readonly)
        self._vectors = env.open_db(b"vectors", create=not readonly)
        try:
            self._extractions: Any = env.open_db(b"extractions", create=not readonly)
        except lmdb.NotFoundError:  # a store no writer has opened since the table was added
            self._extractions = None

    def put(self, txn: Any, contents: Mapping[str, Content], meta: Any) -> None:
        """Store contents the store does not hold yet, under the next slots (counter in meta)."""
        raw = txn.get(b"slots", db=meta)
        slot = 1 if raw is None else int.from_bytes(raw, "big")
        for content_hash, content in contents.items():
            key = content_key(content_hash)
            if txn.get(key, db=self._content) is not None:
                continue
            skey = slot_key(slot)
            txn.put(key, skey + (content.terms or b""), db=self._content)
            txn.put(skey, content.text.encode(), db=self._blobs, append=True)
            if content.vector is not None:
                txn.put(skey, self._pack(content.vector), db=self._vectors, append=True)
            if content.extraction:
                txn.put(skey, content.extraction, db=self._extractions, append=True)
            slot += 1
        txn.put(b"slots", slot_key(slot), db=meta)

    def drop(self, txn: Any, content_hash: str) -> None:
        """Remove a content's text, vector, terms and extraction (a purge or an erasure),
        leaving no byte of them in the pages that stay."""
        key = content_key(content_hash)
        record = txn.get(key, db=self._content)
        if record is None:
            return
        slot = bytes(record[:8])
        _wipe(txn, key, self._content)
        for db in (self._blobs, self._vectors, self._extractions):
            if db is not None:
                _wipe(txn, slot, db)

    def get(self, txn: Any, content_hash: str) -> Content | None:
        """Everything stored for a content hash (text, vector, terms, extraction), or None when its
        text is gone or was never stored."""
        record = txn.get(content_key(content_hash), db=self._content)
        text = None if record is None else txn.get(record[:8], db=self._blobs)
        if record is None or text is None:
            return None
        vector = self._unpack(txn.get(record[:8], db=self._vectors))
        extraction = None if self._extractions is None else txn.get(record[:8],
                                                                     db=self._extractions)
        return Content(decode_text(text, None), vector, bytes(record[8:]) or None, extraction)

    def _pack(self, vector: bytes) -> bytes:
        """A vector row as the table stores it."""
        # Level 6 (zlib's default): level 9 saves under 1% more at half the speed.
        return zlib.compress(vector, 6) if self.packed else vector

    def _unpack(self, stored: bytes | None) -> bytes | None:
        """A stored vector row as the float32 bytes the embedder made (None stays None)."""
        return stored if stored is None or not self.packed else self._unrow(stored)

    @staticmethod
    def _unrow(stored: bytes) -> bytes:
        """A compressed row's float32 bytes; CorruptRecordError when it does not unpack."""
        try:
            return zlib.decompress(stored)
        except zlib.error as exc:
            raise CorruptRecordError(f"vector row does not unpack: {exc}") from None

    def vector_rows(self, txn: Any, keys: bytes) -> bytearray | None:
        """The vector rows of these contents (``keys``: their 16-byte keys, joined), as the
        embedder made them, joined in the same order; None when any of them is not stored (or
        the rows are not all of one length). What a snapshot that names its rows is read back
        with: the content table read in key order, then one scan of the vector table, each row
        unpacked straight into its place."""
        # Where each key's row goes (a key asked twice: its later places apart, being rare).
        first: dict[bytes, int] = {}
        again: list[tuple[int, bytes]] = []
        for i in range(len(keys) // 16):
            key = keys[16 * i:16 * i + 16]
            if first.setdefault(key, i) != i:
                again.append((i, key))
        # Only the slots are kept of the content records (they also hold the terms): an
        # open's resident memory should be the rows, not what it read on the way.
        key_of: dict[bytes, bytes] = {}
        content = self._content
        for key in sorted(first):
            record = txn.get(key, db=content)
            if record is None:
                return None
            key_of[record[:8]] = key
        count = len(keys) // 16
        out, size, found = bytearray(), -1, 0
        # Each row unpacked as the scan meets it: no table of every packed row held at once.
        for slot, packed in self._iter_rows_at(txn, self._vectors, list(key_of)):
            row = self._unrow(packed) if self.packed else bytes(packed)
            if size < 0:
                size = len(row)
                out = bytearray(size * count)
            if len(row) != size:
                return None
            i = first[key_of[slot]]
            out[i * size:(i + 1) * size] = row
            found += 1
        if found != len(first):
            return None
        for i, key in again:
            j = first[key]
            out[i * size:(i + 1) * size] = out[j * size:(j + 1) * size]
        return out

    def terms(self, txn: Any, content_hash: str) -> bytes | None:
        """:meth:`get`'s ``terms`` alone, without reading the text, vector and extraction (None
        also where the text is gone)."""
        record = txn.get(content_key(content_hash), db=self._content)
        if record is None or txn.get(record[:8], db=self._blobs) is None:
            return None
        return bytes(record[8:]) or None

    def blob(self, txn: Any, content_hash: str) -> str | None:
        """The stored text of a content hash, or None when it is gone or was never stored."""
        record = txn.get(content_key(content_hash), db=self._content)
        raw = None if record is None else txn.get(record[:8], db=self._blobs)
        return None if raw is None else decode_text(raw, None)

    def iter_blobs(self, txn: Any) -> Iterator[tuple[str, bytes]]:
        """(content hash, stored text bytes) for every content, by hash; ``b""`` where the text is
        missing. What ``verify`` checks against the hashes."""
        for key, record in txn.cursor(db=self._content):
            raw = txn.get(record[:8], db=self._blobs)
            yield bytes(key).hex(), b"" if raw is None else bytes(raw)

    def iter_derived(self, txn: Any) -> Iterator[tuple[str, bytes, Content | None]]:
        """(content hash, stored text bytes, what is derived from it) for every content, by
        hash: the derived half of the Content (vector, terms, extraction; None fields where not
        stored; ``text`` empty), None when the text is gone. What ``verify`` re-derives."""
        for key, record in txn.cursor(db=self._content):
            slot = record[:8]
            raw = txn.get(slot, db=self._blobs)
            if raw is None:
                yield bytes(key).hex(), b"", None
                continue
            extraction = None if self._extractions is None else txn.get(slot,
                                                                        db=self._extractions)
            vector = self._unpack(txn.get(slot, db=self._vectors))
            yield bytes(key).hex(), bytes(raw), Content(
                "", vector, bytes(record[8:]) or None, extraction)

    def stats(self, txn: Any) -> dict[str, int]:
        """How many texts and vectors the store holds."""
        return {"blobs": txn.stat(self._blobs)["entries"],
                "vectors": txn.stat(self._vectors)["entries"]}

    def join(self, txn: Any, chunk: list[tuple[int, Event]], with_text: bool,
             records: Mapping[bytes, bytes] | None = None) -> list[Envelope]:
        """Envelopes for a chunk of decoded events: content events with their vector and terms
        (and their text when ``with_text``, or when no terms are cached), each None where gone.
        One multi-key read per table for the whole chunk: this is the rebuild's hot loop.

        ``records``: the whole content table (:meth:`records`), when the caller read it at once
        for many chunks; otherwise the chunk's records are looked up here."""
        fromhex = bytes.fromhex
        try:
            keys = [fromhex(event.content_hash)  # type: ignore[attr-defined]
                    if isinstance(event, CONTENT_EVENTS) else None for _, event in chunk]
        except ValueError:  # a damaged record: name it
            for seq, event in chunk:
                if isinstance(event, CONTENT_EVENTS):
                    try:
                        content_key(event.content_hash)  # type: ignore[attr-defined]
                    except CorruptRecordError as exc:
                        raise CorruptRecordError(str(exc), seq=seq) from None
            raise
        if records is None:
            wanted = sorted({key for key in keys if key is not None})  # sorted: B-tree locality
            records = dict(txn.cursor(db=self._content).getmulti(wanted)) if wanted else {}
        get = records.get
        # Each event's record, looked up once (the table is large: each lookup misses the cache).
        found = [None if key is None else get(key) for key in keys]
        slots = [record[:8] for record in found if record is not None]
        vectors = self._rows_at(txn, self._vectors, slots)
        if self.packed:
            unpack = self._unrow
            vectors = {slot: unpack(row) for slot, row in vectors.items()}
        extractions = {} if self._extractions is None else self._rows_at(
            txn, self._extractions, slots)
        blobs = self._blobs
        out: list[Envelope] = []
        add, new, next_slot = out.append, tuple.__new__, iter(slots).__next__
        for (seq, event), record in zip(chunk, found, strict=True):
            # (tuple.__new__ makes the named tuple without a Python frame)
            if record is None:
                add(new(Envelope, (seq, event, None, None, None, None, None)))
                continue
            slot, terms = next_slot(), record[8:] or None  # (the slot's bytes hash once)
            text = txn.get(slot, db=blobs) if with_text or terms is None else None
            add(new(Envelope, (seq, event, None if text is None else decode_text(text, seq),
                               vectors.get(slot), terms, extractions.get(slot), None)))
        # The caller labels of ingests that have them (few do): read per key.
        for i, (seq, event) in enumerate(chunk):
            caller_hash = getattr(event, "caller_hash", None)
            if caller_hash is not None:
                out[i] = out[i]._replace(caller=self._caller(txn, caller_hash, seq, get))
        return out

    def _caller(self, txn: Any, caller_hash: str, seq: int, get: Any) -> str | None:
        """The Labels document of an ingest, or None when erased."""
        try:
            key = content_key(caller_hash)
        except CorruptRecordError as exc:
            raise CorruptRecordError(str(exc), seq=seq) from None
        record = get(key)
        if record is None:
            record = txn.get(key, db=self._content)
        raw = None if record is None else txn.get(record[:8], db=self._blobs)
        return None if raw is None else decode_text(raw, seq)

    def records(self, txn: Any) -> dict[bytes, bytes]:
        """The whole content table (hash -> slot and terms) in one sequential scan: for a read
        of most of the log, far cheaper than looking each chunk's hashes up in the B-tree."""
        return dict(txn.cursor(db=self._content).iternext())

    def count(self, txn: Any) -> int:
        """How many contents the store holds."""
        return int(txn.stat(self._content)["entries"])

    def _rows_at(self, txn: Any, db: Any, slots: list[bytes]) -> dict[bytes, bytes]:
        """The rows of a slot-keyed table (vectors, extractions) under these slots (those
        stored), read as :meth:`_iter_rows_at` reads them."""
        return dict(self._iter_rows_at(txn, db, slots))

    @staticmethod
    def _iter_rows_at(txn: Any, db: Any, slots: list[bytes]) -> Iterator[tuple[bytes, bytes]]:
        """(slot, row) of the rows of a slot-keyed table under these slots, each once. Slots
        are numbered in arrival order, so most slots of a run of log records are nearly
        contiguous: one forward cursor scan over their range costs far less than a B-tree
        descent per key. The few far older ones (content reinforced or merged into again) are
        read per key."""
        if not slots:
            return
        wanted = sorted(set(slots))
        # The scan covers the newest slots, over a range at most twice as long as their number.
        floor = max(0, int.from_bytes(wanted[-1], "big") - 2 * len(wanted))
        cut = bisect_left(wanted, floor.to_bytes(8, "big"))
        cursor = txn.cursor(db=db)
        if cut:
            yield from cursor.getmulti(wanted[:cut])
        high = wanted[-1]
        dense = set(wanted[cut:])
        if cursor.set_range(wanted[cut]):
            for key, value in cursor:
                if key > high:
                    break
                if key in dense:
                    yield key, value


def _wipe(txn: Any, key: bytes, db: Any) -> None:
    """Delete a row after overwriting its value with zeros. LMDB deletes a row by moving its
    neighbours over it, which leaves the old bytes in the page's free space, and a compacted copy
    keeps pages as they are: zeroed in place first (a same-size put), the bytes are gone."""
    value = txn.get(key, db=db)
    if value is None:
        return
    txn.put(key, bytes(len(value)), db=db)
    txn.delete(key, db=db)


def decode_text(raw: bytes | memoryview, seq: int | None) -> str:
    """A stored text as a str; CorruptRecordError (naming ``seq``, the record that references
    it, when known) if it is not UTF-8."""
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorruptRecordError(f"blob is not valid UTF-8: {exc}", seq=seq) from None

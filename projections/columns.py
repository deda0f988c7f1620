"""A dict a snapshot stores in columns and an open reads back without decoding its values.

The big maps of the projections (every memory's record, the dedup index, every memory's
interval) hold one entry per memory: a million at 1M memories. Decoding them at open was most of
its time. A snapshot stores such a map as four columns (:func:`map_columns`): its keys, sorted,
as one UTF-8 blob with their offsets, and the encoding of each value, in the same order, as one
blob with theirs. :class:`LazyMap` reads those columns in place (slices of the snapshot's
memory-mapped bytes) and decodes a value the first time it is asked for, then keeps it: a fold
changes records in place, so the decoded object is the entry from then on.

The columns are canonical (a function of the map's items alone, whatever its order and whatever
was decoded), so the projections' digests hash them: a loaded map and the dict it was dumped from
digest the same.
"""

from __future__ import annotations

import sys
import zlib
from bisect import bisect_left
from collections.abc import (
    Callable,
    ItemsView,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    Sequence,
    ValuesView,
)
from itertools import chain
from typing import Any, NamedTuple, TypeVar

import msgspec
import numpy as np

V = TypeVar("V")

_U64 = np.dtype("<u8")
# Offsets are uint32: a column holds one entry per memory (about 150 bytes a record at most),
# so 4 GiB is tens of millions of memories away, and uint64 offsets were 4 bytes a memory per
# column for nothing. A column past it is refused (ValueError) rather than wrapped.
_OFFSET = np.dtype("<u4")
_OFFSET_END = 1 << 32
# The offsets are read in place as native machine words ("I"): little-endian, as written.
assert sys.byteorder == "little", "snapshot columns are little-endian"
_MISSING: Any = object()


class MapColumns(NamedTuple):
    """A map's columns as a snapshot holds them (see the module docstring); ``order``, when
    given, is the map's iteration order as indexes into the sorted keys (uint32)."""

    keys: bytes | memoryview  # the sorted keys' UTF-8, joined
    key_at: bytes | memoryview  # uint32 LE, len + 1: where each key starts (and the end)
    values: bytes | memoryview  # each value's encoding, in key order, joined
    value_at: bytes | memoryview  # uint32 LE, len + 1
    order: bytes | memoryview = b""  # uint32 LE indexes into the sorted keys; empty: key order


def map_columns(mapping: Mapping[str, V], encode: Callable[[V], bytes], *,
                ordered: bool = False, plain: bool = False) -> MapColumns:
    """The canonical columns of ``mapping`` (``encode``: a value's bytes). ``ordered``: also
    keep its iteration order (the memories' order is creation order, which folds rely on).
    ``plain``: a loaded map's values unpacked (see :class:`Deflated`), for ``encode`` to give
    plain bytes too."""
    if isinstance(mapping, LazyMap):
        items = mapping.encoded_items(encode, plain=plain)
    else:
        items = sorted((key, encode(value)) for key, value in mapping.items())
    keys, key_at = strings_columns(key for key, _ in items)
    values = [value for _, value in items]
    order = b""
    if ordered:
        rank = {key: i for i, (key, _) in enumerate(items)}
        order = np.fromiter(map(rank.__getitem__, mapping), dtype="<u4",
                            count=len(rank)).tobytes()
    return MapColumns(keys, key_at, b"".join(values), _offsets(values), order)


def _offsets(parts: list[bytes]) -> bytes:
    at = np.zeros(len(parts) + 1, dtype=_U64)
    np.cumsum(np.fromiter(map(len, parts), dtype=_U64, count=len(parts)), out=at[1:])
    return _narrow(at)


def _narrow(at: np.ndarray) -> bytes:
    """uint64 offsets as the uint32 a column keeps (see :data:`_OFFSET`)."""
    if len(at) and int(at[-1]) >= _OFFSET_END:
        raise ValueError(f"a snapshot column of {int(at[-1])} bytes: past 4 GiB")
    return at.astype(_OFFSET).tobytes()


def strings_columns(strings: Iterable[str]) -> tuple[bytes, bytes]:
    """Strings as columns: a msgpack array of them, and where each element starts in it
    (uint32 LE, one more: the end). One decode reads them all; a slice reads one."""
    items = list(strings)
    blob = _ENCODE_STRINGS(items)
    sizes = np.fromiter((_str_size(len(s.encode())) for s in items), dtype=_U64,
                        count=len(items))
    at = np.empty(len(items) + 1, dtype=_U64)
    at[0] = len(blob) - int(sizes.sum())  # after the array's header
    np.cumsum(sizes, out=at[1:])
    at[1:] += at[0]
    return blob, _narrow(at)


def _str_size(n: int) -> int:
    """The bytes of a msgpack string of ``n`` UTF-8 bytes, its header included."""
    return n + (1 if n < 32 else 2 if n < 1 << 8 else 3 if n < 1 << 16 else 5)


_ENCODE_STRINGS = msgspec.msgpack.Encoder().encode
_DECODE_STR = msgspec.msgpack.Decoder(str).decode
_DECODE_STRS = msgspec.msgpack.Decoder(list[str]).decode


class Deflated:
    """How a column packs its values: each one raw-deflated on its own against a preset
    ``dictionary`` of typical values (a value is a few hundred bytes, too short to compress
    alone; against the dictionary its field layout and common strings cost a few bits). Each
    value still decodes alone, on first use, as :class:`LazyMap` reads it.

    Deflate's output is a function of its input and settings, so the columns stay canonical
    for one zlib; across builds of zlib it may differ, so what must compare across them (the
    digests) is taken over the plain values."""

    __slots__ = ("dictionary",)

    def __init__(self, dictionary: bytes) -> None:
        self.dictionary = dictionary

    def pack(self, plain: bytes) -> bytes:
        """The packed bytes of a plain value."""
        # Level 6 (zlib's default): 9 packs these no smaller at a third more time.
        packer = zlib.compressobj(6, zlib.DEFLATED, -15, 9, zlib.Z_DEFAULT_STRATEGY,
                                  self.dictionary)
        return packer.compress(plain) + packer.flush()

    def unpack(self, packed: bytes | memoryview) -> bytes:
        """The plain bytes of a packed value; ValueError when it does not inflate whole."""
        try:
            inflater = zlib.decompressobj(-15, self.dictionary)
            plain = inflater.decompress(packed)
        except zlib.error as exc:
            raise ValueError(f"a packed value does not inflate: {exc}") from None
        if not inflater.eof or inflater.unused_data:
            raise ValueError("a packed value is cut short or followed by other bytes")
        return plain


# How many answers of Strings.find a column of strings keeps (a few MB at most).
_FOUND_KEPT = 1 << 16


class Strings(Sequence[str]):
    """Strings read from :func:`strings_columns` in place, each decoded when asked for, with
    the ones appended since kept apart (a loaded index's ids grow as memories are added)."""

    __slots__ = ("_added", "_all", "_found", "at", "blob")

    def __init__(self, blob: bytes | memoryview, at: bytes | memoryview) -> None:
        self.blob = memoryview(blob)
        self.at = memoryview(at).cast("B").cast("I")
        self._added: list[str] = []
        self._all: list[str] | None = None  # every string of the columns, once all were read
        self._found: dict[str, int | None] = {}  # find's answers (see there)
        if len(self.at) == 0 or self.at[-1] != len(self.blob):
            raise ValueError("string offsets do not match their blob")

    def __len__(self) -> int:
        return len(self.at) - 1 + len(self._added)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        base = len(self.at) - 1
        if i < 0:
            i += len(self)
        if 0 <= i < base:
            if self._all is not None:
                return self._all[i]
            return _DECODE_STR(self.blob[self.at[i]:self.at[i + 1]])
        return self._added[i - base]

    def __iter__(self) -> Iterator[str]:
        yield from self.every()
        yield from self._added

    def every(self) -> list[str]:
        """Every string of the columns, decoded in one call and kept (a pass over them all)."""
        if self._all is None:
            self._all = _DECODE_STRS(self.blob)
            if len(self._all) != len(self.at) - 1:
                raise ValueError("strings do not match their offsets")
        return self._all

    def same_as(self, other: Sequence[str]) -> bool:
        """Whether ``other`` holds these strings, in order: the columns' part compared encoded
        as the columns encode it (one encoding, no string decoded)."""
        base = len(self.at) - 1
        if len(other) != len(self):
            return False
        if isinstance(other, Strings) and len(other.at) - 1 == base:
            # Two columns of as many strings: the same strings exactly when the same msgpack
            # array (one encoding of a list), compared without decoding either.
            same_head = _same_bytes(self.blob, other.blob)
        else:
            head = list(other[:base])
            same_head = self._all == head if self._all is not None \
                else _same_bytes(_ENCODE_STRINGS(head), self.blob)
        return same_head and self._added == list(other[base:])

    def extend(self, more: Iterable[str]) -> None:
        """Append strings (kept apart from the columns, which are read-only)."""
        self._added.extend(more)

    def append(self, one: str) -> None:
        """Append one string."""
        self._added.append(one)

    def find(self, key: str) -> int | None:
        """The index of ``key`` among the strings of the columns, which must be sorted (None
        when it is not there); a binary search, no index built.

        The answers are remembered (the columns never change): the write path asks of the
        same keys again and again, most of them keys the columns do not hold (memories added
        since), and each search decodes a string at each of its twenty-odd steps. At most
        :data:`_FOUND_KEPT` are kept, then they are dropped and remembered anew."""
        try:
            return self._found[key]
        except KeyError:
            pass
        base = len(self.at) - 1
        i = bisect_left(self, key, 0, base)
        found = i if i < base and self[i] == key else None
        if len(self._found) >= _FOUND_KEPT:
            self._found.clear()
        self._found[key] = found
        return found


def _same_bytes(one: bytes | memoryview, other: bytes | memoryview) -> bool:
    """``one == other``, compared in place: ``==`` with a memoryview goes item by item, about a
    hundred times slower (the write path compares two views' ids, of every memory, per batch)."""
    return len(one) == len(other) and bool(np.array_equal(np.frombuffer(one, np.uint8),
                                                          np.frombuffer(other, np.uint8)))


def same_strings(one: Sequence[str], other: Sequence[str]) -> bool:
    """Whether two sequences hold the same strings in order (``==`` does not tell a
    :class:`Strings` from a list holding the same)."""
    if isinstance(one, Strings):
        return one.same_as(other)
    if isinstance(other, Strings):
        return other.same_as(one)
    return list(one) == list(other)


class LazyMap(MutableMapping[str, V]):
    """A ``dict[str, V]`` over :class:`MapColumns`, decoding a value on its first use.

    It behaves as the dict the columns were dumped from, read back in their order (sorted keys,
    or ``order``): an item set anew goes last, a changed one keeps its place, one deleted and
    set again goes last, as in a dict. ``decoded`` counts the values decoded (the tests watch
    that an open decodes none)."""

    __slots__ = ("_added", "_cache", "_decode", "_decode_all", "_gone", "_keys", "_order",
                 "_packing", "_value_at", "_values", "decoded")

    def __init__(self, columns: MapColumns, decode: Callable[[Any], V],
                 decode_all: Callable[[bytes], list[V]] | None = None,
                 packing: Deflated | None = None) -> None:
        """``decode``: one value from its bytes; ``decode_all``: a msgpack array of them, which
        a first pass over every value uses (one call instead of a million); ``packing``: how
        the columns' values are packed (None: plain), undone before either decodes."""
        self._packing = packing
        self._keys = Strings(columns.keys, columns.key_at)
        self._values = memoryview(columns.values)
        self._value_at = memoryview(columns.value_at).cast("B").cast("I")
        self._order = memoryview(columns.order).cast("B").cast("I") if columns.order else None
        self._decode, self._decode_all = decode, decode_all
        self._cache: dict[str, V] = {}  # decoded (or replaced) values of the columns' keys
        self._gone: set[int] = set()  # indexes of the columns' keys deleted since
        self._added: dict[str, V] = {}  # keys not in the columns (or deleted and set again)
        self.decoded = 0

    def _find(self, key: str) -> int | None:
        """The index of a live key of the columns, or None."""
        i = self._keys.find(key)
        return None if i is None or i in self._gone else i

    def _value(self, i: int) -> V:
        self.decoded += 1
        raw = self._values[self._value_at[i]:self._value_at[i + 1]]
        return self._decode(raw if self._packing is None else self._packing.unpack(raw))

    def __getitem__(self, key: str) -> V:
        value = self._cache.get(key, _MISSING)
        if value is _MISSING:
            value = self._added.get(key, _MISSING)
            if value is _MISSING:
                i = self._find(key)
                if i is None:
                    raise KeyError(key)
                value = self._cache[key] = self._value(i)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` (decoded on first use), or ``default``."""
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in self._cache or key in self._added
                                         or self._find(key) is not None)

    def __setitem__(self, key: str, value: V) -> None:
        if key in self._cache:
            self._cache[key] = value
        elif key not in self._added and self._find(key) is not None:
            self._cache[key] = value  # a key of the columns keeps its place
        else:
            self._added[key] = value

    def __delitem__(self, key: str) -> None:
        if key in self._added:
            del self._added[key]
            return
        i = self._find(key)
        if i is None:
            raise KeyError(key)
        self._gone.add(i)
        self._cache.pop(key, None)

    def __len__(self) -> int:
        return len(self._keys) - len(self._gone) + len(self._added)

    def _indexes(self) -> Iterator[int]:
        gone = self._gone
        indexes = self._order if self._order is not None else range(len(self._keys))
        return (i for i in indexes if i not in gone) if gone else iter(indexes)

    def __iter__(self) -> Iterator[str]:
        keys = self._keys.every()  # a pass over every key
        return chain((keys[i] for i in self._indexes()), self._added)

    def items(self) -> _Items[V]:
        """The items in the map's order (a first pass decodes every value at once)."""
        return _Items(self)

    def values(self) -> _Values[V]:
        """The values in the map's order (a first pass decodes every value at once)."""
        return _Values(self)

    def _iter_items(self) -> Iterator[tuple[str, V]]:
        cache = self._cache
        if self._decode_all is not None and len(cache) < (len(self._keys) + 1) // 2:
            self._decode_every()
        keys = self._keys.every()
        for i in self._indexes():
            key = keys[i]
            value = cache.get(key, _MISSING)
            if value is _MISSING:
                value = cache[key] = self._value(i)
            yield key, value
        yield from self._added.items()

    def _decode_every(self) -> None:
        """Decode every value not decoded yet, in one call (a sweep reads them all)."""
        assert self._decode_all is not None
        n = len(self._keys)
        header = (bytes([0x90 | n]) if n < 16 else b"\xdc" + n.to_bytes(2, "big")
                  if n < 1 << 16 else b"\xdd" + n.to_bytes(4, "big"))
        at, packing = self._value_at, self._packing
        body = bytes(self._values[at[0]:at[n]]) if packing is None else b"".join(
            packing.unpack(self._values[at[i]:at[i + 1]]) for i in range(n))
        values = self._decode_all(header + body)
        keys, cache, gone = self._keys.every(), self._cache, self._gone
        for i, value in enumerate(values):
            if i not in gone:
                cache.setdefault(keys[i], value)  # one decoded before may have changed since
        self.decoded += n

    def encoded_items(self, encode: Callable[[V], bytes], *,
                      plain: bool = False) -> list[tuple[str, bytes]]:
        """(key, encoded value) of every item, sorted by key: the columns' bytes of a value
        never decoded, ``encode`` of the others (which gives the same bytes for one unchanged).
        ``plain``: the columns' bytes unpacked (``encode`` then gives plain bytes)."""
        keys, cache, values, at = self._keys.every(), self._cache, self._values, self._value_at
        unpack = self._packing.unpack if plain and self._packing is not None else bytes
        out = []
        for i in range(len(keys)):
            if i in self._gone:
                continue
            key = keys[i]
            value = cache.get(key, _MISSING)
            out.append((key, unpack(values[at[i]:at[i + 1]]) if value is _MISSING
                        else encode(value)))
        if self._added:
            out.extend((key, encode(value)) for key, value in self._added.items())
            out.sort()
        return out


class _Values(ValuesView[V]):
    """The values in the map's order, decoding each once (one pass, no key lookups)."""

    _mapping: LazyMap[V]

    def __iter__(self) -> Iterator[V]:
        return (value for _, value in self._mapping._iter_items())


class _Items(ItemsView[str, V]):
    """The items in the map's order, decoding each value once."""

    _mapping: LazyMap[V]

    def __iter__(self) -> Iterator[tuple[str, V]]:
        return self._mapping._iter_items()

"""The memory-to-memory links of one namespace, as the graph fold holds them and as a snapshot
stores them.

A link is held by both of its memories: the carrier holds ``(other, relation, True)``, the other
end ``(carrier, relation, False)``, each with the link's weight. The fold keeps one dict per memory
keyed that way, so finding, reinforcing and dropping a link cost O(1) however many the memory holds.
A key is one string (:func:`link_key`), not a tuple: a rebuild makes a million of them, and a
dict of strings and floats is invisible to the cyclic garbage collector while a million tuples
would cost it a full pass. Memory ids are made by the engine (``mem_`` and hex) and relations are
names: neither holds a character below a space, so the strings sort as the tuples would.

A snapshot stores them in columns (:class:`LinksDump`): the holders' ids once, every link as an
index into them plus a relation code and a weight, in canonical order (holders sorted, each
holder's links sorted by other, relation, direction). Decoding that is a few byte copies instead of
a million small structs, and a loaded store turns a memory's rows into its dict only when the fold
first touches that memory; queries read the rows in place.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

import msgspec
import numpy as np

from projections.columns import Strings

# link_key(the other memory, relation, outgoing: whether the holder is the carrier) -> weight
Key = str
Bucket = dict[Key, float]

SEP = "\x00"  # between the other memory and the relation
IN, OUT = "\x01", "\x02"  # the last character: the direction (False sorts before True)


def link_key(other: str, relation: str, outgoing: bool) -> Key:
    """The bucket key of a link as one of its memories holds it."""
    return f"{other}{SEP}{relation}{OUT if outgoing else IN}"


def split_link(key: Key) -> tuple[str, str, bool]:
    """(other, relation, outgoing) of a bucket key."""
    cut = key.rindex(SEP)
    return key[:cut], key[cut + 1:-1], key[-1] == OUT


def _parts(key: Key) -> tuple[str, str]:
    cut = key.rindex(SEP)
    return key[:cut], key[cut + 1:]


def flip(key: Key, holder: str) -> Key:
    """The key the other end holds for the link ``holder`` holds under ``key``."""
    cut = key.rindex(SEP)
    return f"{holder}{key[cut:-1]}{IN if key[-1] == OUT else OUT}"

_U32, _U16, _F64 = np.dtype("<u4"), np.dtype("<u2"), np.dtype("<f8")


class LinksDump(msgspec.Struct, array_like=True, gc=False):
    """Every link of a namespace, in columns, canonical (a function of the links alone)."""

    ids: tuple[str, ...]  # the memories holding links, sorted
    relations: tuple[str, ...]  # the relation names used, sorted
    counts: bytes  # uint32 LE per holder: how many links it holds
    others: bytes  # uint32 LE per link: the other memory, as an index into ids
    codes: bytes  # uint16 LE per link: relation index * 2 + outgoing
    weights: bytes  # float64 LE per link


_EMPTY = LinksDump((), (), b"", b"", b"", b"")


class _Base:
    """The rows of a loaded dump, read in place until the fold takes a holder's rows."""

    __slots__ = ("codes", "ids", "offsets", "others", "pos", "relations", "weights")

    def __init__(self, dump: LinksDump) -> None:
        n = len(dump.ids)
        counts = np.frombuffer(dump.counts, dtype=_U32)
        others = np.frombuffer(dump.others, dtype=_U32)
        codes = np.frombuffer(dump.codes, dtype=_U16)
        weights = np.frombuffer(dump.weights, dtype=_F64)
        if len(counts) != n or not (len(others) == len(codes) == len(weights) == int(counts.sum())):
            raise ValueError("link columns do not match their holders")
        if len(others) and (int(others.max()) >= n or int(codes.max()) >= 2 * len(dump.relations)):
            raise ValueError("a link refers past its tables")
        self.ids = dump.ids
        self.relations = dump.relations
        self.offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=self.offsets[1:])
        self.others, self.codes, self.weights = others, codes, weights
        # holder -> its row in ids, for the holders whose rows the fold has not taken yet
        self.pos: dict[str, int] | _Untaken = (
            _Untaken(dump.ids) if isinstance(dump.ids, Strings)
            else {mid: i for i, mid in enumerate(dump.ids)})

    def rows(self, i: int) -> Iterator[tuple[str, str, bool, float]]:
        """(other, relation, outgoing, weight) of holder ``i``, in canonical order."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        ids, relations = self.ids, self.relations
        for other, code, weight in zip(self.others[lo:hi].tolist(), self.codes[lo:hi].tolist(),
                                       self.weights[lo:hi].tolist(), strict=True):
            yield ids[other], relations[code >> 1], bool(code & 1), weight


class _Untaken:
    """``_Base.pos`` over ids read in place from a snapshot (:class:`Strings`, sorted): the
    holders whose rows the fold has not taken, found by binary search; no dict of a million
    ids is built at open."""

    __slots__ = ("ids", "taken")

    def __init__(self, ids: Strings) -> None:
        self.ids, self.taken = ids, set[int]()

    def get(self, mid: str) -> int | None:
        i = self.ids.find(mid)
        return None if i is None or i in self.taken else i

    def __getitem__(self, mid: str) -> int:
        i = self.get(mid)
        if i is None:
            raise KeyError(mid)
        return i

    def pop(self, mid: str, default: None = None) -> int | None:
        i = self.get(mid)
        if i is not None:
            self.taken.add(i)
        return i

    def __len__(self) -> int:
        return len(self.ids) - len(self.taken)

    def __iter__(self) -> Iterator[str]:
        taken = self.taken
        return (mid for i, mid in enumerate(self.ids) if i not in taken)


class Links:
    """The links of one namespace: a bucket per memory holding any (see the module docstring).

    ``buckets`` holds the memories the fold has touched since the last load; the others stay in
    the loaded columns. The fold reads ``buckets`` directly and falls back to :meth:`bucket`.
    """

    __slots__ = ("_base", "buckets")

    def __init__(self, dump: LinksDump | None = None) -> None:
        self.buckets: dict[str, Bucket] = {}
        self._base = _Base(dump) if dump is not None and dump.ids else None

    def __len__(self) -> int:
        """How many memories hold at least one link."""
        return len(self.buckets) + (len(self._base.pos) if self._base is not None else 0)

    def get(self, mid: str) -> Bucket | None:
        """The bucket of ``mid`` for the fold to change (taken from the loaded rows if need be),
        or None when it holds no link."""
        found = self.buckets.get(mid)
        if found is None and self._base is not None:
            i = self._base.pos.pop(mid, None)
            if i is not None:
                found = self.buckets[mid] = {
                    f"{other}{SEP}{relation}{OUT if outgoing else IN}": weight
                    for other, relation, outgoing, weight in self._base.rows(i)}
        return found

    def bucket(self, mid: str) -> Bucket:
        """The bucket of ``mid``, created empty when it holds no link (the caller fills it)."""
        found = self.get(mid)
        if found is None:
            found = self.buckets[mid] = {}
        return found

    def pop(self, mid: str) -> Bucket:
        """Remove and return the bucket of ``mid`` (empty when it held none)."""
        found = self.get(mid)
        if found is None:
            return {}
        del self.buckets[mid]
        return found

    def discard(self, mid: str, key: Key) -> None:
        """Drop one link of ``mid`` (if held), and its bucket once empty."""
        found = self.get(mid)
        if found is not None and found.pop(key, None) is not None and not found:
            del self.buckets[mid]

    def view(self, mid: str) -> list[tuple[str, str, float, bool]]:
        """(other, relation, weight, outgoing) of every link ``mid`` holds, without changing
        anything (a query)."""
        found = self.buckets.get(mid)
        if found is not None:
            return [(other, relation, weight, outgoing)
                    for (other, relation, outgoing), weight in zip(
                        map(split_link, found), found.values(), strict=True)]
        i = self._base.pos.get(mid) if self._base is not None else None
        if i is None:
            return []
        return [(other, relation, weight, outgoing)
                for other, relation, outgoing, weight in self._base.rows(i)]  # type: ignore[union-attr]

    def dump(self) -> LinksDump:
        """The canonical columns of every link held (see :class:`LinksDump`)."""
        base = self._base
        if not self.buckets:
            if base is None:
                return _EMPTY
            if len(base.pos) == len(base.ids):  # untouched since the load: already canonical
                return LinksDump(tuple(base.ids), base.relations, np.diff(base.offsets).astype(_U32)
                                 .tobytes(), base.others.tobytes(), base.codes.tobytes(),
                                 base.weights.tobytes())
        # Rows of the holders still in the loaded columns, then the buckets' rows; sorted below.
        kept = sorted(base.pos) if base is not None else []
        ids = sorted(kept + list(self.buckets))  # disjoint: a taken holder left base.pos
        index = {mid: i for i, mid in enumerate(ids)}
        buckets = self.buckets
        total = sum(map(len, buckets.values()))
        holder = np.repeat(np.fromiter(map(index.__getitem__, buckets), np.int64, len(buckets)),
                           np.fromiter(map(len, buckets.values()), np.int64, len(buckets)))
        # Every key split at once: joined by the separator, the parts alternate between the
        # other memory and the relation with its direction (a handful of distinct strings).
        parts = SEP.join(chain.from_iterable(buckets.values())).split(SEP) if total else []
        if len(parts) != 2 * total:  # an id holding the separator (no engine makes one)
            parts = [part for key in chain.from_iterable(buckets.values())
                     for part in _parts(key)]
        others: list[str] = parts[0::2]
        tails: list[str] = parts[1::2]
        del parts
        kinds = set(tails)
        names = sorted({tail[:-1] for tail in kinds}
                       | set(base.relations if base is not None else ()))
        rel_index = {name: i for i, name in enumerate(names)}
        tail_code = {tail: 2 * rel_index[tail[:-1]] + (tail[-1] == OUT) for tail in kinds}
        cols: list[np.ndarray] = [
            holder, np.fromiter(map(index.__getitem__, others), np.int64, total),
            np.fromiter(map(tail_code.__getitem__, tails), np.int64, total),
            np.fromiter(chain.from_iterable(map(dict.values, buckets.values())), np.float64,
                        total)]
        if base is not None and kept:
            cols = _with_base_rows(cols, base, kept, index, rel_index)
        holder, other, code, weight = cols
        order = _canonical_order(holder, other, code, len(ids), len(names))
        counts = np.bincount(holder, minlength=len(ids))
        used = np.flatnonzero(counts)  # a holder whose bucket emptied holds nothing
        if len(used) != len(ids):
            return _without_empty(ids, names, counts, holder[order], other[order],
                                  code[order], weight[order])
        return _pack(ids, names, counts, other[order], code[order], weight[order])


def _canonical_order(holder: np.ndarray, other: np.ndarray, code: np.ndarray, n: int,
                     relations: int) -> np.ndarray:
    """The order of the rows by holder, then other, relation, direction. The three are unique
    per row, so one sort of a combined key (when it fits in 63 bits) gives the same order as a
    three-key sort, in a third of the time."""
    span = 2 * max(relations, 1)
    if n * n * span < 1 << 62:
        return np.argsort((holder * n + other) * span + code)
    return np.lexsort((code, other, holder))


def _with_base_rows(cols: list[np.ndarray], base: _Base, kept: list[str], index: dict[str, int],
                    rel_index: dict[str, int]) -> list[np.ndarray]:
    """``cols`` plus the loaded rows of the holders in ``kept``, renumbered to the new tables."""
    old_pos = np.fromiter((base.pos[mid] for mid in kept), dtype=np.int64, count=len(kept))
    counts = np.diff(base.offsets)
    mask = np.zeros(len(base.ids), dtype=bool)
    mask[old_pos] = True
    row_holder = np.repeat(np.arange(len(base.ids)), counts)
    rows = np.flatnonzero(mask[row_holder])
    renumber = np.fromiter((index.get(mid, -1) for mid in base.ids), dtype=np.int64,
                           count=len(base.ids))
    recode = np.array([2 * rel_index[name] + d for name in base.relations for d in (0, 1)],
                      dtype=np.int64)
    other = renumber[base.others[rows].astype(np.int64)]
    if len(other) and int(other.min()) < 0:
        raise ValueError("a loaded link refers to a memory that holds no link")
    return [np.concatenate((cols[0], renumber[row_holder[rows]])),
            np.concatenate((cols[1], other)),
            np.concatenate((cols[2], recode[base.codes[rows].astype(np.int64)])),
            np.concatenate((cols[3], base.weights[rows]))]


def _without_empty(ids: list[str], names: list[str], counts: np.ndarray, holder: np.ndarray,
                   other: np.ndarray, code: np.ndarray, weight: np.ndarray) -> LinksDump:
    keep = np.flatnonzero(counts)
    renumber = np.full(len(ids), -1, dtype=np.int64)
    renumber[keep] = np.arange(len(keep))
    return _pack([ids[i] for i in keep.tolist()], names, counts[keep], renumber[other], code,
                 weight)


def _pack(ids: list[str], names: list[str], counts: np.ndarray, other: np.ndarray,
          code: np.ndarray, weight: np.ndarray) -> LinksDump:
    present = np.bincount(code >> 1, minlength=len(names)).astype(bool).tolist()
    used = [name for name, there in zip(names, present, strict=True) if there]
    if used != names:  # only the relations still held name the table: canonical
        new = {name: i for i, name in enumerate(used)}
        remap = np.array([2 * new.get(name, 0) + d for name in names for d in (0, 1)],
                         dtype=np.int64)
        code, names = remap[code], used
    return LinksDump(tuple(ids), tuple(names), counts.astype(_U32).tobytes(),
                     other.astype(_U32).tobytes(), code.astype(_U16).tobytes(),
                     weight.astype(_F64).tobytes())

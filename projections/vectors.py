"""The vector projection: per namespace, a float32 matrix of unit rows with cosine search.

One matrix per namespace makes isolation structural: a search in one namespace never touches
another's rows. Rows grow by doubling the capacity, so an append costs the same at 1M as at 1k.

Search is exact by default (a matrix-vector product). Once a namespace has ANN indexes over runs
of its rows (:mod:`projections.ann`: the runs are a function of the log, the indexes a cache
built by :meth:`Vectors.build_indexes` during maintenance), ``search(..., exact=False)`` asks
each index and searches only the rows no index covers (the fresh tail) exactly. The indexes are
left out of the digest, and a store without them answers exactly. Each row's slot (its ordinal
among the namespace's ingests, which places the runs) is part of the state.

Rows of memories gone cold (archived, dormant: :data:`COLD_STATUSES`) are kept as int8 codes
with a scale (:mod:`projections.quantize`) in stores that record ``cold_vectors="int8"``: the
fold decides it from the logged transitions, so it is part of the state, the digest and the
snapshot, and every decision made against such a row (the write gate's, the dream cycle's) is
re-derived by the audit from the same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import msgspec
import numpy as np

from eventmem.events import (
    EmbedderRegistered,
    LifecycleTransitioned,
    MemoriesDormant,
    MemoryErased,
    MemoryIngested,
    TierChanged,
    purged_ids,
)
from eventmem.storage.envelope import Envelope
from projections import ann, quantize
from projections.ann import Segment
from projections.topk import SubsetIds, top_allowed

# The bytes of a row's content key: a content hash (hex in events) as the store keys it.
KEY_SIZE = 16


class Space:
    """The rows of one namespace with their slots (see :mod:`projections.ann`), and the ANN
    segments over some of them (a cache, ordered by row, never overlapping).

    A row is float32 (*warm*) or int8 codes with a scale (*cold*, :mod:`projections.quantize`).
    While no row is cold, ``matrix`` holds every row, row ``r`` at ``matrix[r]``. Once one is,
    ``matrix`` holds the warm rows and ``codes``/``scales`` the cold ones, each in row order;
    ``cold`` says which a row is and ``place`` where it sits in its array. Readers go through
    :meth:`block`, :meth:`take` and :meth:`similarities`, which give every row as float32.
    """

    __slots__ = ("codes", "cold", "count", "ids", "keys", "matrix", "next_slot", "place",
                 "scales", "segments", "slots")

    def __init__(self, dim: int, ids: list[str] | None = None, matrix: np.ndarray | None = None,
                 slots: np.ndarray | None = None, next_slot: int | None = None, *,
                 cold: np.ndarray | None = None, codes: np.ndarray | None = None,
                 scales: np.ndarray | None = None, keys: np.ndarray | None = None):
        self.ids: list[str] = ids or []
        self.count = len(self.ids)
        self.matrix = matrix if matrix is not None else np.zeros((16, dim), dtype=np.float32)
        # The content key of each row (the 16 bytes of its ingest's content hash; zeros where
        # the row was added without one): which row of the store's vector cache it is, so that
        # a snapshot can name the rows instead of holding a second copy of them.
        self.keys = keys if keys is not None else np.zeros((max(16, self.count), KEY_SIZE),
                                                            dtype=np.uint8)
        # The slot of each row (rising; full to capacity), and the next one.
        self.slots = slots if slots is not None else np.arange(max(16, self.count),
                                                               dtype=np.int64)
        self.next_slot = self.count if next_slot is None else next_slot
        self.segments: list[Segment] = []
        self.codes = codes if codes is not None else np.zeros((0, dim), dtype=np.int8)
        self.scales = scales if scales is not None else np.zeros(0, dtype=np.float32)
        # None while no row is cold (the matrix's row r is then row r: no look-up at all).
        self.cold: np.ndarray | None = None
        self.place: np.ndarray | None = None
        if cold is not None:
            self._set_cold(cold)

    @property
    def warm_rows(self) -> int:
        """How many rows are float32 (the rest are cold)."""
        return self.count - len(self.codes)

    def _set_cold(self, cold: np.ndarray) -> None:
        """Take ``cold`` (a bool per row) and place every row in its array."""
        if not cold.any():
            self.cold = self.place = None
            return
        self.cold = np.array(cold, dtype=bool)
        self.place = np.empty(len(cold), dtype=np.int64)
        self.place[~self.cold] = np.arange(len(cold) - int(self.cold.sum()))
        self.place[self.cold] = np.arange(int(self.cold.sum()))

    def block(self, lo: int, hi: int) -> np.ndarray:
        """The rows [lo, hi) as float32, cold ones dequantized (a view while none is cold)."""
        if self.cold is None:
            return self.matrix[lo:hi]
        return self.take(np.arange(lo, hi, dtype=np.int64))

    def take(self, rows: np.ndarray | list[int]) -> np.ndarray:
        """These rows as float32 (a copy), cold ones dequantized."""
        rows = np.asarray(rows, dtype=np.int64)
        if self.cold is None or self.place is None:
            return self.matrix[rows]
        cold, place = self.cold[rows], self.place[rows]
        out = np.empty((len(rows), self.matrix.shape[1]), dtype=np.float32)
        out[~cold] = self.matrix[place[~cold]]
        out[cold] = quantize.dequantize(self.codes[place[cold]], self.scales[place[cold]])
        return out

    def similarities(self, query: np.ndarray, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Dot products of the rows [lo, hi) with the float32 ``query``: warm rows in one
        product, cold ones dequantized block by block (mixed precision: the query stays
        float32, the codes are widened to it)."""
        hi = self.count if hi is None else hi
        if self.cold is None:
            return self.matrix[lo:hi] @ query
        (w0, c0), (w1, c1) = self._before(lo), self._before(hi)
        cold = self.cold[lo:hi]
        sims = np.empty(hi - lo, dtype=np.float32)
        sims[~cold] = self.matrix[w0:w1] @ query
        sims[cold] = quantize.similarities(self.codes[c0:c1], self.scales[c0:c1], query)
        return sims

    def similarities_at(self, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Dot products of these rows with ``query``, each computed as :meth:`similarities`
        computes it (so a row scores the same found by an index or by a scan)."""
        if self.cold is None or self.place is None:
            return self.matrix[rows] @ query
        cold, place = self.cold[rows], self.place[rows]
        sims = np.empty(len(rows), dtype=np.float32)
        sims[~cold] = self.matrix[place[~cold]] @ query
        sims[cold] = quantize.similarities(self.codes[place[cold]], self.scales[place[cold]],
                                           query)
        return sims

    def _before(self, row: int) -> tuple[int, int]:
        """(warm rows, cold rows) before ``row``."""
        if row >= self.count or self.cold is None or self.place is None:
            return (self.warm_rows, len(self.codes)) if row >= self.count else (row, 0)
        at = int(self.place[row])
        return (row - at, at) if self.cold[row] else (at, row - at)

    def quantize(self, memory_ids: set[str]) -> int:
        """Make the rows of these memories cold (those not already); returns how many. Rows
        stay where they are; ANN indexes holding them get the dequantized rows, as an index
        loaded from a snapshot would."""
        count = self.count
        cold = np.zeros(count, dtype=bool) if self.cold is None else self.cold[:count].copy()
        moving = np.asarray([row for row, mid in enumerate(self.ids)
                             if mid in memory_ids and not cold[row]], dtype=np.int64)
        if not len(moving):
            return 0
        fresh_codes, fresh_scales = quantize.quantize(self.matrix[self._places(moving)])
        now_cold = cold.copy()
        now_cold[moving] = True
        cold_rows = np.flatnonzero(now_cold)
        was = cold[cold_rows]
        codes = np.empty((len(cold_rows), self.matrix.shape[1]), dtype=np.int8)
        scales = np.empty(len(cold_rows), dtype=np.float32)
        if was.any():
            kept = self._places(cold_rows[was])
            codes[was], scales[was] = self.codes[kept], self.scales[kept]
        codes[~was], scales[~was] = fresh_codes, fresh_scales  # both in row order
        self.matrix = self.matrix[self._places(np.flatnonzero(~now_cold))]  # the next add grows it
        self.codes, self.scales = codes, scales
        self._set_cold(now_cold)
        if self.segments:
            rows = quantize.dequantize(fresh_codes, fresh_scales)
            for seg in self.segments:
                inside = (moving >= seg.start) & (moving < seg.start + seg.rows)
                if inside.any():
                    seg.update_rows(moving[inside] - seg.start, rows[inside])
        return len(moving)

    def _places(self, rows: np.ndarray) -> np.ndarray:
        return rows if self.place is None else self.place[rows]

    def remove(self, memory_ids: set[str], *, erased: bool = False) -> None:
        """Drop these rows, keeping the others in order: the same as never having added them
        but for their slots, which stay used. The segments holding them mask them; ``erased``:
        the rows were erased (those segments are then no longer persisted)."""
        keep = [row for row, mid in enumerate(self.ids) if mid not in memory_ids]
        if len(keep) == self.count:
            return
        if self.segments:
            self._remove_from_segments(keep, erased)
        kept = np.asarray(keep, dtype=np.int64)
        if self.cold is None or self.place is None:
            self.matrix = self.matrix[kept]  # full to capacity; the next add grows it
        else:
            cold, place = self.cold[kept], self.place[kept]
            self.matrix = self.matrix[place[~cold]]
            self.codes, self.scales = self.codes[place[cold]], self.scales[place[cold]]
            self._set_cold(cold)
        self.slots = self.slots[kept]
        self.keys = self.keys[kept]
        self.ids = [self.ids[row] for row in kept.tolist()]
        self.count = len(kept)

    def _remove_from_segments(self, keep: list[int], erased: bool) -> None:
        kept = np.zeros(self.count, dtype=bool)
        kept[keep] = True
        dropped = np.flatnonzero(~kept)
        segments = []
        for seg in self.segments:
            end = seg.start + seg.rows
            inside = dropped[(dropped >= seg.start) & (dropped < end)]
            shift = int(np.searchsorted(dropped, seg.start))  # rows dropped before it
            # One attached from a snapshot and not yet used is checked against its ids now,
            # while they are still the ones its fingerprint covers.
            if len(inside) and not seg.fits(self.ids):
                continue
            if len(inside):
                seg.mark_removed(inside - seg.start, erased=erased)
            seg.start -= shift
            if seg.rows:
                segments.append(seg)
        self.segments = segments

    def uncovered(self, segments: list[Segment]) -> list[tuple[int, int]]:
        """The row ranges [lo, hi) that none of ``segments`` (ordered by row) covers."""
        ranges, at = [], 0
        for seg in segments:
            if seg.start > at:
                ranges.append((at, seg.start))
            at = seg.start + seg.rows
        if at < self.count:
            ranges.append((at, self.count))
        return ranges

    def add(self, memory_ids: list[str], rows: np.ndarray, slots: np.ndarray | None = None,
            used: int | None = None, keys: np.ndarray | None = None) -> None:
        """Append warm rows (one per id) in order, at ``slots`` (by default the next ones), then
        take ``used`` slots in all (by default one per row; more when some ingests had no row).
        ``keys``: each row's content key (``(k, KEY_SIZE)`` uint8; by default none, zeros)."""
        k = len(memory_ids)
        if not k:  # ingests without a row take their slots (and nothing is written: a
            self.next_slot += 0 if used is None else used  # loaded space is read-only)
            return
        end, warm = self.count + k, self.warm_rows
        if end > len(self.slots):
            capacity = max(16, len(self.slots) * 2, end)
            self.slots = _grown(self.slots, capacity, self.count)
        if end > len(self.keys):
            self.keys = _grown(self.keys, max(16, len(self.keys) * 2, end), self.count)
        if self.cold is not None and self.place is not None and end > len(self.cold):
            capacity = max(16, len(self.cold) * 2, end)
            self.cold = _grown(self.cold, capacity, self.count)
            self.place = _grown(self.place, capacity, self.count)
        if warm + k > len(self.matrix):
            self.matrix = _grown(self.matrix, max(16, len(self.matrix) * 2, warm + k), warm)
        self.matrix[warm : warm + k] = rows
        if self.cold is not None and self.place is not None:
            self.cold[self.count : end] = False
            self.place[self.count : end] = np.arange(warm, warm + k)
        self.slots[self.count : end] = (np.arange(self.next_slot, self.next_slot + k)
                                        if slots is None else slots)
        self.keys[self.count : end] = 0 if keys is None else keys
        self.ids.extend(memory_ids)
        self.count = end
        self.next_slot += k if used is None else used

    def seal_rows(self, layout: ann.Layout) -> list[tuple[int, int]]:
        """The row ranges [lo, hi) of the runs that get an index (:func:`ann.seals`), less
        those left with too few rows to be worth one (searched exactly)."""
        slots = self.slots[: self.count]
        ranges = []
        for lo, hi in ann.seals(self.next_slot, layout):
            a, b = (int(x) for x in np.searchsorted(slots, (lo, hi)))
            if b - a >= max(2, layout.min_index_rows // 4):
                ranges.append((a, b))
        return ranges

    def serves(self, seg: Segment, lo: int, hi: int, layout: ann.Layout) -> bool:
        """Whether ``seg`` is the index of the rows [lo, hi): the same rows, not too many of its
        own masked, persistable, and built on these ids."""
        return (seg.start == lo and seg.rows == hi - lo and not seg.scrub
                and seg.removed_count <= layout.rebuild_fraction * seg.size
                and seg.fits(self.ids))


class Vectors:
    """The vector projection: a :class:`Space` per namespace, every row of the store's embedder
    dimension ``dim`` (None until ``embedder.registered``; no rows are added before it)."""

    def __init__(self, dim: int | None = None, layout: ann.Layout | None = None) -> None:
        self.dim = dim
        # How the store keeps cold rows (EmbedderRegistered.cold_vectors): "" keeps them float32.
        self.cold_vectors = ""
        self.spaces: dict[str, Space] = {}
        # Read when the projection is made, so that a test can fold with a small layout.
        self.layout = ann.LAYOUT if layout is None else layout

    def search(
        self,
        namespace: str,
        query: np.ndarray,
        n: int,
        allowed: Callable[[str], bool] | None = None,
        *,
        exact: bool = True,
        epsilon: float = ann.EPSILON,
    ) -> list[tuple[str, float]]:
        """The ``n`` nearest allowed memories by cosine (rows and query are unit vectors),
        best first, ties by row.

        ``exact=False`` uses the namespace's ANN indexes where there are any (the answer may
        then miss a few of the true nearest; decisions that audit re-derives must stay exact).
        ``epsilon`` widens the ANN search (more accurate, slower).
        """
        space = self.spaces.get(namespace)
        if space is None or space.count == 0:
            return []
        q = query.astype(np.float32, copy=False)
        if not exact and space.segments:
            found = self._approximate(space, q, n, allowed, epsilon)
            if found is not None:
                return found
        return top_allowed(space.similarities(q), space.ids, n, allowed)

    def _approximate(
        self, space: Space, q: np.ndarray, n: int, allowed: Callable[[str], bool] | None,
        epsilon: float,
    ) -> list[tuple[str, float]] | None:
        """ANN candidates from every usable segment plus every uncovered row, rescored exactly;
        None when the caller should search exactly (no usable index, or too few candidates
        pass ``allowed`` even after over-fetching)."""
        segments = [s for s in space.segments if s.ensure_loaded(space.block, space.ids)]
        if not segments:
            return None
        if n <= 0 or not q.any():  # a query without features matches nothing, as when exact
            return []
        ranges = space.uncovered(segments)
        exact_rows = [np.arange(lo, hi) for lo, hi in ranges]
        exact_sims = [space.similarities(q, lo, hi) for lo, hi in ranges]
        # Each segment holds its share of the answer; one holding more is asked again, deeper.
        covered = sum(seg.rows for seg in segments)
        fetched = [_Fetch(seg, first_fetch(seg.rows, n, covered), q, epsilon, space)
                   for seg in segments]
        while True:
            all_rows = np.concatenate([*exact_rows, *(f.rows for f in fetched)])
            all_sims = np.concatenate([*exact_sims, *(f.sims for f in fetched)])
            picked = top_allowed(all_sims, SubsetIds(space.ids, all_rows), n, allowed,
                                 rows=all_rows)
            # A segment may hold more of the answer when even its last candidate would make it
            # (or when too few passed): fetch deeper there, then decide again.
            bar = picked[-1][1] if len(picked) == n else -np.inf
            deeper = [f for f in fetched if f.may_hold_more(bar)]
            if not deeper:
                return picked
            for f in deeper:
                if f.k >= _MAX_FETCH * f.k0:  # too few allowed near the query for the ANN
                    return None
                f.fetch(f.k * 4, q, epsilon, space)

    def build_indexes(self, namespace: str | None = None, *, limit: int | None = None) -> int:
        """Build the missing ANN indexes (of ``namespace``, or of every namespace); returns how
        many were built. For maintenance: never called on ingest or inside a search.

        Each run of the layout (:meth:`Space.seal_rows`) gets an index over the rows it holds,
        unless it has one (:meth:`Space.serves`); the new index replaces the segments it
        covers (those of the runs merged into it, or its own old one). Runs are visited largest
        first, so that with a ``limit`` (at most that many built per call; None: all) the
        merges that cut the most segments come first.
        """
        layout = self.layout
        built = 0
        names = sorted(self.spaces) if namespace is None else [namespace]
        for ns in names:
            space = self.spaces.get(ns)
            if space is None:
                continue
            # Whether a kept index loads is found out when a search first needs it: checking
            # here would import numba into every maintenance run.
            runs = space.seal_rows(layout)
            # Kept meanwhile: indexes inside a run (its own, or those of the runs merged into
            # it) with no more than the layout's share of their rows masked.
            segments = [s for s in space.segments
                        if s.removed_count <= layout.rebuild_fraction * s.size
                        and any(lo <= s.start and s.start + s.rows <= hi for lo, hi in runs)]
            wanted = [(lo, hi) for lo, hi in runs
                      if not any(space.serves(seg, lo, hi, layout) for seg in segments)]
            for lo, hi in sorted(wanted, key=lambda r: (r[0] - r[1], r[0])):
                if limit is not None and built >= limit:
                    break
                index = ann.build_index(space.block(lo, hi))
                segments = [s for s in segments if s.start + s.rows <= lo or s.start >= hi]
                segments.append(Segment(lo, hi - lo, ann.fingerprint(space.ids[lo:hi]),
                                        ann.dump_index(index), index))
                built += 1
            space.segments = sorted(segments, key=lambda s: s.start)
        return built

    def warm(self) -> int:
        """Load every persisted ANN index now (the first load imports numba: seconds); returns
        how many can serve. Optional: a search loads what it needs."""
        return sum(seg.ensure_loaded(space.block, space.ids)
                   for space in self.spaces.values() for seg in space.segments)

    def ann_status(self, namespace: str) -> dict[str, int]:
        """How much of ``namespace`` the ANN indexes cover: rows, seals (of the layout; those
        long enough to index), segments (indexes), covered rows, and segments that are dirty
        (rows removed since the build, masked) or broken (would not load)."""
        space = self.spaces.get(namespace)
        if space is None:
            return {"rows": 0, "seals": 0, "segments": 0, "covered": 0, "dirty": 0, "broken": 0}
        segs = space.segments
        return {"rows": space.count, "seals": len(space.seal_rows(self.layout)),
                "segments": len(segs), "covered": sum(s.rows for s in segs if not s.broken),
                "dirty": sum(s.dirty for s in segs), "broken": sum(s.broken for s in segs)}

    def ann_dump(self) -> AnnDump | None:
        """The ANN segments, with their tombstone masks, for the snapshot (not the digest); None
        when there are none. Left out: broken ones, and those holding erased rows (see
        :class:`ann.Segment`)."""
        spaces = {
            ns: tuple(SegmentDump(start=s.start, size=s.size, fingerprint=_live_fingerprint(
                          s, space.ids), blob=s.blob, removed=s.packed_removed())
                      for s in space.segments if not s.scrub and not s.broken)
            for ns, space in sorted(self.spaces.items())
        }
        spaces = {ns: segs for ns, segs in spaces.items() if segs}
        return AnnDump(format=ann.FORMAT, spaces=spaces) if spaces else None

    def attach_ann(self, dump: AnnDump) -> None:
        """Take the ANN segments of a snapshot. Each is checked against the rows when first
        used (see :meth:`ann.Segment.ensure_loaded`); ones that do not fit the layout are
        dropped here (their rows are then searched exactly)."""
        if dump.format != ann.FORMAT:
            return
        for ns, segs in dump.spaces.items():
            space = self.spaces.get(ns)
            if space is None:
                continue
            at, segments = 0, []
            for d in sorted(segs, key=lambda d: d.start):
                try:
                    removed = _unpack_removed(d.removed, d.size)
                except ValueError:
                    continue
                rows = d.size - (0 if removed is None else int(removed.sum()))
                if d.start < at or rows < 1 or d.start + rows > space.count:
                    continue
                segments.append(Segment(d.start, d.size, d.fingerprint, d.blob,
                                        removed=removed))
                at = d.start + rows
            space.segments = segments

    def adopt_segments(self, live: Vectors) -> None:
        """Take over the ANN segments of ``live``, the projection this one was just read back
        from a snapshot of (the same rows, so the segments' row numbers hold here).

        The snapshot leaves some segments out (those masking erased rows: see
        :class:`ann.Segment`) and a loaded index is costly to load again, so the live segment
        objects are kept, masks and loaded indexes included, and only their blobs change
        hands: each reads its blob from this projection's snapshot, or holds its own copy
        where the snapshot has none. None keeps reading the file ``live`` was read from,
        which a new snapshot (or an erase) has removed: its pages hold what was erased."""
        self.layout = live.layout
        for ns, space in self.spaces.items():
            held = live.spaces.get(ns)
            if held is None:
                continue
            persisted = {(seg.start, seg.size): seg.blob for seg in space.segments}
            for seg in held.segments:
                blob = persisted.get((seg.start, seg.size))
                seg.blob = seg.own_blob() if blob is None or seg.scrub else blob
            space.segments = held.segments

    def dump(self) -> tuple[VectorsDump, bytes]:
        """The rows' ids per namespace, and the rows as raw bytes: every namespace's warm rows
        (float32) in sorted namespace order, then every namespace's cold codes (int8), kept
        out of msgpack so a snapshot loads them with one copy."""
        ids, parts = self.dump_parts()
        return ids, b"".join(parts)

    def dump_parts(self) -> tuple[VectorsDump, list[memoryview]]:
        """:meth:`dump` with the rows as one view per namespace and precision instead of one
        joined copy (for a writer that copies them once, into its own buffer)."""
        names = sorted(self.spaces)
        spaces = [self.spaces[ns] for ns in names]
        ids = {ns: tuple(space.ids) for ns, space in zip(names, spaces, strict=True)}
        # Slots only where they are not simply the row numbers (some rows were removed).
        slots = {ns: space.slots[: space.count].tobytes()
                 for ns, space in zip(names, spaces, strict=True)
                 if space.next_slot != space.count}
        next_slot = {ns: self.spaces[ns].next_slot for ns in slots}
        # Which rows are cold, and their scales: only for the namespaces with cold rows.
        cold = {ns: np.packbits(space.cold[: space.count]).tobytes()
                for ns, space in zip(names, spaces, strict=True) if space.cold is not None}
        scales = {ns: self.spaces[ns].scales.tobytes() for ns in cold}
        # A leading slice of a C-contiguous matrix is contiguous: a view, no copy. The float32
        # rows come first, so that they start aligned where the snapshot aligns the rows.
        parts = [np.ascontiguousarray(space.matrix[: space.warm_rows])
                 .reshape(-1).view(np.uint8).data for space in spaces]
        parts += [np.ascontiguousarray(self.spaces[ns].codes).reshape(-1).view(np.uint8).data
                  for ns in cold]
        return VectorsDump(dim=self.dim, spaces=ids, slots=slots, next_slot=next_slot,
                           cold=cold, scales=scales, cold_vectors=self.cold_vectors), parts

    def dump_keys(self) -> list[memoryview]:
        """Every row's content key, as :meth:`dump_parts` orders the namespaces (all rows, warm
        and cold, in row order; views of the live arrays)."""
        return [np.ascontiguousarray(self.spaces[ns].keys[: self.spaces[ns].count])
                .reshape(-1).data for ns in sorted(self.spaces)]

    def warm_rows(self) -> list[memoryview]:
        """The float32 rows :meth:`dump_parts` gives first (every namespace's warm rows): what a
        snapshot that names its rows (:func:`warm_keys`) is read back with."""
        return self.dump_parts()[1][: len(self.spaces)]

    def digest_bytes(self) -> bytes:
        """Everything this view holds, ids, rows and their keys, in a canonical order (for
        verify)."""
        dump, parts = self.dump_parts()
        return b"".join([_dump_encoder.encode(dump), *parts, *self.dump_keys()])

    @classmethod
    def load(cls, dump: VectorsDump, rows: memoryview | bytes | bytearray,
             codes: memoryview | bytes | None = None,
             keys: memoryview | bytes | None = None) -> Vectors:
        """Restore from :meth:`dump`'s two parts; ValueError when the rows do not match the ids.
        ``codes``: the cold rows' codes apart (by default they follow the float32 ``rows``);
        ``keys``: the rows' content keys (:meth:`dump_keys`, joined; by default none). The ANN
        segments are attached apart (:meth:`attach_ann`)."""
        vectors = cls(dump.dim)
        vectors.cold_vectors = dump.cold_vectors
        dim = dump.dim or 0
        names = sorted(dump.spaces)
        cold = {}
        for ns in dump.cold:
            count = len(dump.spaces.get(ns, ()))
            if len(dump.cold[ns]) != -(-count // 8):
                raise ValueError("cold rows do not match the ids")
            cold[ns] = np.unpackbits(np.frombuffer(dump.cold[ns], dtype=np.uint8),
                                     count=count).astype(bool)
        n_cold = {ns: int(cold[ns].sum()) if ns in cold else 0 for ns in names}
        n_warm = sum(len(dump.spaces[ns]) - n_cold[ns] for ns in names)
        n_codes = sum(n_cold.values()) * dim
        if codes is None:
            if len(rows) != 4 * n_warm * dim + n_codes:
                raise ValueError("vector rows do not match the ids")
            codes, rows = memoryview(rows)[4 * n_warm * dim:], memoryview(rows)[:4 * n_warm * dim]
        if len(rows) != 4 * n_warm * dim or len(codes) != n_codes:
            raise ValueError("vector rows do not match the ids")
        n_rows = sum(len(dump.spaces[ns]) for ns in names)
        if keys is not None and len(keys) != KEY_SIZE * n_rows:
            raise ValueError("vector keys do not match the ids")
        all_keys = (np.zeros((n_rows, KEY_SIZE), dtype=np.uint8) if keys is None else
                    np.frombuffer(keys, dtype=np.uint8).reshape(n_rows, KEY_SIZE))
        flat = np.frombuffer(rows, dtype=np.float32, count=n_warm * dim)
        if not flat.flags.aligned:  # see Projections.to_bytes: BLAS needs aligned rows
            flat = flat.copy()
        all_codes = np.frombuffer(codes, dtype=np.int8)
        start = at = first = 0
        for ns in names:
            ids = dump.spaces[ns]
            ns_keys, first = all_keys[first:first + len(ids)], first + len(ids)
            end = start + (len(ids) - n_cold[ns]) * dim
            # A read-only view of the snapshot, full to capacity: the first add copies it into a
            # growable matrix, so opening a store never pays for copying vectors it only reads.
            matrix = flat[start:end].reshape(len(ids) - n_cold[ns], dim)
            start = end
            slots = None
            if ns in dump.slots:
                slots = np.frombuffer(dump.slots[ns], dtype=np.int64)
                if slots.shape != (len(ids),):
                    raise ValueError("vector slots do not match the ids")
            if ns in cold:
                scales = np.frombuffer(dump.scales.get(ns, b""), dtype=np.float32)
                if scales.shape != (n_cold[ns],):
                    raise ValueError("cold scales do not match the cold rows")
                ns_codes = all_codes[at : at + n_cold[ns] * dim].reshape(n_cold[ns], dim)
                at += n_cold[ns] * dim
                vectors.spaces[ns] = Space(dim, list(ids), matrix, slots, dump.next_slot.get(ns),
                                           cold=cold[ns], codes=ns_codes, scales=scales,
                                           keys=ns_keys)
            else:
                vectors.spaces[ns] = Space(dim, list(ids), matrix, slots, dump.next_slot.get(ns),
                                           keys=ns_keys)
        return vectors


def warm_keys(dump: VectorsDump, keys: memoryview | bytes) -> np.ndarray:
    """The content keys of the warm rows, in the order :meth:`Vectors.dump_parts` gives those
    rows, from every row's keys (:meth:`Vectors.dump_keys`, joined); ValueError when the keys
    do not match the ids. A row of zeros (no key) stays zeros: the caller cannot fetch it."""
    names = sorted(dump.spaces)
    n_rows = sum(len(dump.spaces[ns]) for ns in names)
    if len(keys) != KEY_SIZE * n_rows:
        raise ValueError("vector keys do not match the ids")
    every = np.frombuffer(keys, dtype=np.uint8).reshape(n_rows, KEY_SIZE)
    parts, first = [], 0
    for ns in names:
        count = len(dump.spaces[ns])
        own, first = every[first:first + count], first + count
        if ns in dump.cold:
            if len(dump.cold[ns]) != -(-count // 8):
                raise ValueError("cold rows do not match the ids")
            cold = np.unpackbits(np.frombuffer(dump.cold[ns], dtype=np.uint8),
                                 count=count).astype(bool)
            own = own[~cold]
        parts.append(own)
    return np.concatenate(parts) if parts else np.zeros((0, KEY_SIZE), dtype=np.uint8)


class VectorsDump(msgspec.Struct, kw_only=True):
    """The vector projection as a snapshot holds it, rows aside: the dimension, each
    namespace's ids in row order, and, for the namespaces that lost rows, each row's slot
    (int64 bytes) and the next slot (they place the ANN runs: see :mod:`projections.ann`); for
    the namespaces with cold rows (:mod:`projections.quantize`), which rows are cold (bits, one
    per row) and their scales (float32 bytes, in row order); and how the store keeps cold rows."""

    dim: int | None
    spaces: dict[str, tuple[str, ...]]
    slots: dict[str, bytes] = {}
    next_slot: dict[str, int] = {}
    cold: dict[str, bytes] = {}
    scales: dict[str, bytes] = {}
    cold_vectors: str = ""  # EmbedderRegistered.cold_vectors


class SegmentDump(msgspec.Struct, kw_only=True, array_like=True):
    """One ANN segment as a snapshot holds it: its first row, the rows it was built on, the
    fingerprint of the ids of those it still has, the index (:func:`projections.ann.dump_index`)
    and its tombstone mask (bits, one per build row; empty when none was removed)."""

    start: int
    size: int
    fingerprint: bytes
    blob: bytes
    removed: bytes = b""


def _live_fingerprint(seg: Segment, ids: list[str]) -> bytes:
    # A clean segment's fingerprint is already that of its live rows; a masked one's is
    # recomputed, so that a reopened store can check the rows it serves.
    if not seg.dirty:
        return seg.fingerprint
    return ann.fingerprint(ids[seg.start : seg.start + seg.rows])


def _unpack_removed(packed: bytes, size: int) -> np.ndarray | None:
    """The tombstone mask of a :class:`SegmentDump` (None when empty); ValueError when it does
    not fit the segment (the segment is then dropped)."""
    if not packed:
        return None
    if len(packed) != -(-size // 8):
        raise ValueError("tombstone mask of another size")
    return np.unpackbits(np.frombuffer(packed, dtype=np.uint8), count=size).astype(bool)


class AnnDump(msgspec.Struct, kw_only=True):
    """The clean ANN segments of every namespace, with the index ``format`` they were built in
    (segments of another format are ignored on load)."""

    format: int
    spaces: dict[str, tuple[SegmentDump, ...]]


# Candidates asked of each segment at first: twice its share of ``n`` (by rows), and at least
# a floor that grows with the index, a little faster than its rows: a larger graph needs a wider
# look to find the same share of the true nearest. Measured on ops.bench.segments' corpus
# (epsilon 0.2, recall@10 against exact search): a 25k index asked 32 found 0.976; a 100k one
# asked 64 found 0.952, 128 0.973, 160 0.980; a 400k one asked 512 found 0.961, 1024 0.975
# (epsilon 0.3 bought the same for about the same time). The floor, _MIN_FETCH at
# _FETCH_ROWS and times (rows / _FETCH_ROWS) ** 1.25 above, asks 182 at 100k and 1024 at 400k.
# Then up to _MAX_FETCH times the first ask before falling back to exact search (when
# ``allowed`` rejects most of what is near the query).
_MIN_FETCH = 32
_FETCH_ROWS = 25_000
_MAX_FETCH = 16


def first_fetch(segment_rows: int, n: int, covered: int) -> int:
    """How many candidates a segment of ``segment_rows`` rows is asked first, for ``n`` answers
    from segments covering ``covered`` rows in all (see above)."""
    share = -(-2 * n * segment_rows // max(covered, 1))
    if segment_rows <= _FETCH_ROWS:
        return max(_MIN_FETCH, share)
    # ceil(_MIN_FETCH * (rows / _FETCH_ROWS) ** 1.25) in integers, so that every machine asks
    # the same: the ceiling of the fourth root of _MIN_FETCH^4 * (rows / _FETCH_ROWS)^5.
    power = -(-(_MIN_FETCH**4) * segment_rows**5 // _FETCH_ROWS**5)
    root = math.isqrt(math.isqrt(power))
    return max(root + (root**4 < power), share)


class _Fetch:
    """What one segment gave for a query: rows and their exact similarities."""

    __slots__ = ("exhausted", "k", "k0", "rows", "segment", "sims")

    def __init__(self, segment: Segment, k: int, q: np.ndarray, epsilon: float,
                 space: Space) -> None:
        self.segment = segment
        self.k0 = k
        self.fetch(k, q, epsilon, space)

    def fetch(self, k: int, q: np.ndarray, epsilon: float, space: Space) -> None:
        self.k = k
        self.rows, self.exhausted = self.segment.query(q, k, epsilon)
        self.sims = space.similarities_at(self.rows, q)  # rescored as an exact search scores

    def may_hold_more(self, bar: float) -> bool:
        if self.exhausted:
            return False
        if not len(self.sims):  # all it gave were purged
            return True
        last = float(self.sims.min())
        return last > 0.0 and last >= bar  # past a non-positive similarity nothing can count


_dump_encoder = msgspec.msgpack.Encoder(order="deterministic")


def apply(state: Vectors, env: Envelope) -> Vectors:
    """Fold one envelope (:func:`apply_many` of one)."""
    return apply_many(state, (env,))


def apply_many(state: Vectors, envs: Iterable[Envelope]) -> Vectors:
    """Fold envelopes in order; rows of consecutive ingests are added in one slice per
    namespace, which is the same as adding them one at a time, only faster."""
    pending: dict[str, _Pending] = {}
    for env in envs:
        event = env.event
        match event:
            case EmbedderRegistered(dim=dim, cold_vectors=cold_vectors):
                _flush(state, pending)
                state.dim, state.cold_vectors = dim, cold_vectors
            case MemoryIngested(namespace=ns) if state.dim is not None:
                # Every ingest takes a slot; one without a vector (its content since purged or
                # erased, in a replay) takes it unused, as the live fold's removal left it.
                batch = pending.get(ns)
                if batch is None:  # (not setdefault: that would make one per ingest)
                    batch = pending[ns] = _Pending()
                if env.vector is not None:
                    batch.ids.append(event.memory_id)
                    batch.rows.append(env.vector)
                    batch.keys.append(event.content_hash)
                    batch.slots.append(batch.used)
                batch.used += 1
            case LifecycleTransitioned(namespace=ns) | MemoryErased(namespace=ns) if (
                    purged := purged_ids(event)):
                _flush(state, pending)
                if ns in state.spaces:
                    # An emptied space is kept, with its slot count: a replay folds the ingests
                    # of memories purged later without their rows (their content is gone), so
                    # it would find the space empty, and drop it, earlier than the live fold
                    # did, and number the next rows from 0 where the live fold went on.
                    state.spaces[ns].remove(set(purged), erased=isinstance(event, MemoryErased))
                if cold := cold_ids(event):  # a sweep may archive some and purge others
                    _quantize(state, ns, cold)
            case LifecycleTransitioned(namespace=ns) | TierChanged(namespace=ns) | MemoriesDormant(
                    namespace=ns) if (cold := cold_ids(event)):
                _flush(state, pending)
                _quantize(state, ns, cold)
            case _:
                pass
    _flush(state, pending)
    return state


# Where a memory's vector goes cold: the statuses and tiers that mean its retention fell so
# far that it left default recall (archived: retention under the archive floor, or stale for
# long; dormant: forgotten by the dream cycle, for a low utility, as redundant, or consolidated
# into a summary). Their vectors are still read (the write gate compares new input with them,
# recall with ``include_hidden`` ranks them), so they are kept, at int8. Stale memories are still
# recalled by default and keep float32; superseded and deleted ones are left as they are (one is
# history the caller may page through, the other gone at the purge).
COLD_STATUSES = frozenset({"archived", "dormant"})
COLD_TIERS = frozenset({"dormant"})


def cold_ids(event: object) -> frozenset[str]:
    """The memories whose vectors an event makes cold (see :data:`COLD_STATUSES`)."""
    if isinstance(event, LifecycleTransitioned):
        return frozenset(c.memory_id for c in event.changes if c.to_status in COLD_STATUSES)
    if isinstance(event, TierChanged):
        return frozenset(c.memory_id for c in event.changes if c.to_tier in COLD_TIERS)
    if isinstance(event, MemoriesDormant):
        return frozenset(c.memory_id for c in event.changes)
    return frozenset()


def _quantize(state: Vectors, namespace: str, memory_ids: frozenset[str]) -> None:
    # One-way: a memory brought back (an access revives an archived or dormant one) keeps its
    # int8 row. Its float32 vector is still in the store's vector cache, but a fold reads only
    # the log; and the row it keeps is the one every decision since its archiving saw.
    space = state.spaces.get(namespace)
    if space is not None and state.cold_vectors == quantize.CODES:
        space.quantize(set(memory_ids))


def _key(content_hash: str) -> bytes:
    """A content hash's key bytes; zeros (no key) for one that is not 16 bytes of hex, which
    the store could not hold (a snapshot then keeps that row itself)."""
    try:
        key = bytes.fromhex(content_hash)
    except (ValueError, TypeError):
        return bytes(KEY_SIZE)
    return key if len(key) == KEY_SIZE else bytes(KEY_SIZE)


def _grown(array: np.ndarray, capacity: int, keep: int) -> np.ndarray:
    """A zeroed array of ``capacity`` rows (of ``array``'s row shape and dtype) holding the
    first ``keep`` rows of ``array``."""
    grown = np.zeros((capacity, *array.shape[1:]), dtype=array.dtype)
    grown[:keep] = array[:keep]
    return grown


class _Pending:
    """Ingests of one namespace waiting to be added in one slice: ids and vectors of those with
    a vector, their slot offsets, and how many slots the ingests take in all."""

    __slots__ = ("ids", "keys", "rows", "slots", "used")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.rows: list[bytes] = []
        self.keys: list[str] = []  # content hashes (hex)
        self.slots: list[int] = []
        self.used = 0


def _flush(state: Vectors, pending: dict[str, _Pending]) -> None:
    dim = state.dim or 0
    for ns, batch in pending.items():
        space = state.spaces.get(ns)
        if space is None:
            space = state.spaces[ns] = Space(dim)
        rows = np.frombuffer(b"".join(batch.rows), dtype=np.float32).reshape(len(batch.ids), dim)
        keys = np.frombuffer(b"".join(map(_key, batch.keys)), dtype=np.uint8).reshape(
            len(batch.ids), KEY_SIZE)
        space.add(batch.ids, rows, space.next_slot + np.asarray(batch.slots, dtype=np.int64),
                  batch.used, keys)
    pending.clear()

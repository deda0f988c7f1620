"""Approximate nearest-neighbour indexes over sealed runs of a vector space's rows.

Two things, kept apart:

* The *layout*: which runs get an index. Every row a namespace ever took has a *slot*, its
  ordinal among the namespace's ingests (a removed row keeps its slot, unused). The slots are
  cut into :func:`seals`: runs of :attr:`Layout.base_rows` slots, every :attr:`Layout.fan_in`
  runs of one size merged into one of the next (like an LSM tree's levels), so a namespace of
  1M rows has four runs of 100k-400k, not twenty of 50k. The layout is a pure function of the
  number of slots, so of the log: a replay, which never sees a purged row's vector, still
  counts its slot and cuts the same runs.
* The *indexes*: a :class:`Segment` per run, a pynndescent index built by maintenance over the
  rows the run holds. They are a cache: not in the digest; a missing or unreadable one means
  exact search over its rows (or a build at the next maintenance). Rows removed since an index
  was built (purged, erased) are masked (a tombstone mask per segment, persisted with it) and
  filtered from its answers; maintenance rebuilds the index only once more than
  :attr:`Layout.rebuild_fraction` of its rows are masked. Until a merged run has its index, the
  indexes of the runs it merged keep serving.

pynndescent compiles its build kernels with numba the first time a process builds an index (about
35 s here), so indexes are built only during maintenance or when a caller asks, never on ingest
or inside a query. A built index is stored without its copy of the vectors: the snapshot already
holds them, and :func:`load_index` re-attaches them from the matrix, so a reopened store queries at
once without rebuilding and without doubling the snapshot.
"""

from __future__ import annotations

import hashlib
import math
import pickle
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Layout:
    """How the slots are cut into indexed runs (see :func:`seals`).

    Defaults: runs of 25k, 100k, 400k, 1.6M slots. The slots past the last full base run and
    the base runs too short to index (at most ``fan_in - 1`` of them) are searched exactly: at
    most about 25k rows, 2-3 ms at 256 dimensions. Every row is indexed once per size from 25k
    up: three times on the way to 1M (a cache built in maintenance; the query pays for fewer
    indexes, not the fold).
    """

    base_rows: int = 6_250  # slots sealed together
    fan_in: int = 4  # runs of one size merged into one of the next
    min_index_rows: int = 25_000  # shorter runs are searched exactly (no index)
    # An index with more than this share of its rows masked is rebuilt over the rest; below
    # it, the removed rows stay in the index, masked. Half: a masked index then asks at most
    # twice as many candidates as a clean one.
    rebuild_fraction: float = 0.5


LAYOUT = Layout()


def seals(slots: int, layout: Layout) -> list[tuple[int, int]]:
    """The runs [lo, hi) of the first ``slots`` slots that get an index, in slot order: the
    full base runs, cut greedily into the largest merged sizes (the digits of the run count in
    base ``fan_in``), less those shorter than ``min_index_rows``."""
    runs, at = [], 0
    size = layout.base_rows
    while size * layout.fan_in <= slots:
        size *= layout.fan_in
    while size >= layout.base_rows:
        while slots - at >= size:
            if size >= layout.min_index_rows:
                runs.append((at, at + size))
            at += size
        size //= layout.fan_in
    return runs


N_NEIGHBORS = 48  # graph degree: 48 finds more per unit of search time here than 30 did
RANDOM_STATE = 20_240_601  # a fixed seed: the same rows build the same index
# Search breadth. Measured on 50k rows of the recall benchmark's corpus, asking 32 neighbours:
# recall@10 against exact 0.89 at 0.1, 0.97 at 0.2 (0.35 ms), 0.98 at 0.3 (0.56 ms).
EPSILON = 0.2
FORMAT = 2  # bump when the layout or the build parameters change: older indexes are rebuilt

# The index's own (permuted) copy of the vectors and what pickling drops anyway; re-attached or
# rebuilt by load_index.
_DROPPED = ("_raw_data", "_neighbor_graph", "_rp_forest")


def fingerprint(ids: Sequence[str]) -> bytes:
    """A digest of the ids a segment covers, in order: a loaded index is used only for the rows
    it was built on (an id's vector never changes but to go cold, within a rounding of itself:
    the ids pin the rows too)."""
    return hashlib.blake2b("\x00".join(ids).encode(), digest_size=16).digest()


def build_index(rows: np.ndarray) -> Any:
    """A prepared pynndescent index over ``rows`` (unit float32 vectors; cosine distance).

    One thread and a fixed seed, so the same rows give the same graph. The first call in a
    process compiles numba kernels (tens of seconds).
    """
    from pynndescent import NNDescent  # imported here: numba takes seconds to import

    index = NNDescent(
        np.ascontiguousarray(rows, dtype=np.float32), metric="cosine", n_neighbors=N_NEIGHBORS,
        random_state=RANDOM_STATE, n_jobs=1, compressed=True, low_memory=True,
    )
    index.prepare()
    return index


def dump_index(index: Any) -> bytes:
    """The index's state without its copy of the vectors (pickled; :func:`load_index` restores
    it given the same rows)."""
    state = index.__getstate__()
    for name in _DROPPED:
        state.pop(name, None)
    return bytes([FORMAT]) + pickle.dumps(state, protocol=5)


def load_index(blob: bytes | memoryview, rows: np.ndarray) -> Any:
    """Restore an index dumped by :func:`dump_index` over the same ``rows``.

    Raises ValueError (or whatever unpickling raises) when the blob does not fit; callers treat
    any failure as a missing index. Only load blobs from this store's own snapshots: they are
    pickles.
    """
    from pynndescent import NNDescent

    blob = memoryview(blob)
    if not len(blob) or blob[0] != FORMAT:
        raise ValueError("ANN index of another format")
    state = pickle.loads(blob[1:])
    order = np.asarray(state["_vertex_order"])
    if order.shape != (len(rows),):
        raise ValueError("ANN index built over a different number of rows")
    # pynndescent searches its rows in tree order; it normalized them at build time (already
    # unit here, so normalizing again reproduces them up to the last bit).
    data = np.ascontiguousarray(rows[order], dtype=np.float32)
    norms = np.linalg.norm(data, axis=1, keepdims=True)
    np.divide(data, norms, out=data, where=norms > 0)
    state["_raw_data"] = data
    index = NNDescent.__new__(NNDescent)
    index.__setstate__(state)
    return index


def _zero_rows(index: Any, build_rows: np.ndarray) -> None:
    """Zero an index's own copy of removed rows, as :meth:`Segment.build_rows` gives them to
    an index loaded from a snapshot: a masked index then searches the same way live and
    reopened (and holds no removed vector in memory)."""
    order = getattr(index, "_vertex_order", None)
    data = getattr(index, "_raw_data", None)
    if order is None or data is None:  # not a pynndescent index (a test's stand-in)
        return
    data[np.argsort(order)[build_rows]] = 0.0


def _set_rows(index: Any, build_rows: np.ndarray, rows: np.ndarray) -> None:
    """Set an index's own copy of some rows, normalized as :func:`load_index` gives them."""
    order = getattr(index, "_vertex_order", None)
    data = getattr(index, "_raw_data", None)
    if order is None or data is None:  # not a pynndescent index (a test's stand-in)
        return
    rows = np.array(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    np.divide(rows, norms, out=rows, where=norms > 0)
    data[np.argsort(order)[build_rows]] = rows


class Segment:
    """One run of rows and its index.

    ``start`` is the segment's first row in the space's current numbering and ``size`` the rows
    it was built on. Rows removed since are marked in ``removed`` (by their row at build time)
    and filtered from answers; ``fingerprint`` is that of the ids of the rows it still has. A
    segment whose rows were *erased* is ``scrub``: it serves until maintenance rebuilds it but is
    never persisted, because an index's search tree holds hyperplanes made from its rows'
    vectors, and no trace of an erased vector may reach a file.
    """

    __slots__ = ("_checked", "_lock", "blob", "broken", "fingerprint", "index", "removed", "scrub",
                 "size", "start", "to_row")

    def __init__(self, start: int, size: int, fingerprint: bytes, blob: bytes,
                 index: Any = None, removed: np.ndarray | None = None) -> None:
        self.start = start
        self.size = size
        self.fingerprint = fingerprint
        self.blob = blob
        self.index = index
        self.broken = False  # the blob would not load: search these rows exactly
        self.scrub = False  # holds erased rows: not persisted
        self._checked = index is not None
        self.removed: np.ndarray | None = None  # bool per build row, once any was removed
        self.to_row: np.ndarray | None = None  # build row -> offset from start (-1: removed)
        if removed is not None and removed.any():
            self._set_removed(removed)
        self._lock = threading.Lock()  # an index query reuses per-index scratch buffers

    @property
    def rows(self) -> int:
        """How many of its rows are still in the space."""
        return self.size - self.removed_count

    @property
    def removed_count(self) -> int:
        """How many of the rows it was built on were removed since."""
        return 0 if self.removed is None else int(self.removed.sum())

    @property
    def dirty(self) -> bool:
        """Whether any of its rows was removed since it was built (they are masked)."""
        return self.removed is not None

    def _set_removed(self, removed: np.ndarray) -> None:
        self.removed = removed
        to_row = np.cumsum(~removed) - 1
        to_row[removed] = -1
        self.to_row = to_row

    def mark_removed(self, offsets: np.ndarray, *, erased: bool = False) -> None:
        """Mark rows removed, given as offsets from ``start`` in the numbering before the
        removal; ``erased``: they were erased (the segment is then never persisted)."""
        removed = np.zeros(self.size, dtype=bool) if self.removed is None else self.removed
        alive = np.flatnonzero(~removed)
        removed[alive[offsets]] = True
        self._set_removed(removed)
        self.scrub = self.scrub or erased
        if self.index is not None:
            with self._lock:
                _zero_rows(self.index, alive[offsets])

    def update_rows(self, offsets: np.ndarray, rows: np.ndarray) -> None:
        """The rows at these offsets from ``start`` changed (they went cold: see
        :mod:`projections.quantize`): a loaded index takes them, as one loaded from a snapshot
        would, so that it searches the same way live and reopened. The graph stays: it was
        built on rows these are within a rounding of."""
        if self.index is None:  # loads them from the space when first used
            return
        alive = np.arange(self.size) if self.removed is None else np.flatnonzero(~self.removed)
        with self._lock:
            _set_rows(self.index, alive[offsets], rows)

    def own_blob(self) -> bytes:
        """The blob as this segment still needs it, in memory of its own (not a view of a
        snapshot file): nothing for one that will never read it (loaded and never persisted,
        or broken), else a copy."""
        if self.broken or (self.scrub and self.index is not None):
            return b""
        return bytes(self.blob)

    def packed_removed(self) -> bytes:
        """The tombstone mask as bits (empty when none was removed), for the snapshot."""
        return b"" if self.removed is None else np.packbits(self.removed).tobytes()

    def fits(self, ids: Sequence[str]) -> bool:
        """Whether the space's rows here are still the ones the index was built on (checked once;
        a misfit is *broken*: its rows are searched exactly until maintenance rebuilds it)."""
        if self.index is None and not self.broken and not self._checked:
            end = self.start + self.rows
            self.broken = end > len(ids) or fingerprint(ids[self.start : end]) != self.fingerprint
            self._checked = True
        return not self.broken

    def build_rows(self, block: Callable[[int, int], np.ndarray]) -> np.ndarray:
        """The rows the index was built on, as the space holds them now (``block(lo, hi)``
        gives its rows [lo, hi) as float32): the removed ones come back as zeros (the index
        only needs them to route through the graph, and never returns them)."""
        live = block(self.start, self.start + self.rows)
        if self.removed is None:
            return live
        rows = np.zeros((self.size, live.shape[1]), dtype=np.float32)
        rows[~self.removed] = live
        return rows

    def ensure_loaded(self, block: Callable[[int, int], np.ndarray], ids: Sequence[str]) -> bool:
        """Load the index from its blob if needed (over the rows ``block`` gives, see
        :meth:`build_rows`); False when it cannot serve (then its rows are searched exactly)."""
        if self.index is not None:
            return True
        if not self.fits(ids):
            return False
        try:
            self.index = load_index(self.blob, self.build_rows(block))
        except Exception:  # a cache that fails to load is simply not used
            self.broken = True
            return False
        return True

    def query(self, query: np.ndarray, k: int, epsilon: float) -> tuple[np.ndarray, bool]:
        """The rows (current numbering, removed ones left out) of about the ``k`` nearest
        neighbours of the unit vector ``query``, and whether the segment has no more to give."""
        # Removed rows still sit in the graph: ask for more in proportion, so that they do not
        # crowd out the rows that remain (the caller asks again, deeper, if they still do).
        rows = self.rows
        k = min(math.ceil(k * self.size / rows) if rows else self.size, self.size)
        with self._lock:
            found = self.index.query(query[None, :], k=k, epsilon=epsilon)[0][0]
        local = found[found >= 0].astype(np.int64)
        exhausted = k >= self.size or len(local) < k
        if self.to_row is None:
            return local + self.start, exhausted
        rows_found = self.to_row[local]
        return rows_found[rows_found >= 0] + self.start, exhausted

"""The write path's view of a namespace's nearest memories, as a batch is being decided.

A batch is decided item by item, and every item must see the store exactly as it will stand when
its own events are folded: with the memories created earlier in the batch, and without those the
batch already superseded. :class:`Neighbourhood` gives that view without folding anything: the
projections as they were when the batch began, plus an overlay of the batch's own memories.

An item's candidates are (1) the namespace's most recent ``window`` memories and (2) the memories
sharing one of the item's ``rare_terms`` rarest terms (a near duplicate shares its rare words).
Both sets are fixed by the state alone, so the write path and a later audit find the same ones;
similarities are exact cosines. The window costs one matrix product per namespace per batch and
the rare terms a few short postings lists, so a write costs the same at 1M memories as at 1k.

The caller holds BLAS to one thread (:func:`eventmem.text.blas.single_thread`) around the whole
batch: the similarities feed decisions, and must not depend on how a product was split.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from eventmem.text.normalize import packed_parts
from projections import Projections
from projections.columns import same_strings
from projections.state import MemoryRecord
from projections.text import Index
from projections.vectors import Space

# Statuses whose memories can absorb, merge with or conflict with new input.
GATE_STATUSES = frozenset({"active", "stale", "archived", "dormant"})
# The window's most similar memories that become gate candidates (more than any decision reads,
# so that a few superseded ones among them still leave enough).
_WINDOW_CANDIDATES = 8
_EMPTY = np.zeros(0, dtype=np.float32)
_NO_ORDERS = np.zeros(0, dtype=np.int64)


class Query(NamedTuple):
    """An item as the neighbourhood searches for it."""

    namespace: str
    vector: np.ndarray  # unit float32
    terms: bytes  # packed terms (eventmem.text.normalize.packed_terms)
    session: str | None


class Near(NamedTuple):
    """What an item finds around it."""

    ranked: list[tuple[str, float]]  # eligible candidates by similarity, best first
    window_best: tuple[str, float] | None  # the most similar recent memory, any status (novelty)
    session_similarity: float | None  # to the most similar recent memory of the same session


class _Pending:
    """The memories a batch created in one namespace, in order: their rows, sessions, and
    postings of their terms (kept incrementally: a batch of n costs O(n), not O(n^2))."""

    __slots__ = ("ids", "matrix", "postings", "sessions")

    def __init__(self, dim: int) -> None:
        self.ids: list[str] = []
        self.sessions: list[str | None] = []
        self.matrix = np.zeros((16, dim), dtype=np.float32)
        self.postings: dict[int, list[int]] = {}

    def add(self, memory_id: str, vector: np.ndarray, terms: bytes, session: str | None) -> None:
        j = len(self.ids)
        if j == len(self.matrix):
            self.matrix = np.concatenate([self.matrix, np.zeros_like(self.matrix)])
        self.matrix[j] = vector
        self.ids.append(memory_id)
        self.sessions.append(session)
        _, ids, _ = packed_parts(terms)
        for term in np.frombuffer(ids, dtype=np.uint32).tolist():
            self.postings.setdefault(term, []).append(j)


class Neighbourhood:
    """The nearest memories of each item of a batch, by vector and by rare shared terms, with
    the memories the batch creates and retires as it goes."""

    def __init__(self, views: Projections, queries: list[Query], *, window: int,
                 rare_terms: int, max_term_df: int, keep: int | None = None) -> None:
        """``keep``: how many ranked candidates an item needs at most (None: all of them); the
        ranking is the same, only cut, and fewer candidates need their status read."""
        self._views = views
        self._window, self._rare, self._max_df = window, rare_terms, max_term_df
        self._keep = keep
        self._pending: dict[str, _Pending] = {}
        self._retired: set[str] = set()
        # One product per namespace: every query against the window as the batch began.
        self._start_sims: list[np.ndarray | None] = [None] * len(queries)
        self._start: dict[str, int] = {}  # namespace -> first row of its starting window
        self._session_cache: dict[str, np.ndarray] = {}
        self._aligned: dict[str, bool] = {}  # namespace -> text rows are vector rows
        by_ns: dict[str, list[int]] = {}
        for i, query in enumerate(queries):
            by_ns.setdefault(query.namespace, []).append(i)
        for ns, rows in by_ns.items():
            space = views.vectors.spaces.get(ns)
            if space is None or space.count == 0 or window <= 0:
                continue
            start = max(0, space.count - window)
            self._start[ns] = start
            matrix = np.stack([queries[i].vector for i in rows])
            if matrix.shape[1] != space.matrix.shape[1]:
                continue
            # Cold rows as the vector view holds them (int8, dequantized): the precision the
            # decision is made with, and the one an audit finds at this point of the log.
            sims = matrix @ space.block(start, space.count).T
            for row, i in enumerate(rows):
                self._start_sims[i] = sims[row]

    def add(self, namespace: str, memory_id: str, vector: np.ndarray, terms: bytes,
            session: str | None) -> None:
        """A memory created earlier in the batch: later items see it."""
        pending = self._pending.get(namespace)
        if pending is None:
            pending = self._pending[namespace] = _Pending(len(vector))
        pending.add(memory_id, vector, terms, session)

    def retire(self, memory_id: str) -> None:
        """A memory the batch superseded: later items no longer see it as a candidate."""
        self._retired.add(memory_id)

    def near(self, i: int, query: Query) -> Near:
        """Item ``i``'s neighbourhood (items must be asked in batch order).

        Every candidate is named by its order: its row in the namespace's vectors, or
        ``base + j`` for the batch's ``j``-th memory there. Candidates are ranked by similarity,
        then order (ties go to the older memory); each similarity is the one the window or the
        rare-term product gave it (the window's where both did)."""
        views, ns = self._views, query.namespace
        space = views.vectors.spaces.get(ns)
        pending = self._pending.get(ns)
        n_pending = len(pending.ids) if pending is not None else 0
        base = space.count if space is not None else 0
        # (1) the window: the last ``window`` memories, the batch's own creations included, as
        # one vector of similarities in creation order.
        recent = min(n_pending, max(self._window, 0))
        from_store = self._window - recent
        start_sims = self._start_sims[i]
        store_part = start_sims[-from_store:] if start_sims is not None and from_store > 0 \
            else _EMPTY
        n_store = len(store_part)
        first_row = base - n_store
        first_pending = n_pending - recent
        pending_sims = pending.matrix[:n_pending] @ query.vector if pending is not None \
            else _EMPTY
        window = np.concatenate((store_part, pending_sims[first_pending:])) if recent \
            else store_part
        ids = space.ids if space is not None else []
        batch_ids = pending.ids if pending is not None else []

        def identify(order: int) -> str:
            return ids[order] if order < base else batch_ids[order - base]

        # Window position -> order. The window holds store rows only while it holds every
        # memory of the batch (first_pending == 0); else it is all batch: one offset either way.
        offset = first_row + first_pending

        window_best = None
        session_similarity = None
        take = min(len(window), _WINDOW_CANDIDATES)
        if take:
            best = int(window.argmax())  # the first maximum: the oldest among equals
            window_best = (identify(best + offset), float(window[best]))
            if query.session is not None:
                same = self._sessions(ns, first_row, n_store, pending, first_pending) \
                    == query.session
                session_similarity = float(window[same].max()) if same.any() else None
            top = _top(window, take)
            orders = top + offset
            sims = window[top]
        else:
            orders, sims = _NO_ORDERS, _EMPTY
        # (2) memories sharing the query's rarest terms; a memory both found keeps the window's
        # similarity (the two products may differ in the last bit).
        n_top = len(orders)
        rare_orders, rare_sims = self._rare_term_candidates(query, space, pending, pending_sims)
        if len(rare_orders):
            orders = np.concatenate((orders, rare_orders))
            sims = np.concatenate((sims, rare_sims))
        ranked: list[tuple[str, float]] = []
        if len(orders):
            memories, retired, keep = views.state.memories, self._retired, self._keep
            sim_list = sims.tolist()
            order_list = orders.tolist()
            in_window = set(order_list[:n_top])
            for k in np.lexsort((orders, -sims)).tolist():
                order = order_list[k]
                if k >= n_top and order in in_window:
                    continue
                mid = identify(order)
                if mid not in retired and eligible(memories.get(mid)):
                    ranked.append((mid, sim_list[k]))
                    if len(ranked) == keep:
                        break
        return Near(ranked, window_best, session_similarity)

    def _sessions(self, ns: str, first_row: int, n_store: int, pending: _Pending | None,
                  first_pending: int) -> np.ndarray:
        """The sessions of the window's memories, in window order (only for session items)."""
        cached = self._session_cache.get(ns)
        if cached is None:
            space = self._views.vectors.spaces.get(ns)
            start = self._start.get(ns, 0)
            ids = space.ids[start:space.count] if space is not None else []
            memories = self._views.state.memories
            cached = self._session_cache[ns] = np.array(
                [memories[mid].session or "" for mid in ids], dtype=object)
        store = cached[len(cached) - n_store:] if n_store else cached[:0]
        batch = np.array([s or "" for s in pending.sessions[first_pending:]], dtype=object) \
            if pending is not None else cached[:0]
        return np.concatenate((store, batch))

    def _rare_term_candidates(self, query: Query, space: Space | None, pending: _Pending | None,
                              pending_sims: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(orders, similarities) of the memories sharing one of the query's rarest terms."""
        _, packed_ids, _ = packed_parts(query.terms)
        if not packed_ids or self._rare <= 0:
            return _NO_ORDERS, _EMPTY
        index = self._views.text.indexes.get(query.namespace)
        if index is not None:
            index.seal()  # invisible: the postings are the same sealed or not
        postings = index.postings if index is not None else {}
        pending_rows = pending.postings if pending is not None else {}
        df = []
        for term in np.frombuffer(packed_ids, dtype=np.uint32).tolist():
            entry = postings.get(term)
            batch = pending_rows.get(term)
            count = (len(entry[0]) if entry is not None else 0) + (len(batch) if batch else 0)
            if 0 < count <= self._max_df:
                df.append((count, term))
        if not df:
            return _NO_ORDERS, _EMPTY
        df.sort()
        rows: set[int] = set()
        batch_rows: set[int] = set()
        for _, term in df[: self._rare]:  # each at most max_term_df rows: the cost is bounded
            entry = postings.get(term)
            if entry is not None:
                rows.update(entry[0])
            batch = pending_rows.get(term)
            if batch:
                batch_rows.update(batch)
        orders, sims = _NO_ORDERS, _EMPTY
        if rows and index is not None and space is not None:
            ordered = sorted(rows)
            if self._rows_aligned(query.namespace, index, space):
                vector_rows: list[int] = ordered
            else:
                vector_rows = _vector_rows(space, ordered, [index.ids[row] for row in ordered])
            orders = np.array(vector_rows, dtype=np.int64)
            sims = space.similarities_at(orders, query.vector)  # an index array gathers faster
        if batch_rows:
            js = np.array(sorted(batch_rows), dtype=np.int64)
            base = space.count if space is not None else 0
            orders = np.concatenate((orders, js + base))
            sims = np.concatenate((sims, pending_sims[js]))
        return orders, sims

    def _rows_aligned(self, ns: str, index: Index, space: Space) -> bool:
        """Whether every text-index row is the same row of the vectors (the usual case: both
        add a row per memory in log order), so rows need no look-up; checked once a batch."""
        aligned = self._aligned.get(ns)
        if aligned is None:
            n = len(index.ids)
            # (a loaded index's ids are columns, no list: == would say they differ)
            aligned = self._aligned[ns] = n <= space.count and same_strings(
                index.ids, space.ids if n == len(space.ids) else space.ids[:n])
        return aligned


def _top(values: np.ndarray, take: int) -> np.ndarray:
    """The positions of the ``take`` largest values, as ``np.argpartition(-values, take - 1)``
    picks them. Where the largest ``take`` are strictly above the rest the set is unique, and a
    partition plus a comparison finds it at half the cost (argpartition is slow for a small
    kth); on a tie at the edge, argpartition itself chooses, as it always did."""
    n = len(values)
    if n > take:
        edge = np.partition(values, n - take - 1)[n - take - 1]  # the (take + 1)-th largest
        top = np.flatnonzero(values > edge)
        if len(top) == take:
            return top
    return np.argpartition(-values, take - 1)[:take]


def _vector_rows(space: object, rows: list[int], ids: list[str]) -> list[int]:
    """The vector rows of these text-index rows. Both views add a row for every memory with
    content, in log order, and drop purged ones alike, so the rows coincide; the check keeps a
    mismatch from ever pairing a memory with another's vector."""
    space_ids: list[str] = space.ids  # type: ignore[attr-defined]
    out = []
    for row, mid in zip(rows, ids, strict=True):
        out.append(row if row < len(space_ids) and space_ids[row] == mid else space_ids.index(mid))
    return out


def eligible(record: MemoryRecord | None) -> bool:
    """Whether a memory can absorb, merge with or conflict with new input."""
    # None: created earlier in this batch (not folded yet), so active.
    return record is None or (record.status in GATE_STATUSES and record.invalidated_at is None)



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

The caller holds BLAS to one thread (:func:`eventmem.blas.single_thread`) around the whole
batch: the similarities feed decisions, and must not depend on how a product was split.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from eventmem.text import packed_parts
from projections import Projections
from projections.state import MemoryRecord

# Statuses whose memories can absorb, merge with or conflict with new input.
GATE_STATUSES = frozenset({"active", "stale", "archived", "dormant"})
# The window's most similar memories that become gate candidates (more than any decision reads,
# so that a few superseded ones among them still leave enough).
_WINDOW_CANDIDATES = 8
_EMPTY = np.zeros(0, dtype=np.float32)


class Query(NamedTuple):
    namespace: str
    vector: np.ndarray  # unit float32
    terms: bytes  # packed terms (eventmem.text.packed_terms)
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
    def __init__(self, views: Projections, queries: list[Query], *, window: int,
                 rare_terms: int, max_term_df: int) -> None:
        self._views = views
        self._window, self._rare, self._max_df = window, rare_terms, max_term_df
        self._pending: dict[str, _Pending] = {}
        self._retired: set[str] = set()
        # One product per namespace: every query against the window as the batch began.
        self._start_sims: list[np.ndarray | None] = [None] * len(queries)
        self._start: dict[str, int] = {}  # namespace -> first row of its starting window
        self._session_cache: dict[str, np.ndarray] = {}
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
            sims = matrix @ space.matrix[start:space.count].T
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
        """Item ``i``'s neighbourhood (items must be asked in batch order)."""
        views, ns = self._views, query.namespace
        memories = views.state.memories
        space = views.vectors.spaces.get(ns)
        pending = self._pending.get(ns)
        n_pending = len(pending.ids) if pending is not None else 0
        base = space.count if space is not None else 0
        # (1) the window: the last ``window`` memories, the batch's own creations included, as
        # one vector of similarities in creation order (position = creation order: ties go to
        # the older memory).
        recent = min(n_pending, max(self._window, 0))
        from_store = self._window - recent
        start_sims = self._start_sims[i]
        store_part = start_sims[-from_store:] if start_sims is not None and from_store > 0 \
            else _EMPTY
        first_row = base - len(store_part)
        pending_sims = pending.matrix[:n_pending] @ query.vector if pending is not None \
            else _EMPTY
        window = np.concatenate((store_part, pending_sims[n_pending - recent:]))

        def identify(position: int) -> tuple[str, int]:  # window position -> (id, order)
            if position < len(store_part):
                row = first_row + position
                return space.ids[row], row  # type: ignore[union-attr]
            j = n_pending - recent + position - len(store_part)
            return pending.ids[j], base + j  # type: ignore[union-attr]

        window_best = None
        session_similarity = None
        if len(window):
            best = int(np.argmax(window))  # the first maximum: the oldest among equals
            window_best = (identify(best)[0], float(window[best]))
            if query.session is not None:
                same = self._sessions(ns, first_row, len(store_part), pending,
                                      n_pending - recent) == query.session
                session_similarity = float(window[same].max()) if same.any() else None
        sims: dict[str, float] = {}
        order: dict[str, int] = {}
        take = min(len(window), _WINDOW_CANDIDATES)
        if take:
            top = np.argpartition(-window, take - 1)[:take]
            for position in top.tolist():
                mid, rank = identify(position)
                sims[mid], order[mid] = float(window[position]), rank
        # (2) memories sharing the query's rarest terms.
        for mid, row, sim in self._rare_term_candidates(query, space, pending, pending_sims):
            if mid not in sims:
                sims[mid], order[mid] = sim, row
        ranked = [(mid, sim) for mid, sim in sims.items()
                  if mid not in self._retired and eligible(memories.get(mid))]
        ranked.sort(key=lambda item: (-item[1], order[item[0]]))
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

    def _rare_term_candidates(self, query: Query, space: object, pending: _Pending | None,
                              pending_sims: np.ndarray) -> list[tuple[str, int, float]]:
        index = self._views.text.indexes.get(query.namespace)
        _, packed_ids, _ = packed_parts(query.terms)
        terms = np.frombuffer(packed_ids, dtype=np.uint32).tolist()
        if not terms or self._rare <= 0:
            return []
        if index is not None:
            index.seal()  # invisible: the postings are the same sealed or not
        postings = index.postings if index is not None else {}
        pending_rows = pending.postings if pending is not None else {}
        df = []
        for term in terms:
            entry = postings.get(term)
            count = (len(entry[0]) if entry is not None else 0) + len(pending_rows.get(term, ()))
            if 0 < count <= self._max_df:
                df.append((count, term))
        df.sort()
        rows: set[int] = set()
        batch_rows: set[int] = set()
        for _, term in df[: self._rare]:  # each at most max_term_df rows: the cost is bounded
            entry = postings.get(term)
            if entry is not None:
                rows.update(entry[0])
            batch_rows.update(pending_rows.get(term, ()))
        found: list[tuple[str, int, float]] = []
        if rows and index is not None and space is not None:
            ordered = sorted(rows)
            ids = [index.ids[row] for row in ordered]
            vector_rows = _vector_rows(space, ordered, ids)
            row_sims = (space.matrix[vector_rows] @ query.vector).tolist()  # type: ignore[attr-defined]
            found += [(mid, row, sim) for mid, row, sim in zip(ids, vector_rows, row_sims,
                                                                strict=True)]
        base = space.count if space is not None else 0  # type: ignore[attr-defined]
        if pending is not None:
            found += [(pending.ids[j], base + j, float(pending_sims[j]))
                      for j in sorted(batch_rows)]
        return found


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



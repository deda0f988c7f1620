"""Deterministic top-n selection shared by the search projections."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_SPARSE_FROM = 4_096  # below this, partitioning every score costs next to nothing


def top_allowed(
    scores: np.ndarray,
    ids: Sequence[str],
    n: int,
    allowed: Callable[[str], bool] | None = None,
    *,
    rows: np.ndarray | None = None,
) -> list[tuple[str, float]]:
    """The ``n`` best (id, score) pairs with a positive score among ids that ``allowed`` accepts.

    Ties break by row (insertion order), so the answer is a function of the data alone: ``rows``
    gives each score's row when the scores are a subset of the rows (else a score's position is
    its row). Candidates are widened geometrically until ``n`` allowed ones are found or none are
    left, so a store full of forgotten memories costs more only when they actually crowd the top.
    """
    count = len(scores)
    if n <= 0 or count == 0:
        return []
    if rows is None and count > _SPARSE_FROM:
        # Most rows of a large namespace score 0 for a query (BM25 touches only the rows holding
        # its words): select among the positive ones, one cheap pass, instead of partitioning
        # them all. Their rows break ties, as their positions would.
        positive = np.flatnonzero(scores > 0)
        if len(positive) < count // 2:
            return top_allowed(scores[positive], SubsetIds(ids, positive), n, allowed,
                               rows=positive)
    want = min(count, max(n * 2, 16))
    while True:
        if want < count:
            part = np.argpartition(-scores, want - 1)[:want]
            kth = scores[part].min()
            # Every score tied with the boundary comes along, so which of equal scores are
            # considered is decided by their rows, never by how argpartition split them.
            complete = not kth > 0
            part = np.flatnonzero(scores > 0 if complete else scores >= kth)
        else:
            part, complete = np.arange(count), True
        # lexsort: last key is primary; -score descending, then row ascending.
        order = part[np.lexsort((part if rows is None else rows[part], -scores[part]))]
        picked: list[tuple[str, float]] = []
        for row in order:
            score = float(scores[row])
            if score <= 0.0:
                break
            mid = ids[row]
            if allowed is None or allowed(mid):
                picked.append((mid, score))
                if len(picked) == n:
                    return picked
        if complete:
            return picked
        want = min(count, want * 4)


class SubsetIds(Sequence[str]):
    """The ids of a subset of rows (``ids[rows[i]]``), looked up only for the candidates that
    :func:`top_allowed` actually walks."""

    __slots__ = ("_ids", "_rows")

    def __init__(self, ids: Sequence[str], rows: np.ndarray) -> None:
        self._ids, self._rows = ids, rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: Any) -> Any:
        return self._ids[int(self._rows[i])]

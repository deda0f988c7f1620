"""Deterministic top-n selection shared by the search projections."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# bar() looks at the maxima of groups of this many scores: one pass over the namespace that
# numpy makes at memory speed, leaving a partition of count / _BLOCK values. Below _BLOCK_FROM
# scores a plain partition of them all is as cheap.
_BLOCK = 64
_BLOCK_FROM = 32_768


def bar(scores: np.ndarray, want: int) -> float:
    """A positive score that at least ``want`` of ``scores`` reach (so at most the ``want``-th
    largest), or 0.0 when it finds fewer than ``want`` positive ones: selecting the positive
    scores ``>= bar`` gives every candidate for the top ``want``, and a few more.

    Over many scores it is the ``want``-th largest of the maxima of disjoint groups of scores
    (each maximum a distinct score, so ``want`` of them reach it) instead of the exact
    ``want``-th largest, which would take a partition of every score. A group is every
    ``count // _BLOCK``-th score, so the maxima are one elementwise pass over ``_BLOCK`` rows.
    Only positive values are partitioned: a partition of many equal zeros (most of a
    namespace, for a query) is slow.
    """
    count = len(scores)
    values = scores
    if count >= _BLOCK_FROM and count >= _BLOCK * want:
        whole = count - count % _BLOCK
        values = scores[:whole].reshape(_BLOCK, -1).max(axis=0)
        if whole < count:
            values = np.append(values, scores[whole:].max())
    positive = values[values > 0]
    if len(positive) < want:
        return 0.0
    return float(np.partition(positive, len(positive) - want)[len(positive) - want])


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
    want = min(count, max(n * 2, 16))
    while True:
        if want < count:
            kth = bar(scores, want)
            # Every score tied with the boundary comes along, so which of equal scores are
            # considered is decided by their rows, never by how a partition split them.
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

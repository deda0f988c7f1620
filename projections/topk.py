"""Deterministic top-n selection shared by the search projections."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def top_allowed(
    scores: np.ndarray, ids: Sequence[str], n: int, allowed: Callable[[str], bool] | None = None
) -> list[tuple[str, float]]:
    """The ``n`` best (id, score) pairs with a positive score among ids that ``allowed`` accepts.

    Ties break by row (insertion order), so the answer is a function of the data alone. Candidates
    are widened geometrically until ``n`` allowed ones are found or none are left, so a store full
    of forgotten memories costs more only when they actually crowd the top.
    """
    count = len(scores)
    if n <= 0 or count == 0:
        return []
    want = min(count, max(n * 2, 16))
    while True:
        part = np.argpartition(-scores, want - 1)[:want] if want < count else np.arange(count)
        # lexsort: last key is primary; -score descending, then row ascending.
        order = part[np.lexsort((part, -scores[part]))]
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
        if want >= count or (len(order) and float(scores[order[-1]]) <= 0.0):
            return picked
        want = min(count, want * 4)

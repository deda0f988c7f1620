"""The read path: candidates from every channel, fused by reciprocal rank fusion.

Each channel (vectors, BM25) proposes its best candidates among the memories a recall may return;
RRF (k = 60) fuses their ranks, and every hit keeps its per-channel ranks and raw scores so that a
caller can see why it is there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from eventmem.config import Config
from eventmem.policies.decay import retention
from projections import Projections
from projections.state import HIDDEN_STATUSES, MemoryRecord
from projections.temporal import valid_at as interval_valid_at

Candidate = tuple[str, float, dict[str, float]]  # memory id, fused score, signals


def eligibility(
    views: Projections, namespace: str, *, valid_at: int | None, include_hidden: bool
) -> Callable[[str], bool]:
    """Which memories a recall may return: this namespace; not hidden (deleted, archived...)
    unless asked; true at ``valid_at`` when given."""
    memories = views.state.memories
    intervals = views.temporal.intervals

    def allowed(memory_id: str) -> bool:
        record = memories.get(memory_id)
        if record is None or record.namespace != namespace:
            return False
        if not include_hidden and record.status in HIDDEN_STATUSES:
            return False
        return valid_at is None or interval_valid_at(intervals[memory_id], valid_at)

    return allowed


def rrf(channels: dict[str, list[tuple[str, float]]], k_rrf: int) -> dict[str, dict[str, float]]:
    """Fuse ranked lists: score = sum over channels of 1 / (k + rank), rank from 1."""
    fused: dict[str, dict[str, float]] = {}
    for name, ranked in channels.items():
        for rank, (memory_id, score) in enumerate(ranked, start=1):
            signals = fused.setdefault(memory_id, {"rrf": 0.0})
            signals["rrf"] += 1.0 / (k_rrf + rank)
            signals[name] = score
            signals[f"{name}_rank"] = float(rank)
    return fused


def search(
    views: Projections,
    query: str,
    query_vector: np.ndarray,
    *,
    namespace: str,
    k: int,
    now: int,
    config: Config,
    valid_at: int | None = None,
    include_hidden: bool = False,
) -> list[Candidate]:
    """The top ``k`` memories for ``query`` in ``namespace``, best first, with their signals."""
    allowed = eligibility(views, namespace, valid_at=valid_at, include_hidden=include_hidden)
    n = max(config.candidates_per_channel, k)
    channels = {
        "vector": views.vectors.search(namespace, query_vector, n, allowed),
        "bm25": views.text.search(namespace, query, n, allowed),
    }
    fused = rrf(channels, config.rrf_k)
    memories = views.state.memories
    for memory_id, signals in fused.items():
        record: MemoryRecord = memories[memory_id]
        signals["retention"] = retention(record, now, config.access_stability_gain)
        signals["importance"] = record.importance
    # Ties break by id so the order is a function of the data alone.
    ranked = sorted(fused.items(), key=lambda item: (-item[1]["rrf"], item[0]))
    return [(mid, signals["rrf"], signals) for mid, signals in ranked[:k]]

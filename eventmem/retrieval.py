"""The read path: candidates from every channel, fused by reciprocal rank fusion.

Each channel (vectors, BM25) proposes its best candidates among the memories a recall may return;
RRF (k = 60) fuses their ranks, and every hit keeps its per-channel ranks and raw scores so that a
caller can see why it is there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from eventmem.blas import single_thread
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
    unless asked; true at ``valid_at`` when given (superseded facts included: they were true
    until replaced), else not invalidated.

    Like the lifecycle, expiry counts once a sweep has recorded it (``consolidate`` invalidates
    memories whose valid time has ended): what a recall leaves out changes when maintenance
    runs and says so in the log, not silently as the clock moves.
    """
    memories = views.state.memories
    intervals = views.temporal.intervals

    def allowed(memory_id: str) -> bool:
        record = memories.get(memory_id)
        if record is None or record.namespace != namespace:
            return False
        if include_hidden:
            return valid_at is None or interval_valid_at(intervals[memory_id], valid_at)
        if valid_at is not None:
            # "What was true at T": a superseded fact was, until its successor began.
            hidden = record.status != "superseded" and record.status in HIDDEN_STATUSES
            return not hidden and interval_valid_at(intervals[memory_id], valid_at)
        if record.status in HIDDEN_STATUSES:
            return False
        return record.invalidated_at is None

    return allowed


# How a lifecycle state weighs on ranking: stale memories are still found, below fresh ones.
STATUS_WEIGHT = {"active": 1.0, "stale": 0.5}


def composite(rrf_score: float, record: MemoryRecord) -> tuple[float, float, float]:
    """The final score: fused relevance, scaled by lifecycle (stale x0.5) and utility
    (x0.75 at utility 0 to x1.25 at 1; neutral 0.5 leaves it unchanged). Multiplicative, so no
    amount of use can lift an irrelevant memory: reinforcement never outweighs relevance."""
    status_weight = STATUS_WEIGHT.get(record.status, 0.25)
    utility_weight = 0.75 + 0.5 * record.utility
    return rrf_score * status_weight * utility_weight, status_weight, utility_weight


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
    with single_thread():
        vector_hits = views.vectors.search(namespace, query_vector, n, allowed)
    channels = {"vector": vector_hits, "bm25": views.text.search(namespace, query, n, allowed)}
    fused = rrf(channels, config.rrf_k)
    memories = views.state.memories
    for memory_id, signals in fused.items():
        record: MemoryRecord = memories[memory_id]
        signals["retention"] = retention(record, now, config.decay)
        signals["importance"] = record.importance
        signals["utility"] = record.utility
        signals["score"], signals["status_weight"], signals["utility_weight"] = composite(
            signals["rrf"], record)
    # Ties break by id so the order is a function of the data alone.
    ranked = sorted(fused.items(), key=lambda item: (-item[1]["score"], item[0]))
    return [(mid, signals["score"], signals) for mid, signals in ranked[:k]]

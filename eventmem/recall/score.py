"""Scoring after fusion: the profile composite, ACT-R activation, and MMR diversity.

Relevance (fused rank evidence, in [0, 1]) is the base of every score; everything else scales it
within bounds, so nothing can lift an irrelevant memory: reinforcement never outweighs relevance
(ARCHITECTURE.md section 11).

``score = relevance x prior x status x utility x activation x cue``

* prior: the profile's mix of recency, retention (decay), importance and source confidence, in
  ``[1 - lift, 1 + lift]``; a profile that weighs semantics less lets the mix move more;
* status: stale memories weigh half (archived ones, returned only when asked, a quarter);
* utility: x0.75 at utility 0 to x1.25 at 1 (neutral 0.5 changes nothing);
* activation: ACT-R base level ``B = ln(max(n, 1)) - 0.5 ln(age_s)``, ``1 + w * sigmoid(B)``;
* cue: the intent's favoured memories (a time mentioned for "when", a preference...).

Together prior, utility and activation may scale relevance by at most :data:`MAX_LIFT` times
the least they can (the least prior, utility 0, no activation): each bounded alone, their
extremes multiplied reached twice that (a default-profile memory of utility 1, just recalled,
outscored one twice as relevant), so their product is capped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from eventmem.clock import MICROS_PER_DAY, MICROS_PER_SECOND
from eventmem.policies.decay import DecayParams, retention
from projections.state import MemoryRecord

__all__ = ["PROFILES", "SOURCE_TRUST", "STATUS_WEIGHT", "Profile", "activation", "composite",
           "mmr"]


class Profile(NamedTuple):
    """Weights of the ranking signals (ARCHITECTURE.md section 9); they sum to 1."""

    semantic: float
    recency: float
    decay: float
    importance: float
    confidence: float


PROFILES: dict[str, Profile] = {
    "default": Profile(0.35, 0.20, 0.20, 0.20, 0.05),
    "recent": Profile(0.30, 0.50, 0.10, 0.07, 0.03),
    "important": Profile(0.40, 0.10, 0.10, 0.35, 0.05),
    "deep": Profile(0.50, 0.05, 0.25, 0.15, 0.05),
    "broad": Profile(0.45, 0.15, 0.15, 0.20, 0.05),
}

# How a lifecycle state weighs on ranking: stale memories are still found, below fresh ones.
STATUS_WEIGHT = {"active": 1.0, "stale": 0.5}
HIDDEN_STATUS_WEIGHT = 0.25  # archived, dormant, superseded...: only with include_hidden
# How far a memory's source is trusted, times its own confidence.
SOURCE_TRUST = {"user": 1.0, "system": 1.0, "import": 0.95, "agent": 0.9,
                "consolidation": 0.9, "extraction": 0.8}


class Params(NamedTuple):
    """The composite's knobs (from Config)."""

    prior_lift: float  # how far the prior mix may move a score at the default profile
    recency_half_life_days: float
    activation_weight: float
    decay: DecayParams


def activation(n: int, age_s: float) -> float:
    """ACT-R base-level activation squashed to (0, 1): ``sigmoid(ln(max(n,1)) - 0.5 ln(age))``
    with ``n`` presentations and ``age_s`` seconds since the last (at least one second)."""
    b = math.log(max(n, 1)) - 0.5 * math.log(max(age_s, 1.0))
    return 1.0 / (1.0 + math.exp(-b))


# The most prior, utility and activation together may scale a score, over the least they can:
# below 2, so a memory twice as relevant as another (same status and cue) always outranks it.
MAX_LIFT = 1.99


def lift(profile: Profile, base: float) -> float:
    """How far the prior mix may move a score: ``base`` at the default profile, scaled by how
    much the profile weighs the other signals against semantics."""
    reference = PROFILES["default"]
    return base * ((1 - profile.semantic) / profile.semantic) / (
        (1 - reference.semantic) / reference.semantic)


def composite(relevance: float, record: MemoryRecord, now: int, profile: Profile,
              params: Params, cue: float = 1.0, *, status: str | None = None) -> dict[str, float]:
    """The score of one candidate and every signal behind it (see the module docstring).
    ``status``: the lifecycle state to weigh it as, when not its own (a superseded fact that a
    ``valid_at`` recall returns as true then weighs as an active one)."""
    age_days = max(0, now - record.created_at) / MICROS_PER_DAY
    recency = 0.5 ** (age_days / params.recency_half_life_days)
    kept = retention(record, now, params.decay)
    trust = record.confidence * SOURCE_TRUST.get(record.source, 0.8)
    others = 1.0 - profile.semantic
    prior = (profile.recency * recency + profile.decay * kept
             + profile.importance * record.importance + profile.confidence * trust) / others
    prior_weight = 1.0 + lift(profile, params.prior_lift) * (2.0 * prior - 1.0)
    status_weight = STATUS_WEIGHT.get(record.status if status is None else status,
                                      HIDDEN_STATUS_WEIGHT)
    utility_weight = 0.75 + 0.5 * record.utility
    presentations = 1 + record.access_count + record.reinforce_count
    since = max(0, now - record.last_access_at) / MICROS_PER_SECOND
    act = activation(presentations, since)
    activation_weight = 1.0 + params.activation_weight * act
    # The least the three can be: the least prior (1 - lift), utility 0 (x0.75), no activation.
    least = (1.0 - lift(profile, params.prior_lift)) * 0.75
    weight = min(prior_weight * utility_weight * activation_weight, MAX_LIFT * least)
    score = relevance * weight * status_weight * cue
    return {
        "relevance": relevance, "recency": recency, "retention": kept,
        "importance": record.importance, "confidence": trust, "prior": prior,
        "prior_weight": prior_weight, "status_weight": status_weight,
        "utility": record.utility, "utility_weight": utility_weight, "activation": act,
        "activation_weight": activation_weight, "cue_weight": cue, "score": score,
    }


def mmr(ids: Sequence[str], scores: Sequence[float], vectors: np.ndarray | None, k: int,
        lam: float, floor: float) -> list[tuple[str, float, float]]:
    """Maximal marginal relevance: pick ``k`` of ``ids`` (best first by ``scores``), each time
    the one maximizing ``lam * rel - (1 - lam) * redundancy``, with ``rel = score / best`` and
    redundancy its largest similarity to those already picked, counted above ``floor``
    (rescaled to [0, 1]) so that only real overlap costs.

    Returns ``(id, adjusted score, redundancy)``: the adjusted score is the MMR value in the
    scores' own units, ``score - (1 - lam) / lam * best * redundancy``, which never rises from
    one pick to the next. Ties break by position in ``ids``.
    """
    n = len(ids)
    if n == 0 or k <= 0:
        return []
    best = max(scores[0], 1e-300)
    base = np.asarray(scores, dtype=np.float64)
    penalty_scale = (1.0 - lam) / lam * best
    redundancy = np.zeros(n)
    if vectors is None or lam >= 1.0:
        return [(ids[i], float(base[i]), 0.0) for i in range(min(k, n))]
    sims = np.clip(vectors @ vectors.T, 0.0, 1.0) if n else np.zeros((0, 0))
    sims = np.clip((sims - floor) / (1.0 - floor), 0.0, 1.0)
    taken = np.zeros(n, dtype=bool)
    out = []
    for _ in range(min(k, n)):
        value = base - penalty_scale * redundancy
        value[taken] = -np.inf
        pick = int(np.argmax(value))  # first maximum: ties by position
        taken[pick] = True
        out.append((ids[pick], float(value[pick]), float(redundancy[pick])))
        redundancy = np.maximum(redundancy, sims[pick])
    return out

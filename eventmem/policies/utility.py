"""Utility: how useful a memory turned out to be, learned from feedback, forgotten while unused.

Feedback moves utility a step toward its target (``u += rate * (target - u)``); between feedbacks
utility drifts back toward ``neutral`` by ``drift * days * (neutral - u)``, clamped so it never
overshoots (after ``1 / drift`` days it is neutral).

The drift is linear in days, so it does not compose: drifting 50 days twice is not drifting 100
days once. Always drift from the time utility last moved (``record.utility_at``, 0 meaning
``created_at``) to ``now``, and store a drifted value only when feedback moves it again — never
write drift back on its own (a sweep that did so would change the result with the sweep cadence).
"""

from __future__ import annotations

import math

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.errors import InvalidInputError


class UtilityParams(msgspec.Struct, kw_only=True, frozen=True):
    """Learning rate, drift per day and the neutral value (ARCHITECTURE.md section 9)."""

    rate: float = 0.1
    drift: float = 0.01
    neutral: float = 0.5

    def __post_init__(self) -> None:
        if not (0 <= self.rate <= 1 and self.drift >= 0 and 0 <= self.neutral <= 1):
            raise InvalidInputError("utility needs 0 <= rate <= 1, drift >= 0, 0 <= neutral <= 1")


DEFAULT_UTILITY = UtilityParams()


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


def drifted(utility: float, since: int, now: int, params: UtilityParams = DEFAULT_UTILITY) -> float:
    """Utility at ``now`` after drifting, without feedback, since ``since`` (epoch microseconds)."""
    days = max(0, now - since) / MICROS_PER_DAY
    # The step is a fraction of the distance to neutral; capping the fraction at 1 is what keeps
    # it from overshooting.
    step = min(1.0, params.drift * days)
    u = _clamp(utility)
    return _clamp(u + step * (params.neutral - u))


def after_feedback(
    utility: float,
    useful: bool | float,
    since: int,
    now: int,
    params: UtilityParams = DEFAULT_UTILITY,
) -> float:
    """Utility after feedback at ``now``: drift since ``since`` first, then a step to the target.

    ``useful`` is ``True`` (target 1), ``False`` (target 0) or a graded target in [0, 1].
    """
    if isinstance(useful, bool):
        target = 1.0 if useful else 0.0
    else:
        target = float(useful)
        if math.isnan(target) or not 0 <= target <= 1:
            raise InvalidInputError(f"useful must be a bool or a number in [0, 1], got {useful!r}")
    u = drifted(utility, since, now, params)
    return _clamp(u + params.rate * (target - u))

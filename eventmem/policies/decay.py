"""Retention as a pure function of a memory's record and a given ``now``; reinforcement on access.

Two strengths, kept apart (the "new theory of disuse"):

* **storage strength** is ``record.stability``, the base stability in days. It only grows: each
  access multiplies it by a spacing-effect factor (:func:`stability_after_access`), and nothing
  ever lowers it.
* **retrieval strength** is :func:`retention`, in [0, 1]. It decays with the days ``t`` since the
  last access and is restored to 1 by an access (the access moves ``last_access_at`` to now).

Retention is ``curve(t / S_eff)`` where::

    S_eff = S * (1 + ln(1 + n) * access_gain) / (source_rate[source] * tier_rate_rel[tier])
    n     = access_count + reinforce_count

**Rate normalization.** ``tier_rate`` gives the seeds' relative speeds (working 10, episodic 3,
semantic 1, procedural 1, dormant 0); they are divided by the rate of ``rate_reference_tier``
(episodic), so an episodic memory decays at 1x. The base stabilities are calibrated for memories
as stored (new memories land in episodic): "a context memory goes stale after about a week" holds
for a fresh, user-stated, episodic context memory with S = 7 days (retention 0.3 at 8.4 days).
A working memory then decays 10/3x as fast, a semantic one 3x slower. Source rates multiply the
same way (an auto-extracted memory decays 3x faster than a user-stated one). Unknown sources and
tiers decay at 1x.

**Decay is a distance travelled, at the current rate.** ``progress`` is how many effective
stabilities a memory has decayed since its last access. A tier change does not rewrite the past:
the change records the progress so far (``record.decay_done``, from ``record.decay_from``) and the
new rate applies from then on, so a promotion never raises retention without an access and a
demotion never drops it. An access starts the distance again at 0.

**Dormant (rate 0) freezes time.** When a memory's tier rate is 0 (dormant), or its status is
``dormant``, its progress stays at what was recorded when it went dormant.

Curves, with ``x = t / S_eff`` (all equal 1 at x = 0 and never rise with x):

* ``exponential``  ``exp(-x)`` (the default; the seeds' formula).
* ``fsrs6``        ``(1 + fsrs_factor * x) ** (-1 / fsrs_decay)``: the seeds' FSRS-6 power law
                   ``(1 + t / (9 S)) ** (-1 / 0.5)``; a heavy tail (R(S) = 0.81, R = 0.3 at ~7.5 S).
* ``huber``        exponential up to a knee ``k = huber_knee`` (in units of S_eff), a power-law
                   tail beyond it: ``exp(-k) * (k / x) ** k`` for ``x > k``. Like the Huber loss,
                   the loss ``-ln R`` grows linearly up to the knee and more slowly past it
                   (here logarithmically); value and slope are continuous at the knee.
* ``elastic``      ``m * exp(-x) + (1 - m) * fsrs6(x)`` with ``m = elastic_mix``: a mixture, as
                   elastic net mixes two penalties; fast early loss, long tail.

A memory of a category with a floor (``category_floor``: corrections and preferences by default)
never falls below it: its retention follows the curve down to the floor and stays there.

Pinned, immutable and flashbulb memories decay here like any other: exemption from forgetting is
the lifecycle policy's business, so retention stays an honest signal for ranking.
"""

from __future__ import annotations

import math
from typing import Literal

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.errors import InvalidInputError
from projections.state import MemoryRecord

DecayModel = Literal["exponential", "fsrs6", "huber", "elastic"]
DECAY_MODELS: tuple[str, ...] = ("exponential", "fsrs6", "huber", "elastic")


def _default_source_rate() -> dict[str, float]:
    # Auto-extracted memories are the least trusted: they fade three times faster.
    return {"user": 1.0, "agent": 1.0, "import": 1.0, "consolidation": 1.0, "system": 1.0,
            "extraction": 3.0}


def _default_tier_rate() -> dict[str, float]:
    return {"working": 10.0, "episodic": 3.0, "semantic": 1.0, "procedural": 1.0, "dormant": 0.0}


class DecayParams(msgspec.Struct, kw_only=True, frozen=True):
    """How memories fade and strengthen (ARCHITECTURE.md section 9; see the module docstring)."""

    model: DecayModel = "exponential"
    access_gain: float = 0.5  # S_eff = S * (1 + ln(1 + n) * access_gain)
    fsrs_factor: float = 1.0 / 9.0
    fsrs_decay: float = 0.5  # exponent -1 / fsrs_decay
    huber_knee: float = 1.0  # in units of S_eff (retention exp(-1) = 0.37 there)
    elastic_mix: float = 0.5  # weight of the exponential in the elastic mixture
    source_rate: dict[str, float] = msgspec.field(default_factory=_default_source_rate)
    tier_rate: dict[str, float] = msgspec.field(default_factory=_default_tier_rate)
    rate_reference_tier: str = "episodic"  # decays at 1x; base stabilities are calibrated here
    # Spaced repetition: S' = min(S * min(1 + growth_gain * (1 - R), max_growth), max_stability).
    growth_gain: float = 2.0
    max_growth: float = 3.0
    max_stability_days: float = 36_500.0
    # Categories whose retention never falls below a floor (eventmem.policies.category): a
    # correction or a preference stays findable however long it goes unused.
    category_floor: dict[str, float] = msgspec.field(
        default_factory=lambda: {"correction": 0.3, "preference": 0.3})

    def __post_init__(self) -> None:
        if self.model not in DECAY_MODELS:
            raise InvalidInputError(f"decay model {self.model!r}: use one of {DECAY_MODELS}")
        if any(not rate > 0 for rate in self.source_rate.values()):
            raise InvalidInputError("source_rate values must be > 0 (a source cannot stop time)")
        if any(not rate >= 0 for rate in self.tier_rate.values()):
            raise InvalidInputError("tier_rate values must be >= 0 (0 freezes a tier)")
        if not self.tier_rate.get(self.rate_reference_tier, 0.0) > 0:
            raise InvalidInputError(
                f"rate_reference_tier {self.rate_reference_tier!r} needs a tier_rate > 0")
        if not (self.access_gain >= 0 and self.fsrs_factor > 0 and self.fsrs_decay > 0
                and self.huber_knee > 0 and 0 <= self.elastic_mix <= 1):
            raise InvalidInputError("decay curve parameters out of range (see DecayParams)")
        if any(not 0 <= floor <= 1 for floor in self.category_floor.values()):
            raise InvalidInputError("category_floor values must be in [0, 1]")
        if not (self.growth_gain >= 0 and self.max_growth >= 1 and self.max_stability_days > 0):
            raise InvalidInputError("growth_gain >= 0, max_growth >= 1, max_stability_days > 0")


DEFAULT_DECAY = DecayParams()


def _tier_rate(record: MemoryRecord, params: DecayParams) -> float:
    """The tier's rate relative to the reference tier (0: frozen)."""
    reference = params.tier_rate[params.rate_reference_tier]
    return params.tier_rate.get(record.tier, reference) / reference


def effective_stability(record: MemoryRecord, params: DecayParams = DEFAULT_DECAY) -> float:
    """Days for retention to fall by the curve's unit: access-extended, divided by the rates.

    A frozen (dormant) memory reports its stability at the reference rate: its clock is stopped,
    its stability is not infinite.
    """
    uses = record.access_count + record.reinforce_count
    tier = _tier_rate(record, params)
    rate = params.source_rate.get(record.source, 1.0) * (tier if tier > 0 else 1.0)
    return record.stability * (1.0 + math.log1p(uses) * params.access_gain) / rate


def is_frozen(record: MemoryRecord, params: DecayParams = DEFAULT_DECAY) -> bool:
    """True when the memory's decay clock is stopped (dormant status or a tier with rate 0)."""
    return record.status == "dormant" or _tier_rate(record, params) == 0


def progress(record: MemoryRecord, now: int, params: DecayParams = DEFAULT_DECAY) -> float:
    """Effective stabilities decayed since the last access at ``now`` (the curve's ``x``)."""
    if is_frozen(record, params):
        return record.decay_done
    start = max(record.last_access_at, record.decay_from)
    days = max(0, now - start) / MICROS_PER_DAY
    if days <= 0:
        return record.decay_done
    s_eff = effective_stability(record, params)
    if s_eff <= 0:  # no stability at all: forgotten as soon as any time has passed
        return math.inf
    return record.decay_done + days / s_eff


def curve(x: float, params: DecayParams) -> float:
    """Retention at ``x`` effective stabilities since the last access (``x >= 0``)."""
    model = params.model
    if model == "exponential":
        return math.exp(-x)
    if model == "fsrs6":
        return (1.0 + params.fsrs_factor * x) ** (-1.0 / params.fsrs_decay)
    if model == "huber":
        knee = params.huber_knee
        if x <= knee:
            return math.exp(-x)
        return math.exp(-knee) * (knee / x) ** knee
    # elastic
    mix = params.elastic_mix
    power = (1.0 + params.fsrs_factor * x) ** (-1.0 / params.fsrs_decay)
    return mix * math.exp(-x) + (1.0 - mix) * power


def retention(record: MemoryRecord, now: int, params: DecayParams = DEFAULT_DECAY) -> float:
    """Retrieval strength in [0, 1] at ``now`` (epoch microseconds): 1 right after an access;
    never below its category's floor (``category_floor``: corrections and preferences)."""
    x = progress(record, now, params)
    if x <= 0:
        return 1.0
    floor = params.category_floor.get(record.category, 0.0) if record.category else 0.0
    if math.isinf(x):
        return floor
    return min(1.0, max(floor, curve(x, params)))


def stability_after_access(record: MemoryRecord, now: int,
                           params: DecayParams = DEFAULT_DECAY) -> float:
    """The base stability after an access at ``now``: the spacing effect.

    The growth factor ``1 + growth_gain * (1 - R)`` is larger the more the memory had faded
    (a well-spaced retrieval teaches more than a cramming one), capped at ``max_growth`` per
    access and at ``max_stability_days`` overall. It never lowers stability.
    """
    growth = min(1.0 + params.growth_gain * (1.0 - retention(record, now, params)),
                 params.max_growth)
    grown = min(record.stability * growth, params.max_stability_days)
    return max(record.stability, grown)

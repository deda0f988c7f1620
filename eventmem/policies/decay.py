"""Retention as a pure function of a memory's record and a given ``now``."""

from __future__ import annotations

import math

from eventmem.clock import MICROS_PER_DAY
from projections.state import MemoryRecord


def effective_stability(record: MemoryRecord, gain: float = 0.5) -> float:
    """Stability in days, extended by accesses: ``S * (1 + ln(1 + accesses) * gain)``."""
    uses = record.access_count + record.reinforce_count
    return record.stability * (1.0 + math.log1p(uses) * gain)


def retention(record: MemoryRecord, now: int, gain: float = 0.5) -> float:
    """``exp(-t / S_eff)`` with ``t`` the days since the last access (never negative)."""
    days = max(0, now - record.last_access_at) / MICROS_PER_DAY
    return math.exp(-days / effective_stability(record, gain))

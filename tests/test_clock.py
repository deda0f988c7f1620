"""The injected clock: ``ManualClock`` as its docstring documents it, and a clock set back never
moves the log's transaction time back."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import eventmem

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


def test_manual_clock_as_documented():
    clock = eventmem.ManualClock(start=T0)
    assert clock.advance(timedelta(hours=1)) == T0 + timedelta(hours=1)
    assert clock.set(T0) == T0  # going back is allowed (the docstring says so)
    with pytest.raises(eventmem.InvalidInputError):
        clock.advance(timedelta(seconds=-1))
    with pytest.raises(eventmem.InvalidInputError):
        clock.set(datetime(2025, 1, 1))
    with pytest.raises(eventmem.InvalidInputError):
        eventmem.ManualClock(start=datetime(2025, 1, 1))


def test_a_clock_set_back_does_not_move_the_log_back(mem, clock, t0):
    mem.remember("Alice works at Acme as a data engineer", namespace="a")
    clock.set(t0 - timedelta(days=10))
    r = mem.remember("Carol likes green tea very much", namespace="a")
    assert mem.history(r.memory_id)[0].at == t0

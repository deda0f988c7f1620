"""Accesses and feedback through the engine, on a ManualClock: a touch or a recall grows stability
(more after a longer gap) and never lowers it; feedback moves utility, and recall ranks with it.
The store runs without the dream cycle, whose rehearsal would change the numbers."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

import eventmem
from eventmem.policies.dream.params import DreamParams
from tests.maintain.test_sweep import at_day, remember


@pytest.fixture
def mem(store_path: Path, clock: eventmem.ManualClock) -> Iterator[eventmem.Engine]:
    """The examples pin the engine's own numbers (stability, utility), so they run without the
    dream cycle, whose rehearsal would change them (tests/maintain/test_dream_cycle.py)."""
    config = eventmem.Config(dream=DreamParams(enabled=False))
    engine = eventmem.open(store_path, clock=clock, config=config)
    try:
        yield engine
    finally:
        engine.close()




# -- reinforcement and utility ----------------------------------------------------------------


def test_touch_raises_stability_and_never_lowers_it(mem, clock, t0):
    mid = remember(mem, "Erin teaches piano on Tuesdays", "activity")
    stabilities = [mem.get(mid).stability]
    for days in (0, 0, 1, 5, 30, 30, 120):
        at_day(clock, t0, days)
        mem.touch(mid)
        stabilities.append(mem.get(mid).stability)
    assert all(b > a for a, b in itertools.pairwise(stabilities)), stabilities

    # the spacing effect: the same single access teaches more after a longer gap
    soon = remember(mem, "Frank collects vintage maps", "activity")
    late = remember(mem, "Gina collects vintage stamps", "activity")
    at_day(clock, t0, 121)
    mem.touch(soon)
    at_day(clock, t0, 180)
    mem.touch(late)
    assert mem.get(late).stability > mem.get(soon).stability > 45.0


def test_a_recall_grows_stability_like_a_touch(mem, clock, t0):
    touched = remember(mem, "Hana grows tomatoes on her balcony", "activity")
    recalled = remember(mem, "Ivan grows chillies in his greenhouse", "activity")
    at_day(clock, t0, 30)
    mem.touch(touched)
    assert [h.memory_id for h in mem.recall("Ivan chillies greenhouse", k=1)] == [recalled]
    assert mem.get(recalled).access_count == mem.get(touched).access_count == 1
    assert mem.get(recalled).stability == pytest.approx(mem.get(touched).stability)


def test_feedback_moves_utility_and_recall_ranks_with_it(mem):
    a = remember(mem, "Maya keeps the spare key under the blue flowerpot", "context")
    b = remember(mem, "Maya keeps the spare key under the red flowerpot", "context")
    assert mem.get(a).utility == 0.5
    assert mem.feedback(a, useful=True) == pytest.approx(0.55)
    assert mem.feedback(a, useful=True) == pytest.approx(0.595)
    assert mem.feedback(b, useful=False) == pytest.approx(0.45)
    assert mem.feedback(b, useful=0.0) == pytest.approx(0.405)
    assert mem.get(a).utility == pytest.approx(0.595)
    assert [e.details["utility"] for e in mem.history(b) if e.type == "memory.feedback"] == [
        pytest.approx(0.45), pytest.approx(0.405)]

    query = "where does Maya keep the spare key"
    first, second = [h.memory_id for h in mem.recall(query, k=2)]
    # make the one that ranked second the useful one: the order flips
    for _ in range(6):
        mem.feedback(second, useful=True)
        mem.feedback(first, useful=False)
    hits = mem.recall(query, k=2)
    assert [h.memory_id for h in hits] == [second, first]
    high, low = hits
    assert high.signals["utility"] > 0.5 > low.signals["utility"]
    assert high.signals["utility_weight"] > 1.0 > low.signals["utility_weight"]
    assert high.signals["utility_weight"] == pytest.approx(0.75 + 0.5 * high.signals["utility"])

"""A memory given no valid_from is valid from the day its text states, else from when it was
recorded, never earlier: ``valid_at`` never answers with a fact first stated after that time. A
log written by gate-3 (which left such a memory's valid time open) still audits as gate-3."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.policies import gate
from tests.write.logged import checked, ingested, written_as

DAY = timedelta(days=1)
MARCH_5 = datetime(2025, 3, 5, 15, 30, tzinfo=UTC)  # a Wednesday




def test_a_fact_stated_on_day_45_is_not_true_on_day_1(mem: eventmem.Engine,
                                                      clock: eventmem.ManualClock,
                                                      t0: datetime) -> None:
    clock.advance(45 * DAY)
    bike = mem.remember("I bought a red bicycle", namespace="u").memory_id
    assert mem.recall("red bicycle", namespace="u", valid_at=t0 + DAY) == []
    with pytest.raises(eventmem.NotFoundError, match="not valid at"):
        mem.get(bike, valid_at=t0 + DAY)
    # From when it was said on, it holds.
    assert mem.get(bike).valid_from == t0 + 45 * DAY
    assert mem.get(bike, valid_at=t0 + 45 * DAY).memory_id == bike
    assert [h.memory_id for h in mem.recall("red bicycle", namespace="u",
                                            valid_at=t0 + 60 * DAY)] == [bike]
    assert ingested(mem, bike).valid_from_rule == "transaction_time"
    checked(mem)


def test_yesterday_is_the_day_before_it_was_recorded(tmp_path: Any) -> None:
    text = "Yesterday I moved to Denver"
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_5)) as mem:
        moved = mem.remember(text, namespace="u").memory_id
        memory = mem.get(moved)
        assert memory.text == text  # verbatim
        assert memory.valid_from == datetime(2025, 3, 4, tzinfo=UTC)
        assert ingested(mem, moved).valid_from_rule == "stated"
        assert mem.get(moved, valid_at=datetime(2025, 3, 4, 12, tzinfo=UTC)).memory_id == moved
        assert mem.recall("Denver", namespace="u", valid_at=datetime(2025, 3, 3, tzinfo=UTC)) == []
        checked(mem)


@pytest.mark.parametrize("text,day", [
    ("Two weeks ago I started working at Globex", datetime(2025, 2, 19, tzinfo=UTC)),
    ("3 days ago I adopted a cat named Pixel", datetime(2025, 3, 2, tzinfo=UTC)),
    ("Last Friday I sold my old car", datetime(2025, 2, 28, tzinfo=UTC)),
    ("On March 3 I joined the climbing club", datetime(2025, 3, 3, tzinfo=UTC)),
    ("March 3, 2025: I switched to a vegetarian diet", datetime(2025, 3, 3, tzinfo=UTC)),
    ("On 2025-02-10 I got a new phone", datetime(2025, 2, 10, tzinfo=UTC)),
])
def test_a_stated_day_is_when_the_fact_began(tmp_path: Any, text: str, day: datetime) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_5)) as mem:
        memory = mem.get(mem.remember(text, namespace="u").memory_id)
        assert (memory.text, memory.valid_from) == (text, day)
        checked(mem)


@pytest.mark.parametrize("text", [
    "I moved to Denver",
    "I moved to Denver today",  # today says no more than the time of recording
    "On 2025-04-10 I will move to Denver",  # a day still to come is not a start
    "I work at Globex until March 31",
])
def test_without_a_past_day_it_is_valid_from_when_recorded(tmp_path: Any, text: str) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_5)) as mem:
        assert mem.get(mem.remember(text, namespace="u").memory_id).valid_from == MARCH_5


def test_a_caller_given_valid_from_wins(tmp_path: Any) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_5)) as mem:
        given = datetime(2024, 6, 1, tzinfo=UTC)
        moved = mem.remember("Yesterday I moved to Denver", namespace="u", valid_from=given)
        assert mem.get(moved.memory_id).valid_from == given
        assert ingested(mem, moved.memory_id).valid_from_rule == ""


def test_a_plans_deadline_is_not_its_start(tmp_path: Any) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_5)) as mem:
        plan = mem.get(mem.remember("I need to renew my passport by Friday", namespace="u",
                                    kind="plan").memory_id)
        assert plan.valid_from == MARCH_5
        assert plan.valid_until == datetime(2025, 3, 8, tzinfo=UTC)  # the end of Friday
        # A plan naming a past day ("last Friday") is still a plan: its dates are deadlines.
        other = mem.get(mem.remember("Since last Friday I need to call the bank by Monday",
                                     namespace="u", kind="plan").memory_id)
        assert other.valid_from == MARCH_5
        checked(mem)


def test_a_gate_3_log_still_passes_the_audit(mem: eventmem.Engine, clock: eventmem.ManualClock,
                                             t0: datetime, monkeypatch: Any) -> None:
    """A log written by gate-3 (valid time left open) is re-derived as gate-3, and read with
    its memories valid from when they were recorded."""
    clock.advance(45 * DAY)
    with written_as(monkeypatch, gate.GATE_3):  # write as gate-3 did
        bike = mem.remember("Yesterday I bought a red bicycle", namespace="u").memory_id
    event = ingested(mem, bike)
    assert (event.policy, event.valid_from, event.valid_from_rule) == ("gate-3", None, "")
    assert mem.get(bike).valid_from is None
    # Read as valid from when it was recorded, not for all time.
    assert mem.recall("red bicycle", namespace="u", valid_at=t0 + DAY) == []
    with pytest.raises(eventmem.NotFoundError, match="not valid at"):
        mem.get(bike, valid_at=t0 + DAY)
    assert mem.get(bike, valid_at=t0 + 45 * DAY).memory_id == bike
    clock.advance(DAY)
    later = mem.remember("Yesterday I sold my old car", namespace="u").memory_id  # gate-4
    assert mem.get(later).valid_from == t0 + 45 * DAY
    checked(mem)


STATEMENTS = ("I bought a red bicycle", "Yesterday I moved to Denver",
              "Two weeks ago I started at Globex", "Last Friday I adopted a dog",
              "On March 3 I joined the choir", "I need to renew my passport by Friday")


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(said=st.integers(0, 400), before=st.integers(1, 400 * 24), text=st.sampled_from(STATEMENTS))
def test_valid_at_never_returns_a_fact_stated_later(
    tmp_path_factory: pytest.TempPathFactory, t0: datetime, said: int, before: int, text: str,
) -> None:
    """For any statement time s and any t before s, neither ``recall(valid_at=t)`` nor
    ``get(valid_at=t)`` gives a fact whose text states no earlier day; one that states a day is
    never valid before that day."""
    s = t0 + said * DAY
    t = s - before * timedelta(hours=1)
    with eventmem.open(tmp_path_factory.mktemp("p") / "s",
                       clock=eventmem.ManualClock(start=s)) as mem:
        mid = mem.remember(text, namespace="u").memory_id
        start = mem.get(mid).valid_from
        assert start is not None and start <= s
        if start == s or t < start:
            assert mid not in {h.memory_id for h in mem.recall(text, namespace="u", valid_at=t)}
            with pytest.raises(eventmem.NotFoundError):
                mem.get(mid, valid_at=t)
        # A stated day is the day its text names: at most a few weeks back for these texts.
        assert s - start < timedelta(days=366)

"""gate-8: a correction ("actually", "should be", "was wrong") supersedes the memory it
corrects, with the value that differs as evidence; a gate-7 log, which kept both, still audits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import eventmem
from eventmem.events import MemorySuperseded
from eventmem.policies import gate
from tests.write.logged import checked, written_as

T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)
HOUR = timedelta(hours=1)


@pytest.fixture
def clock() -> eventmem.ManualClock:
    return eventmem.ManualClock(start=T0)


@pytest.fixture
def mem(tmp_path: Path, clock: eventmem.ManualClock) -> Any:
    with eventmem.open(tmp_path / "s", clock=clock) as engine:
        yield engine


def said(mem: eventmem.Engine, clock: eventmem.ManualClock, text: str) -> eventmem.RememberResult:
    result = mem.remember(text)
    clock.advance(HOUR)
    return result



@pytest.mark.parametrize(("old", "correction", "value"), [
    ("The standup is at 9:00", "Actually, the standup is at 9:30", "time"),
    ("The deadline is March 3", "The deadline should be March 4", "date"),
    ("My dentist is Dr. Li", "I was wrong, my dentist is Dr. Park", "entity"),
])
def test_a_correction_supersedes_what_it_corrects(mem: eventmem.Engine,
                                                  clock: eventmem.ManualClock, old: str,
                                                  correction: str, value: str) -> None:
    first = said(mem, clock, old)
    fixed = said(mem, clock, correction)
    assert (fixed.action, fixed.rule, fixed.neighbour) == (
        "superseded", f"correction:{value}", first.memory_id)
    assert mem.get(first.memory_id).status == "superseded"
    assert mem.get(first.memory_id).superseded_by == fixed.memory_id
    assert mem.get(fixed.memory_id).category == "correction"
    events = [e for _, e in mem._log.memory_events([first.memory_id])
              if isinstance(e, MemorySuperseded)]
    assert [(e.rule, e.policy) for e in events] == [(f"correction:{value}", gate.GATE_VERSION)]
    hits = mem.recall(old, k=3)
    assert first.memory_id not in [h.memory_id for h in hits]
    checked(mem)


def test_a_correction_word_without_a_changed_value_supersedes_nothing(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    concert = said(mem, clock, "I went to the jazz concert downtown")
    aside = said(mem, clock, "Actually I went to the jazz concert downtown with Ana")
    assert aside.action in ("created", "merged")
    assert mem.get(concert.memory_id).status in ("active", "superseded")
    unrelated = said(mem, clock, "Actually, the printer is out of toner")
    assert unrelated.action == "created"
    checked(mem)


def test_an_immutable_memory_is_not_corrected(mem: eventmem.Engine,
                                              clock: eventmem.ManualClock) -> None:
    fixed = mem.remember("The standup is at 9:00", immutable=True)
    clock.advance(HOUR)
    later = said(mem, clock, "Actually, the standup is at 9:30")
    assert later.action == "created"
    assert mem.get(fixed.memory_id).status == "active"
    checked(mem)


def test_a_gate_7_log_still_passes_the_audit(mem: eventmem.Engine, clock: eventmem.ManualClock,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    first = said(mem, clock, "The standup is at 9:00")
    with written_as(monkeypatch, gate.GATE_7):  # write as gate-7 did
        kept = said(mem, clock, "Actually, the standup is at 9:30")
    assert kept.action == "created"
    assert mem.get(first.memory_id).status == "active"
    checked(mem)

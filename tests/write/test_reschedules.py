"""gate-9: a reschedule of an appointment or departure supersedes its value even once that
value's day has passed, so the earlier day stays answerable as history; a new day without a
word saying the date moved is a new occasion; a gate-8 log, which left the passed day expired,
still audits."""

from __future__ import annotations

from datetime import timedelta

import pytest

import eventmem
from eventmem.policies import gate
from tests.write.logged import checked, written_as

DAY = timedelta(days=1)


def _passed(mem: eventmem.Engine, clock: eventmem.ManualClock, text: str) -> str:
    """Remember ``text`` (on the store's Wednesday 1 January 2025), then let its day pass and
    the lifecycle sweep expire it; returns its id."""
    first = mem.remember(text)
    assert mem.get(first.memory_id).valid_until is not None  # "on Sunday": January 5
    clock.advance(6 * DAY)
    mem.consolidate(now=clock.now())
    return first.memory_id


@pytest.mark.parametrize(("old", "new"), [
    ("My physio appointment is on Sunday.", "My physio appointment is now on Wednesday."),
    ("My physio appointment is on Sunday.", "User's physio appointment was rescheduled to Tuesday"),
    ("My physio appointment is on Sunday.", "Physio appointment got pushed back to Tuesday."),
])
def test_a_reschedule_supersedes_a_day_already_passed(
        mem: eventmem.Engine, clock: eventmem.ManualClock, old: str, new: str) -> None:
    first = _passed(mem, clock, old)
    ended = mem.get(first).valid_until
    moved = mem.remember(new)
    assert moved.action == "superseded" and moved.neighbour == first, moved
    before = mem.get(first)
    assert before.status == "superseded" and before.superseded_by == moved.memory_id
    assert before.valid_until == ended  # its own end is kept, never stretched to the move
    # The earlier day still answers for its time.
    then = mem.recall("When is my appointment or flight?", valid_at=ended - DAY)
    assert first in [hit.memory_id for hit in then]
    checked(mem)


def test_a_day_passed_is_moved_before_any_sweep_has_expired_it(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    """Expiry is a matter of time: a weekly consolidate has not yet marked Sunday's appointment
    expired on Tuesday, and the reschedule still moves it."""
    for text in ("Felix's daughter is called Finn.", "Felix works at Gekko Capital.",
                 "Felix drives a Ford Focus."):
        mem.remember(text)
    first = mem.remember("My physio appointment is on Sunday.").memory_id
    clock.advance(6 * DAY)  # no consolidate
    moved = mem.remember("Felix's physio appointment is now on Wednesday.")
    assert moved.action == "superseded" and moved.neighbour == first, moved
    checked(mem)


def test_a_name_shown_to_be_the_users_moves_their_passed_appointment(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    for text in ("Felix's daughter is called Finn.", "Felix works at Gekko Capital.",
                 "Felix drives a Ford Focus."):
        mem.remember(text)
    first = _passed(mem, clock, "My physio appointment is on Sunday.")
    moved = mem.remember("Felix's physio appointment is now on Wednesday.")
    assert moved.action == "superseded" and moved.neighbour == first, moved
    checked(mem)


def test_a_new_day_without_a_move_is_a_new_occasion(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    first = _passed(mem, clock, "My physio appointment is on Sunday.")
    again = mem.remember("My physio appointment is on Friday.")
    assert again.action == "created", again
    assert mem.get(first).status != "superseded"
    checked(mem)


def test_someone_elses_reschedule_moves_nothing_of_the_users(
        mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    first = _passed(mem, clock, "My physio appointment is on Sunday.")
    other = mem.remember("My friend Jake's physio appointment is now on Wednesday.")
    assert other.action != "superseded", other
    assert mem.get(first).status != "superseded"


def test_a_gate_8_log_still_passes_the_audit(mem: eventmem.Engine, clock: eventmem.ManualClock,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    first = _passed(mem, clock, "My physio appointment is on Sunday.")
    with written_as(monkeypatch, gate.GATE_8):  # write as gate-8 did
        kept = mem.remember("My physio appointment is now on Wednesday.")
    assert kept.action == "created"
    assert mem.get(first).status != "superseded"
    checked(mem)

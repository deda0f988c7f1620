"""Working memory ends (issue 13 item 7): a session's item moves to episodic after 30 minutes, 2
accesses or at importance >= 0.6 (at the next consolidation, sweep-4), and ``end_session`` moves a
session's items out at once. A sweep-3 log, which left them in working memory, still audits."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.config import Config
from eventmem.events import DREAM_POLICY
from eventmem.policies.lifecycle import SWEEP_3
from eventmem.policies.tiers import TierParams, tier_change
from projections.state import MemoryRecord

T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
DAY = timedelta(days=1)


def assert_sound(mem: eventmem.Engine) -> None:
    assert mem.verify().ok
    report = mem.audit()
    assert report.ok, report.findings
    assert mem.replay().get  # a full replay opens
    view = mem.replay()
    for mid in mem._views.state.memories:  # live state equals a replay from the log
        assert view.get(mid) == mem.get(mid)


def remember(mem: eventmem.Engine, text: str, **kw: object) -> str:
    mid = mem.remember(text, importance=kw.pop("importance", 0.3), **kw).memory_id  # type: ignore[arg-type]
    assert mid is not None
    return mid


def test_a_session_item_moves_to_episodic_at_a_consolidation_31_minutes_later(
        tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mid = remember(mem, "We are booking the flight to Lisbon", session="s1")
        assert mem.get(mid).tier == "working"
        mem.consolidate(now=clock.advance(20 * MINUTE))
        assert mem.get(mid).tier == "working"  # not yet
        report = mem.consolidate(now=clock.advance(11 * MINUTE))
        assert mem.get(mid).tier == "episodic"
        assert [(c.memory_id, c.reason) for c in report.tier_changes] == \
            [(mid, "working_expired")]
        assert_sound(mem)


def test_two_accesses_move_it_out(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mid = remember(mem, "The hotel is near the river", session="s1")
        clock.advance(MINUTE)
        mem.touch(mid)
        mem.consolidate(now=clock.advance(MINUTE))
        assert mem.get(mid).tier == "working"  # one access is not enough
        mem.touch(mid)
        assert mem.get(mid).tier == "working"  # an access records only the access ...
        report = mem.consolidate(now=clock.advance(MINUTE))
        assert mem.get(mid).tier == "episodic"  # ... the next consolidation moves it
        assert [c.reason for c in report.tier_changes] == ["working_accessed"]
        assert_sound(mem)


def test_an_important_item_moves_out_at_the_next_consolidation(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        big = remember(mem, "The passport expires next week", session="s1", importance=0.6)
        small = remember(mem, "The taxi is booked for noon", session="s1", importance=0.59)
        assert mem.get(big).tier == "working"  # created as before: the write path is unchanged
        report = mem.consolidate(now=clock.advance(MINUTE))
        assert (mem.get(big).tier, mem.get(small).tier) == ("episodic", "working")
        assert [(c.memory_id, c.reason) for c in report.tier_changes] == \
            [(big, "working_important")]
        assert_sound(mem)


def test_end_session_moves_that_session_and_no_other(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        ours = [remember(mem, f"Step {i} of the plan is done", session="s1") for i in range(3)]
        theirs = remember(mem, "The other chat is about cooking", session="s2")
        elsewhere = remember(mem, "A note in another namespace", session="s1", namespace="b")
        plain = remember(mem, "My bike is blue")
        clock.advance(MINUTE)
        seq = mem.head().seq
        assert mem.end_session("s1") == 3
        assert mem.head().seq == seq + 1  # one event
        assert [mem.get(m).tier for m in ours] == ["episodic"] * 3
        assert mem.get(theirs).tier == "working"
        assert mem.get(elsewhere).tier == "working"
        assert mem.get(plain).tier == "episodic"
        assert mem.end_session("s1") == 0  # nothing left: nothing recorded
        assert mem.head().seq == seq + 1
        assert mem.end_session("s1", namespace="b") == 1
        assert_sound(mem)
        assert mem.audit().by_kind.get("session_end") == 2
        # and a consolidation after it, at the same time, still groups and audits apart
        mem.end_session("s2")
        mem.consolidate()
        assert_sound(mem)
        view = mem.as_of(seq=seq)
        assert view.get(ours[0]).tier == "working"
        with pytest.raises(eventmem.ReadOnlyError):
            view.end_session("s1")
        with pytest.raises(eventmem.InvalidInputError):
            mem.end_session("")


def test_an_end_session_the_log_misstates_is_an_audit_finding(tmp_path: Path) -> None:
    from eventmem.events import TierChange, TierChanged
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        a = remember(mem, "First thing in the session", session="s1")
        remember(mem, "Second thing in the session", session="s1")
        at = int(clock.advance(MINUTE).timestamp() * 1_000_000)
        # only one of the session's two items moved: not what end_session decides
        mem._append_one(TierChanged(at=at, namespace="default", now=at, changes=(TierChange(
            memory_id=a, from_tier="working", to_tier="episodic", reason="session_ended"),)),
            "end_session")
        report = mem.audit()
        assert not report.ok and report.findings[0].type == "memory.tier_changed"


def test_a_sisters_name_told_in_a_session_is_visible_on_day_200(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mid = mem.remember("My sister's name is Ana", session="chat-1").memory_id
        assert mid is not None and mem.get(mid).tier == "working"
        for day in range(1, 201):
            mem.consolidate(now=clock.set(T0 + day * DAY))
        record = mem.get(mid)
        assert record.tier != "working"
        assert record.status in ("active", "stale"), record
        hits = mem.recall("what is my sister's name", k=3)
        assert mid in [h.memory_id for h in hits]
        assert_sound(mem)


def test_a_sweep_3_log_that_kept_working_memories_still_audits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_3, DREAM_POLICY)
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mid = remember(mem, "We are planning the trip to Porto", session="s1", importance=0.9)
        remember(mem, "My favourite colour is green")
        for day in range(1, 4):
            mem.consolidate(now=clock.set(T0 + day * DAY))
        assert mem.get(mid).tier == "working"  # as sweep-3 decided
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report
        mem.consolidate(now=clock.set(T0 + 4 * DAY))  # sweep-4 from here on
        assert mem.get(mid).tier == "episodic"
        assert_sound(mem)


def test_tier_params_validate_the_working_thresholds() -> None:
    for bad in ({"working_max_minutes": -1.0}, {"working_promote_accesses": 0},
                {"working_promote_importance": 1.5}):
        with pytest.raises(eventmem.InvalidInputError):
            TierParams(**bad)  # type: ignore[arg-type]
    Config(tiers=TierParams(working_max_minutes=5, working_promote_accesses=4,
                            working_promote_importance=0.9))


# -- the property, on the policy ------------------------------------------------------------------

def _record(status: str, minutes: float, accesses: int, importance: float) -> MemoryRecord:
    record = MemoryRecord("m1", "ns", "h", "d", "event", "caller", "user", 60.0, importance, 1.0,
                          False, False, None, None, (), (), 0, 1, 0, 1)
    record.tier, record.status, record.access_count = "working", status, accesses
    record.last_access_at = int(minutes * 60e6)
    return record


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(status=st.sampled_from(("active", "stale", "archived", "deleted")),
       minutes=st.floats(0, 100), accesses=st.integers(0, 5), importance=st.floats(0, 1))
def test_working_ends_exactly_when_a_rule_holds(status: str, minutes: float, accesses: int,
                                                importance: float) -> None:
    params = TierParams()
    record = _record(status, minutes, accesses, importance)
    now = int(minutes * 60e6)
    due = status in ("active", "stale") and (
        now >= params.working_max_minutes * 60e6 or accesses >= 2 or importance >= 0.6)
    change = tier_change(record, now, 0.5, params)
    assert (change is not None and change[0] == "episodic") == due
    assert tier_change(record, now, 0.5, params, working_ends=False) is None

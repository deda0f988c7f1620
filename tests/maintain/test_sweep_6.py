"""sweep-6: a memory goes where the tier rules settle in one change, so a second consolidation
at the same now changes nothing; a sweep-5 log still audits as it decided."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

import eventmem
from eventmem.events import DREAM_POLICY, TierChanged
from eventmem.policies.lifecycle import SWEEP_5, SWEEP_POLICY

T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)


def _used_in_a_session(mem: eventmem.Engine) -> str:
    memory_id = mem.remember("Alice went hiking in the Alps with Bob last summer",
                             kind="event", session="s1").memory_id
    assert memory_id is not None and mem.get(memory_id).tier == "working"
    for _ in range(3):  # enough to leave working memory (2) and to be promoted (3)
        mem.touch(memory_id)
    return memory_id


def _tier_changes(mem: eventmem.Engine) -> list[TierChanged]:
    return [e for _, e in mem.events() if isinstance(e, TierChanged)]


def test_a_used_working_memory_is_promoted_in_one_change(tmp_path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        memory_id = _used_in_a_session(mem)
        report = mem.consolidate(now=clock.now())
        [change] = report.tier_changes
        assert (change.from_tier, change.to_tier, change.reason) == (
            "working", "semantic", "promote_accesses")
        assert mem.get(memory_id).tier == "semantic"
        assert not mem.consolidate(now=clock.now()).changed
        assert [e.policy for e in _tier_changes(mem)] == [SWEEP_POLICY]
        assert mem.audit().ok and mem.verify().ok


def test_a_sweep_5_log_still_audits(tmp_path, monkeypatch: pytest.MonkeyPatch,
                                    legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_5, DREAM_POLICY)
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        memory_id = _used_in_a_session(mem)
        mem.consolidate(now=clock.now())
        assert mem.get(memory_id).tier == "episodic"  # one step, as sweep-5 decided
        mem.consolidate(now=clock.now())
        assert mem.get(memory_id).tier == "semantic"
        assert [e.policy for e in _tier_changes(mem)] == [SWEEP_5, SWEEP_5]
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report

"""sweep-5: pinned and immutable memories stay in their tier, episodic memories sharing an
entity move to semantic, speculative memories nothing confirmed expire, and commitments marked
done are archived 90 days on. A sweep-4 log, which decided none of that, still audits."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest

import eventmem
from eventmem.config import Config
from eventmem.errors import InvalidInputError
from eventmem.events import DREAM_POLICY
from eventmem.policies.lifecycle import SWEEP_4, LifecycleParams
from eventmem.policies.tiers import TierParams

T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)
DAY = timedelta(days=1)


def assert_sound(mem: eventmem.Engine) -> None:
    assert mem.verify().ok
    report = mem.audit()
    assert report.ok, report.findings
    view = mem.replay()
    for mid in mem._views.state.memories:  # live state equals a replay from the log
        # (retention at each one's now: a consolidation that changed nothing moved the clock)
        assert msgspec.structs.replace(view.get(mid), retention=0.0) \
            == msgspec.structs.replace(mem.get(mid), retention=0.0)


def remember(mem: eventmem.Engine, text: str, **kw: object) -> str:
    mid = mem.remember(text, **kw).memory_id  # type: ignore[arg-type]
    assert mid is not None
    return mid


def tier_reasons(report: eventmem.ConsolidationReport) -> dict[str, str]:
    return {c.memory_id: c.reason for c in report.tier_changes}


def test_three_touches_promote_an_episodic_memory_but_not_a_pinned_or_immutable_one(
        tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        plain = remember(mem, "The spare key is under the blue pot")
        pinned = remember(mem, "The alarm code is kept by the neighbour", pinned=True)
        fixed = remember(mem, "The boiler was serviced in May", immutable=True)
        for mid in (plain, pinned, fixed):
            for _ in range(3):
                mem.touch(mid)
        report = mem.consolidate(now=clock.advance(DAY))
        assert tier_reasons(report).get(plain) == "promote_accesses"
        assert plain in tier_reasons(report)
        assert pinned not in tier_reasons(report) and fixed not in tier_reasons(report)
        assert mem.get(pinned).tier == mem.get(fixed).tier == "episodic"
        assert_sound(mem)


ENTITIES = Config(tiers=TierParams(promote_entity_memories=3))  # the seeds' value


def test_three_episodic_memories_sharing_an_entity_move_to_semantic(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock, config=ENTITIES) as mem:
        first = remember(mem, "Marta Kowalski plays the violin")
        second = remember(mem, "Marta Kowalski lives near the harbour")
        third = remember(mem, "Marta Kowalski teaches chemistry")
        other = remember(mem, "Jonas Berg plays chess")
        remember(mem, "Marta Kowalski has to renew her visa", kind="plan")  # a plan: not known

        # not before they are a week old: the dream cycle merges fresh near duplicates first
        assert not tier_reasons(mem.consolidate(now=clock.advance(6 * DAY)))
        reasons = tier_reasons(mem.consolidate(now=clock.advance(DAY)))
        assert {first, second, third} <= set(reasons)
        assert {reasons[m] for m in (first, second, third)} == {"promote_entity"}
        assert other not in reasons and len(reasons) == 3
        assert mem.get(third).tier == "semantic"
        assert not mem.consolidate(now=clock.now()).tier_changes  # twice: nothing more
        assert_sound(mem)


def test_entity_promotion_is_off_by_default(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        for text in ("Marta Kowalski plays the violin", "Marta Kowalski lives near the harbour",
                     "Marta Kowalski teaches chemistry"):
            remember(mem, text)
        assert not mem.consolidate(now=clock.advance(8 * DAY)).tier_changes


def test_a_speculative_memory_expires_unless_confirmed(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        guess = remember(mem, "Ben probably prefers the window seat", confidence=0.3)
        confirmed = remember(mem, "Ben might be allergic to cats", confidence=0.3)
        sure = remember(mem, "Ben drives a green van", confidence=0.9)
        clock.advance(10 * DAY)
        mem.touch(confirmed)
        report = mem.consolidate(now=clock.set(T0 + 29 * DAY))
        assert guess not in {c.memory_id for c in report.status_changes}
        report = mem.consolidate(now=clock.set(T0 + 30 * DAY))
        changes = {c.memory_id: (c.to_status, c.reason) for c in report.status_changes}
        assert changes[guess] == ("archived", "speculative_expired")
        assert confirmed not in changes and sure not in changes
        assert mem.get(guess).status == "archived"
        assert guess not in [h.memory_id for h in mem.recall("window seat", k=5)]
        mem.consolidate(now=clock.set(T0 + 31 * DAY))
        assert mem.get(guess).status == "archived"  # stable: no flip back to active
        mem.touch(guess)  # confirmed at last: it is back
        assert mem.get(guess).status == "active"
        assert not {c.memory_id for c in mem.consolidate(now=clock.advance(DAY)).status_changes
                    if c.memory_id == guess}
        assert_sound(mem)


def test_a_commitment_marked_done_leaves_recall_and_is_archived_after_90_days(
        tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        plan = remember(mem, "I promised to send Dana the slides", kind="plan")
        assert mem.get(plan).valid_until is None
        assert plan in [h.memory_id for h in mem.recall("slides for Dana", k=5)]
        seq = mem.resolve_commitment(plan)
        assert mem.resolve_commitment(plan) == seq  # once only
        done = mem.get(plan)
        assert done.done_at == clock.now() and done.valid_until == clock.now()
        assert plan not in [h.memory_id for h in mem.recall("slides for Dana", k=5)]
        assert plan in [h.memory_id for h in mem.recall("slides for Dana", k=5,
                                                       include_hidden=True)]
        for day in (30, 60, 89):
            clock.set(T0 + (day - 1) * DAY)
            mem.touch(plan)  # still used: decay alone would archive it sooner
            report = mem.consolidate(now=clock.set(T0 + day * DAY))
            assert plan not in {c.memory_id for c in report.status_changes}
            assert mem.get(plan).done_at == T0  # an access does not undo it
        report = mem.consolidate(now=clock.set(T0 + 90 * DAY))
        assert [(c.to_status, c.reason) for c in report.status_changes
                if c.memory_id == plan] == [("archived", "commitment_done")]
        assert_sound(mem)


def test_only_a_plan_can_be_marked_done(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        fact = remember(mem, "Dana works at Acme", kind="relationship")
        head = mem.head()
        with pytest.raises(InvalidInputError, match="not a plan"):
            mem.resolve_commitment(fact)
        assert mem.head() == head
        plan = remember(mem, "I need to call the bank", kind="plan")
        mem.resolve_commitment(plan)
        with pytest.raises(eventmem.ReadOnlyError):
            mem.as_of(seq=mem.head().seq).resolve_commitment(plan)


def test_lifecycle_params_check_the_speculative_window() -> None:
    for bad in ({"speculative_below": 1.5}, {"speculative_days": -1.0},
                {"done_archive_days": -1.0}):
        with pytest.raises(InvalidInputError):
            LifecycleParams(**bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        TierParams(promote_entity_memories=-1)
    with pytest.raises(InvalidInputError):
        TierParams(promote_entity_min_age_days=-1.0)


def test_a_sweep_4_log_still_audits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_4, DREAM_POLICY)
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock, config=ENTITIES) as mem:
        pinned = remember(mem, "The alarm code is kept by the neighbour", pinned=True)
        guess = remember(mem, "Ben probably prefers the window seat", confidence=0.3)
        for text in ("Marta Kowalski plays the violin", "Marta Kowalski lives near the harbour",
                     "Marta Kowalski teaches chemistry"):
            remember(mem, text)
        for _ in range(3):
            mem.touch(pinned)
        mem.consolidate(now=clock.advance(DAY))
        mem.consolidate(now=clock.set(T0 + 40 * DAY))
        assert mem.get(pinned).tier == "semantic"  # as sweep-4 decided
        assert mem.get(guess).status != "archived" or mem.get(guess).retention < 0.1
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report
        mem.consolidate(now=clock.set(T0 + 41 * DAY))  # sweep-5 from here on
        assert_sound(mem)

"""A plan that names no time: a short errand ends after the default window, an ambition never
does, and an expired one stays findable for questions about the past."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import eventmem
from eventmem.config import Config, FormationParams
from eventmem.policies.horizon import RULE
from tests.write.logged import checked, ingested

MONDAY = datetime(2025, 1, 6, 9, tzinfo=UTC)


WEEK = Config(formation=FormationParams(plan_window_days=7.0))  # the seeds' window


def _open(tmp_path: Path, config: Config = WEEK) -> tuple[eventmem.Engine, eventmem.ManualClock]:
    clock = eventmem.ManualClock(start=MONDAY)
    return eventmem.open(tmp_path / "s", clock=clock, config=config), clock


def test_the_window_is_the_seeds_week_by_default(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MONDAY)) as mem:
        mid = mem.remember("I'm going to call the plumber", namespace="u").memory_id
        assert mem.get(mid).valid_until is not None
        assert ingested(mem, mid).plan_window_days == 7.0


def test_a_short_plan_without_a_time_gets_seven_days(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        mid = mem.remember("I'm going to call the plumber", namespace="u").memory_id
        memory = mem.get(mid)
        assert memory.kind == "plan"
        assert memory.valid_until == MONDAY + timedelta(days=7)
        event = ingested(mem, mid)
        assert (event.valid_until_rule, event.plan_window_days) == (RULE, 7.0)
        checked(mem)


def test_open_ended_plans_never_expire_by_default(tmp_path: Path) -> None:
    mem, clock = _open(tmp_path)
    with mem:
        ids = [mem.remember(text, namespace="u").memory_id
               for text in ("I want to visit Japan someday", "I'm planning to learn Spanish")]
        assert [mem.get(mid).kind for mid in ids] == ["plan", "plan"]
        assert [mem.get(mid).valid_until for mid in ids] == [None, None]
        clock.advance(timedelta(days=30))
        assert mem.consolidate().invalidated == ()
        assert mem.recall("visit Japan", namespace="u")[0].memory_id == ids[0]
        checked(mem)


def test_a_plan_with_a_time_phrase_keeps_its_own_bound(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        mid = mem.remember("I need to renew my passport by Friday", namespace="u").memory_id
        assert mem.get(mid).valid_until == datetime(2025, 1, 11, tzinfo=UTC)
        event = ingested(mem, mid)
        assert (event.valid_until_rule, event.plan_window_days) == ("timebound:weekday", 0.0)


def test_a_callers_valid_until_wins(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        until = MONDAY + timedelta(days=2)
        mid = mem.remember("I'm going to call the plumber", namespace="u",
                           valid_until=until).memory_id
        assert mem.get(mid).valid_until == until
        assert ingested(mem, mid).valid_until_rule == ""


def test_an_expired_errand_leaves_current_recall_but_answers_the_past(tmp_path: Path) -> None:
    mem, clock = _open(tmp_path)
    with mem:
        mid = mem.remember("I'm going to call the plumber", namespace="u").memory_id
        for _ in range(60):  # daily maintenance for two months
            clock.advance(timedelta(days=1))
            mem.consolidate()
        assert mem.recall("call the plumber", namespace="u") == []
        past = mem.recall("call the plumber", namespace="u", valid_at=MONDAY + timedelta(days=2))
        assert [h.memory_id for h in past] == [mid]
        assert mem.get(mid).status not in ("deleted", "purged", "erased")
        checked(mem)


def test_the_window_is_configurable_and_zero_turns_it_off(tmp_path: Path) -> None:
    config = Config(formation=FormationParams(plan_window_days=0.0))
    mem, _ = _open(tmp_path, config)
    with mem:
        mid = mem.remember("I'm going to call the plumber", namespace="u").memory_id
        assert mem.get(mid).valid_until is None
        checked(mem)


def test_audit_rederives_with_the_window_recorded_not_todays(tmp_path: Path) -> None:
    """A store reopened with another window audits the old plans as they were decided."""
    mem, clock = _open(tmp_path, Config(formation=FormationParams(plan_window_days=3.0)))
    with mem:
        first = mem.remember("I need to call the plumber", namespace="u").memory_id
    with eventmem.open(tmp_path / "s", clock=clock, config=WEEK) as again:
        second = again.remember("I need to book a haircut", namespace="u").memory_id
        assert again.get(first).valid_until == MONDAY + timedelta(days=3)
        assert again.get(second).valid_until == MONDAY + timedelta(days=7)
        checked(again)

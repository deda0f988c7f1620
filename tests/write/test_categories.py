"""The write path records a retention category beside the kind (category-1) and chooses the
tier: the caller's ``tier=``, a session's working memory, the procedural tier for a rule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.config import Config
from eventmem.policies import category
from tests.write.logged import ingested

T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)
DAY = timedelta(days=1)
BASE = Config().base_stability_days



def test_each_memory_records_its_category_rule_and_version(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        mid = mem.remember("We decided to go with Postgres for the backend").memory_id
        assert mid is not None
        event = ingested(mem, mid)
        assert (event.category, event.category_rule, event.category_policy) == (
            "decision", "decision:phrase", category.POLICY_VERSION)
        assert mem.get(mid).category == "decision"
        assert mem.audit().ok


def test_a_category_raises_the_stability_of_a_kind_never_lowers_it(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        def stored(text: str, **kw: object) -> tuple[str, float]:
            mid = mem.remember(text, importance=0.3, **kw).memory_id  # type: ignore[arg-type]
            assert mid is not None
            return ingested(mem, mid).category, ingested(mem, mid).stability
        assert stored("We decided to go with Postgres for the backend") == ("decision", 45.0)
        assert stored("The office is on the third floor") == ("", BASE["context"])
        assert stored("Finally settled in Geneva after the move") == ("fact", BASE["identity"])


def test_category_stabilities_are_configurable(tmp_path: Path) -> None:
    config = Config(categories=category.CategoryParams(stability_days={"fact": 400.0}))
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0),
                       config=config) as mem:
        def stored(text: str, **kw: object) -> tuple[str, float]:
            mid = mem.remember(text, importance=0.3, **kw).memory_id  # type: ignore[arg-type]
            assert mid is not None
            return ingested(mem, mid).category, ingested(mem, mid).stability
        assert stored("We decided to go with Postgres for the backend") == (
            "decision", BASE["context"])  # no decision floor configured
        assert stored("Finally settled in Geneva after the move") == ("fact", 400.0)


def test_corrections_and_preferences_keep_a_retention_floor(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        fix = mem.remember("Actually, the standup is at 9:30", importance=0.3).memory_id
        likes = mem.remember("I love spicy food", importance=0.3).memory_id
        plain = mem.remember("The office is on the third floor", importance=0.3).memory_id
        assert fix and likes and plain
        clock.advance(2000 * DAY)
        assert mem.get(fix).retention == pytest.approx(0.3)
        assert mem.get(likes).retention == pytest.approx(0.3)
        assert mem.get(plain).retention < 0.01
        mem.consolidate(now=clock.now())
        assert mem.get(fix).status == mem.get(likes).status == "active"
        assert mem.get(plain).status in ("archived", "deleted")  # context: decay may delete
        assert mem.audit().ok


def test_a_rule_goes_to_the_procedural_tier_and_a_caller_chooses_a_tier(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        rule = mem.remember("Always use UTC in log timestamps").memory_id
        how = mem.remember("How to deploy: run make release, then tag it").memory_id
        told = mem.remember("The printer is on floor two", tier="semantic").memory_id
        chat = mem.remember("Never push straight to main", session="s1").memory_id
        many = mem.remember_many([{"text": "Boil the kettle first", "tier": "procedural"}])
        assert rule and how and told and chat and many[0].memory_id
        assert mem.get(rule).tier == mem.get(how).tier == "procedural"
        assert ingested(mem, rule).tier_rule == "procedure"
        assert (mem.get(told).tier, ingested(mem, told).tier_rule) == ("semantic", "caller")
        assert mem.get(chat).tier == "working"  # a session's working memory comes first
        assert mem.get(many[0].memory_id).tier == "procedural"
        report = mem.audit()
        assert report.ok, report.findings


@pytest.mark.parametrize("tier", ["working", "dormant", "hot", 3])
def test_a_tier_the_caller_cannot_choose_is_refused(tmp_path: Path, tier: object) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        head = mem.head()
        with pytest.raises(eventmem.InvalidInputError, match="tier"):
            mem.remember("The printer is on floor two", tier=tier)  # type: ignore[arg-type]
        assert mem.head() == head


def test_a_log_from_before_categories_still_audits(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(category, "POLICY_VERSION", category.NONE)
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        old = mem.remember("We decided to go with Postgres", importance=0.3).memory_id
        rule = mem.remember("Always use UTC in log timestamps", importance=0.3).memory_id
        assert old and rule
        assert (ingested(mem, old).category, ingested(mem, old).stability) == ("", BASE["context"])
        assert mem.get(rule).tier == "episodic"
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok, report.findings
        new = mem.remember("We decided to go with Redis for the cache", importance=0.3).memory_id
        assert new and mem.get(new).category == "decision"
        assert mem.audit().ok

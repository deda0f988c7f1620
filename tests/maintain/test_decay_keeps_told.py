"""Decay may hide, not destroy, what was told (issue 13).

With a daily ``consolidate()`` (dream cycle on, default config) over 400 days on a ManualClock:
what a user told about themselves, in any person or extraction style, may go stale, archived or
dormant, but is never deleted or purged by decay alone: its text stays and ``get()`` returns it.
A memory of a kind short-lived by nature (context, ephemeral: ``decay_deletes_kinds``) still
decays to deletion and purge, and an explicit forget or an expiry still delete. The sweep-2 log,
which let decay delete any kind, still audits as it was decided."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.config import Config
from eventmem.events import DREAM_POLICY, MEMORY_KINDS
from eventmem.policies.decay import DecayParams
from eventmem.policies.lifecycle import SWEEP_2, LifecycleParams, sweep
from projections.state import MemoryRecord

DAY = timedelta(days=1)
T0 = datetime(2025, 1, 1, tzinfo=UTC)

TOLD = (  # the examples, each stated once and never asked about again
    "The user is allergic to peanuts.",
    "User prefers window seats.",
    "User's daughter is named Mia.",
    "Alice works at Acme",
    "Carol enjoys hiking",
    "I'm allergic to peanuts.",
)
GONE = ("deleted", "purged", "erased")


def daily(mem: eventmem.Engine, clock: eventmem.ManualClock, days: range) -> None:
    for day in days:
        mem.consolidate(now=clock.set(T0 + day * DAY + timedelta(hours=3)))


def test_told_facts_outlive_400_days_of_daily_consolidation(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "store", clock=clock) as mem:
        told = {text: mem.remember(text, namespace="dana").memory_id for text in TOLD}
        key = mem.remember("The spare key is under the blue pot", namespace="dana").memory_id
        forgotten = mem.remember("The user's locker number is 4711", namespace="dana").memory_id
        expiring = mem.remember("Renew the passport at the embassy", namespace="dana",
                                kind="plan", valid_until=T0 + 10 * DAY).memory_id
        open_plan = mem.remember("Learn to sail one day", namespace="dana",
                                 kind="plan").memory_id
        assert mem.get(key).kind == "context"
        assert {mem.get(mid).kind for mid in told.values() if mid} <= \
            {"identity", "preference", "relationship"}
        daily(mem, clock, range(1, 11))
        mem.forget(forgotten)
        daily(mem, clock, range(11, 401))

        for text, mid in told.items():
            assert mid is not None
            got = mem.get(mid)
            assert got.status not in GONE, (text, got.status)
            assert got.text == text.strip(), text
        assert {m.memory_id for m in mem.memories(namespace="dana")} >= set(told.values())
        assert open_plan is not None  # a plan without an end: faded, archived, still there
        assert (mem.get(open_plan).status, mem.get(open_plan).text) == \
            ("archived", "Learn to sail one day")
        # Short-lived by nature, forgotten, expired: deleted, then purged (text gone).
        for mid in (key, forgotten, expiring):
            assert mid is not None
            assert mem.get(mid).status == "purged", mem.get(mid)
            assert mem.get(mid).text in (None, "")
        assert mem.verify().ok
        assert mem.audit().ok


def test_an_identity_memory_is_archived_not_deleted_when_retention_runs_out(
        tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    config = Config(dream=eventmem.DreamParams(enabled=False))
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        mid = mem.remember("My middle name is Maria", kind="identity").memory_id
        assert mid is not None
        report = mem.consolidate(now=clock.set(T0 + 2000 * DAY))  # exp(-2000/365) < 0.01
        assert [(c.to_status, c.reason) for c in report.status_changes] == \
            [("archived", "retention_below_archive")]
        mem.consolidate(now=clock.set(T0 + 3650 * DAY))
        assert mem.get(mid).status == "archived"
        assert mem.get(mid).text == "My middle name is Maria"
        assert mem.audit().ok


def test_decay_deletes_kinds_is_configurable(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    config = Config(dream=eventmem.DreamParams(enabled=False),
                    lifecycle=LifecycleParams(decay_deletes_kinds=("identity",)))
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        name = mem.remember("My middle name is Maria", kind="identity").memory_id
        note = mem.remember("The spare key is under the blue pot", kind="context").memory_id
        mem.consolidate(now=clock.set(T0 + 2000 * DAY))
        assert name is not None and note is not None
        assert mem.get(name).status == "deleted"
        assert mem.get(note).status == "archived"  # context is not in this store's set
    with pytest.raises(eventmem.InvalidInputError, match="unknown kinds"):
        LifecycleParams(decay_deletes_kinds=("contxt",))


def test_a_sweep_2_log_that_deleted_by_decay_still_audits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_2, DREAM_POLICY)
    clock = eventmem.ManualClock(start=T0)
    config = Config(dream=eventmem.DreamParams(enabled=False))
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        mid = mem.remember("My middle name is Maria", kind="identity").memory_id
        assert mid is not None
        mem.consolidate(now=clock.set(T0 + 2000 * DAY))
        assert mem.get(mid).status == "deleted"  # as sweep-2 decided
        monkeypatch.undo()
        mem.consolidate(now=clock.set(T0 + 2100 * DAY))  # a sweep-3 after it: the purge is due
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report


# -- the property, on the policy: any kind outside the set, any schedule up to ten years -----------

KEPT_KINDS = tuple(k for k in MEMORY_KINDS if k not in LifecycleParams().decay_deletes_kinds)


def _record(kind: str, stability: float) -> MemoryRecord:
    return MemoryRecord("m1", "ns", "h", "d", kind, "caller", "user", stability, 0.5, 1.0,
                        False, False, None, None, (), (), 0, 1, 0, 1)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KEPT_KINDS), stability=st.floats(0.5, 400),
       days=st.lists(st.floats(0, 3650), min_size=1, max_size=40))
def test_decay_alone_never_deletes_a_kind_outside_the_set(kind: str, stability: float,
                                                          days: list[float]) -> None:
    record, decay, params = _record(kind, stability), DecayParams(), LifecycleParams()
    for day in sorted(days):
        now = int(day * DAY.total_seconds() * 1_000_000)
        for change in sweep([record], now, decay, params):
            assert change.to_status not in GONE, change
            record.status, record.status_since = change.to_status, now  # as the fold does
    assert record.status in ("active", "stale", "archived")


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KEPT_KINDS),
       days=st.lists(st.integers(1, 3650), min_size=1, max_size=25, unique=True))
def test_the_engine_never_purges_a_told_kind_without_forget_or_expiry(
        kind: str, days: list[int]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        clock = eventmem.ManualClock(start=T0)
        with eventmem.open(Path(tmp) / "s", clock=clock) as mem:
            mid = mem.remember("Dana's sister Ana lives in Lyon", kind=kind,
                               namespace="dana").memory_id
            assert mid is not None
            for day in sorted(days):
                mem.consolidate(now=clock.set(T0 + day * DAY))
                got = mem.get(mid)
                assert got.status not in GONE, (day, got.status)
                assert got.text == "Dana's sister Ana lives in Lyon"

"""The lifecycle sweep through the public engine API, on a ManualClock: decay, status changes,
purge, tiers, time-bounded memories, history and point in time, and the sweep's idempotence.

Every memory is stored with an explicit ``kind`` (the classifier is not under test here) and a
plain, calm text (no urgency, error, deadline or emotion cue, so no memory becomes a pinned
flashbulb by accident; the tests check ``pinned`` is False where it matters). Times are set with
``clock.set`` and each sweep runs at the clock's time, as an operator's daily job would.

The numbers come from ARCHITECTURE.md section 9 with the default ``Config``: retention
``exp(-t / S_eff)``, ``S_eff = S * (1 + 0.5 ln(1 + accesses))`` for a user-stated episodic memory;
active while retention >= 0.3, stale below, archived after 30 days stale (or below 0.1), deleted
below 0.01, purged 90 days after deletion.

What a hunt found: a memory the sweep restores (pinned since its archival) moves tier in the same
sweep (sweep-2; sweep-1 logs still audit), a recall does not revive a deleted memory, and a
purged memory takes no more changes. The property over random programs is in
tests/properties/test_maintain_programs.py."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import eventmem
from eventmem.events import DREAM_POLICY, LifecycleTransitioned, TierChanged
from eventmem.policies.dream.params import DreamParams
from eventmem.policies.lifecycle import SWEEP_1, SWEEP_POLICY, LifecycleParams
from tests.maintain.test_dream_cycle import T0, audited_and_settled, open_at_t0
from tests.strategies import OTHERS

DAY = timedelta(days=1)


@pytest.fixture
def mem(store_path: Path, clock: eventmem.ManualClock) -> Iterator[eventmem.Engine]:
    """The examples pin the sweep's own numbers (lifecycle, tiers, expiry), so they run without
    the dream cycle, whose rehearsal and forgetting would change them
    (tests/maintain/test_dream_cycle.py). The property over random programs
    (tests/properties/test_maintain_programs.py) keeps the dream cycle on."""
    config = eventmem.Config(dream=DreamParams(enabled=False))
    engine = eventmem.open(store_path, clock=clock, config=config)
    try:
        yield engine
    finally:
        engine.close()


def at_day(clock: eventmem.ManualClock, t0: datetime, days: float) -> datetime:
    return clock.set(t0 + timedelta(days=days))


def sweep(mem: eventmem.Engine, clock: eventmem.ManualClock, t0: datetime, days: float) -> Any:
    """Move the clock to ``t0 + days`` and consolidate at that now."""
    return mem.consolidate(now=at_day(clock, t0, days))


def changes_of(report: Any, memory_id: str) -> list[Any]:
    return [c for c in report.status_changes if c.memory_id == memory_id]


def remember(mem: eventmem.Engine, text: str, kind: str, **options: Any) -> str:
    result = mem.remember(text, kind=kind, **options)
    assert result.action == "created", result
    assert result.memory_id is not None
    assert mem.get(result.memory_id).pinned is options.get("pinned", False), "a flashbulb?"
    return result.memory_id


# -- decay and the lifecycle ------------------------------------------------------------------


def test_a_context_memory_goes_stale_after_about_a_week(mem, clock, t0):
    old = remember(mem, "Alice is sitting in meeting room four", "context")
    report = sweep(mem, clock, t0, 7)
    assert changes_of(report, old) == []
    got = mem.get(old)
    assert got.status == "active"
    assert got.retention == pytest.approx(math.exp(-1), rel=1e-9)  # 7 days of S = 7

    report = sweep(mem, clock, t0, 9)
    [change] = changes_of(report, old)
    assert (change.from_status, change.to_status, change.reason) == (
        "active", "stale", "retention_below_active")
    assert change.retention == pytest.approx(math.exp(-9 / 7), rel=1e-9)
    assert mem.get(old).status == "stale"

    # An equally relevant, fresh memory ranks above the stale one (stale weighs x0.5).
    fresh = remember(mem, "Alice is sitting in meeting room five", "context")
    hits = mem.recall("Alice is sitting in a meeting room", k=5)
    by_id = {h.memory_id: h for h in hits}
    assert [h.memory_id for h in hits][:2] == [fresh, old]
    assert by_id[old].signals["status_weight"] == 0.5
    assert by_id[fresh].signals["status_weight"] == 1.0
    # equally relevant: their fused relevance is within a few percent of each other
    assert by_id[old].signals["rrf"] == pytest.approx(by_id[fresh].signals["rrf"], rel=0.05)
    # ... and the recall was an access: the stale memory is active again, retention restored
    assert mem.get(old).status == "active"
    assert mem.get(old).retention == 1.0


def test_an_identity_memory_accessed_ten_times_is_still_active_after_200_days(mem, clock, t0):
    used = remember(mem, "My full name is Alice Novak", "identity")
    unused = remember(mem, "My middle name is Maria", "identity")
    for i in range(1, 11):  # ten accesses, ten days apart
        at_day(clock, t0, 10 * i)
        mem.touch(used)
    assert mem.get(used).access_count == 10

    sweep(mem, clock, t0, 200)
    assert mem.get(used).status == "active"
    assert mem.get(used).retention > 0.9
    # 400 days after its last access it is still active; the unused one has gone stale
    report = sweep(mem, clock, t0, 500)
    assert mem.get(used).status == "active", mem.get(used)
    assert [(c.to_status, c.reason) for c in changes_of(report, unused)] == [
        ("stale", "retention_below_active")]
    assert mem.get(unused).retention == pytest.approx(math.exp(-500 / 365), rel=1e-9)


def test_a_pinned_memory_never_archives(mem, clock, t0):
    pinned = remember(mem, "The spare key is under the blue flowerpot", "context", pinned=True)
    twin = remember(mem, "The bike key is under the red flowerpot", "context")
    for days in range(10, 401, 30):
        report = sweep(mem, clock, t0, days)
        assert changes_of(report, pinned) == []
        assert mem.get(pinned).status == "active"
    sweep(mem, clock, t0, 400)
    assert mem.get(pinned).status == "active"
    assert mem.get(pinned).retention < 1e-6  # retention stays honest: it just never archives
    assert mem.get(twin).status in ("deleted", "purged")
    # a stale memory that gets pinned is brought back to active by the next sweep
    late = remember(mem, "The garage code is written on the fridge", "context")
    report = sweep(mem, clock, t0, 410)
    assert [c.to_status for c in changes_of(report, late)] == ["stale"]
    mem.pin(late)
    report = sweep(mem, clock, t0, 410)
    assert [(c.to_status, c.reason) for c in changes_of(report, late)] == [
        ("active", "exempt_pinned")]


@pytest.mark.parametrize("days, status", [(89, "deleted"), (91, "purged")])
def test_purge_90_days_after_deletion(mem, clock, t0, days, status):
    mid = remember(mem, "Alice's locker number is 12", "identity")
    at_day(clock, t0, 1)
    mem.forget(mid)
    assert mem.get(mid).status == "deleted"
    report = sweep(mem, clock, t0, 1 + days)
    assert mem.get(mid).status == status
    if status == "purged":
        [change] = changes_of(report, mid)
        assert (change.from_status, change.reason) == ("deleted", "purge_due")
    else:
        assert changes_of(report, mid) == []
    assert mem.recall("Alice locker number", k=5) == []
    hidden = [h.memory_id for h in mem.recall("Alice locker number", k=5, include_hidden=True)]
    # A purged memory's content is gone: not even an operator's search finds it.
    assert hidden == ([] if status == "purged" else [mid])


def test_purge_removes_the_content(mem, clock, t0):
    mid = remember(mem, "Alice's locker number is 12", "identity")
    shared = remember(mem, "The gate is painted green", "identity")
    twin = mem.remember("The gate is painted green", namespace="other", kind="identity").memory_id
    mem.forget(mid)
    mem.forget(shared)
    sweep(mem, clock, t0, 91)
    assert mem.get(mid).status == mem.get(shared).status == "purged"
    assert mem.get(mid).text is None
    # The content is gone from the store, not only from the views.
    assert all(b"locker" not in data for _, data in mem.store.iter_blobs())
    # Content another memory still holds stays (the same text in another namespace), though
    # the purged memory itself no longer shows it.
    assert mem.get(twin).text == "The gate is painted green" and mem.get(shared).text is None
    assert any(b"gate is painted" in data for _, data in mem.store.iter_blobs())
    assert [h.memory_id for h in mem.recall("gate painted green", namespace="other")] == [twin]
    assert mem.verify().ok  # live views equal a rebuild from the log without those bytes


@pytest.fixture
def mem_deleting_events(store_path: Path, clock: eventmem.ManualClock
                        ) -> Iterator[eventmem.Engine]:
    """As ``mem``, with event among the kinds decay alone may delete (by default only context
    and ephemeral are: tests/maintain/test_decay_keeps_told.py)."""
    lifecycle = LifecycleParams(decay_deletes_kinds=("context", "ephemeral", "event"))
    config = eventmem.Config(dream=DreamParams(enabled=False), lifecycle=lifecycle)
    with eventmem.open(store_path, clock=clock, config=config) as engine:
        yield engine


def test_history_shows_every_lifecycle_transition_with_its_reason(mem_deleting_events, clock,
                                                                  t0):
    """An event memory (S = 60), in a store where decay may delete events, left alone: stale at
    75 days, archived after 30 days stale, deleted when retention falls below 0.01, purged 90
    days later."""
    mem = mem_deleting_events
    mid = remember(mem, "We repainted the hallway a light green", "event")
    expected = []
    for days, to_status, reason in [
        (75, "stale", "retention_below_active"),      # exp(-75/60) = 0.29
        (100, None, None),                            # stale for 25 days: still stale
        (106, "archived", "stale_too_long"),          # stale for 31 days
        (200, None, None),                            # 0.036: archived stays archived
        (280, "deleted", "retention_below_delete"),   # exp(-280/60) = 0.0094
        (369, None, None),                            # deleted for 89 days
        (371, "purged", "purge_due"),
    ]:
        report = sweep(mem, clock, t0, days)
        got = [(c.to_status, c.reason) for c in changes_of(report, mid)]
        assert got == ([] if to_status is None else [(to_status, reason)]), days
        if to_status is not None:
            expected.append((to_status, reason, days))
        if days == 106:
            assert mem.get(mid).text == "We repainted the hallway a light green"  # get finds it
            assert mem.recall("hallway painted green", k=5) == []  # default recall does not
            # (through a view: a recall that returned it would be an access and revive it)
            view = mem.as_of(seq=mem.seq)
            assert [h.memory_id for h in view.recall("hallway painted green", k=5,
                                                     include_hidden=True)] == [mid]

    found = []
    for entry in mem.history(mid):
        if entry.type != "memory.lifecycle":
            continue
        [change] = [c for c in entry.details["changes"] if c.memory_id == mid]
        days = (entry.details["now"] - eventmem.clock.to_micros(t0)) / 86_400e6
        found.append((change.to_status, change.reason, days))
    assert found == expected
    assert mem.history(mid)[0].type == "memory.ingested"


def test_as_of_before_a_sweep_shows_the_old_status(mem, clock, t0):
    mid = remember(mem, "Bob parked on level three", "context")
    at_day(clock, t0, 9)
    before = mem.seq
    report = mem.consolidate()
    assert [c.to_status for c in changes_of(report, mid)] == ["stale"]
    assert mem.get(mid).status == "stale"

    view = mem.as_of(seq=before)
    assert view.get(mid).status == "active"
    assert view.get(mid).retention == 1.0  # the view's now is the time of seq `before` (t0)
    after = mem.as_of(seq=report.seqs[-1])
    assert after.get(mid).status == "stale"
    assert after.get(mid).retention == pytest.approx(math.exp(-9 / 7), rel=1e-9)
    assert mem.as_of(at=t0 + 8 * DAY).get(mid).status == "active"


# -- idempotence of the sweep -----------------------------------------------------------------


def test_consolidating_twice_at_the_same_now_changes_nothing(mem, clock, t0):
    kinds = ["context", "ephemeral", "event", "plan", "identity", "activity"]
    ids = [remember(mem, f"Note {i} about the {kind} side of the garden shed", kind)
           for i, kind in enumerate(kinds)]
    plan = remember(mem, "Visit the garden centre for new seeds", "plan",
                    valid_until=t0 + 5 * DAY)
    mem.forget(ids[4])
    for _ in range(3):
        mem.touch(ids[2])
    first = sweep(mem, clock, t0, 100)
    assert first.status_changes and first.invalidated == (plan,)
    assert len(first.seqs) >= 2
    seq = mem.seq
    second = mem.consolidate(now=t0 + 100 * DAY)
    assert second.status_changes == second.tier_changes == second.invalidated == ()
    assert second.seqs == ()
    assert mem.seq == seq  # nothing appended
    assert mem.verify().ok


def test_a_sweep_that_stales_and_promotes_is_idempotent(mem, clock, t0):
    mid = remember(mem, "Alice ran the Berlin half marathon", "event")
    for _ in range(3):
        mem.touch(mid)
    # exp(-130 / (60 * (1 + 0.5 ln 4))) = 0.278: stale; 3 accesses: promoted to semantic
    first = sweep(mem, clock, t0, 130)
    assert [c.to_status for c in changes_of(first, mid)] == ["stale"]
    assert [c.to_tier for c in first.tier_changes] == ["semantic"]
    seq = mem.seq
    second = mem.consolidate(now=t0 + 130 * DAY)
    assert second.status_changes == ()
    assert mem.seq == seq


def test_promotion_does_not_raise_retention_without_an_access(mem, clock, t0):
    mid = remember(mem, "Alice ran the Berlin half marathon", "event")
    for _ in range(3):
        mem.touch(mid)
    at_day(clock, t0, 30)
    before = mem.get(mid).retention
    report = mem.consolidate()
    assert [c.to_tier for c in report.tier_changes] == ["semantic"]
    assert mem.get(mid).retention <= before


# -- tiers --------------------------------------------------------------------------------------


@pytest.mark.parametrize("access", ["touch", "recall"])
def test_promotion_to_semantic_after_three_accesses(mem, clock, t0, access):
    hot = remember(mem, "Carol keeps bees on the allotment", "activity")
    cold = remember(mem, "Dan restores old radios in his shed", "activity")
    for i in range(3):
        at_day(clock, t0, 1 + i)
        if access == "touch":
            mem.touch(hot)
        else:
            assert [h.memory_id for h in mem.recall("Carol bees allotment", k=1)] == [hot]
        if i < 2:
            mem.touch(cold)
        if i == 1:  # two accesses are not enough
            assert mem.consolidate().tier_changes == ()
    assert mem.get(hot).access_count == 3 and mem.get(cold).access_count == 2
    report = mem.consolidate()
    assert [(c.memory_id, c.from_tier, c.to_tier, c.reason) for c in report.tier_changes] == [
        (hot, "episodic", "semantic", "promote_accesses")]
    assert mem.get(hot).tier == "semantic" and mem.get(cold).tier == "episodic"
    assert [e.details["changes"][0].reason for e in mem.history(hot)
            if e.type == "memory.tier_changed"] == ["promote_accesses"]


def test_demotion_to_dormant_after_60_idle_days_with_low_utility(mem, clock, t0):
    idle = remember(mem, "Alice's favourite colour is teal", "preference")
    control = remember(mem, "Bob's favourite colour is orange", "preference")
    # Negative feedback (not an access) shortly before: utility drifts back toward 0.5 by 1% a
    # day, so after 60 idle days only recent feedback can hold it under 0.2.
    at_day(clock, t0, 58)
    for _ in range(12):
        utility = mem.feedback(idle, useful=False)
    assert utility == pytest.approx(0.5 * 0.9**12)
    assert mem.consolidate().tier_changes == ()  # 58 idle days
    report = sweep(mem, clock, t0, 60)
    assert [(c.memory_id, c.to_tier, c.reason) for c in report.tier_changes] == [
        (idle, "dormant", "demote_idle")]
    got = mem.get(idle)
    assert (got.tier, got.status) == ("dormant", "dormant")
    assert mem.get(control).tier == "episodic"
    # dormant memories are hidden from default recall (asked through a view: no access)
    view = mem.as_of(seq=mem.seq)
    assert [h.memory_id for h in view.recall("favourite colour teal", k=5)] == [control]

    # Its retention is frozen at the sweep's now; the control's keeps falling.
    frozen = math.exp(-60 / 180)
    for days in (61, 120, 400):
        at_day(clock, t0, days)
        assert mem.get(idle).retention == pytest.approx(frozen, rel=1e-9)
        # (a preference never falls below its category's floor, 0.3)
        assert mem.get(control).retention == pytest.approx(max(0.3, math.exp(-days / 180)),
                                                           rel=1e-9)
        assert mem.consolidate(now=clock.now()).tier_changes == ()
    assert mem.get(idle).status == "dormant"
    # an access brings it back
    mem.touch(idle)
    got = mem.get(idle)
    assert (got.tier, got.status, got.retention) == ("episodic", "active", 1.0)


# -- time-bounded memories --------------------------------------------------------------------


def test_a_time_bounded_memory_expires(mem, clock, t0):
    mid = remember(mem, "Alice is staying at the Harbour Hotel", "plan",
                   valid_until=t0 + 3 * DAY)
    assert mem.get(mid).valid_until == t0 + 3 * DAY
    assert sweep(mem, clock, t0, 2).invalidated == ()
    report = sweep(mem, clock, t0, 4)
    assert report.invalidated == (mid,)
    [entry] = [e for e in mem.history(mid) if e.type == "memory.invalidated"]
    assert entry.details["reason"] == "expired"
    assert entry.details["until"] == eventmem.clock.to_micros(t0 + 3 * DAY)

    query = "where is Alice staying"
    assert mem.recall(query, k=5) == []
    assert [h.memory_id for h in mem.recall(query, k=5, valid_at=t0 + DAY)] == [mid]
    assert mem.recall(query, k=5, valid_at=t0 + 3 * DAY) == []  # valid time is [from, until)
    assert mem.get(mid, valid_at=t0 + DAY).memory_id == mid
    assert mem.get(mid).text == "Alice is staying at the Harbour Hotel"  # stays in history
    assert sweep(mem, clock, t0, 4).invalidated == ()  # once


# -- on a store of its own, at 09:00, the dream cycle on -------------------------------------------




# -- a memory the sweep restores is judged on the status it leaves (sweep-2) -----------------------


def restored_by_pin(mem: eventmem.Engine) -> tuple[str, datetime]:
    """A context memory used three times, archived 31 days on, then pinned."""
    mid = mem.remember(OTHERS[0], kind="context").memory_id
    assert mid is not None
    for _ in range(3):
        mem.touch(mid)
    now = T0 + 31 * DAY
    first = mem.consolidate(now=now)
    assert [(c.to_status, c.reason) for c in first.status_changes] == \
        [("archived", "retention_below_archive")]
    assert first.tier_changes == ()  # leaving: its tier is not judged
    mem.pin(mid)
    return mid, now


def test_a_pinned_memory_the_sweep_restores_keeps_its_tier(store_path: Path) -> None:
    with open_at_t0(store_path) as mem:
        mid, now = restored_by_pin(mem)
        report = mem.consolidate(now=now)
        assert [(c.to_status, c.reason) for c in report.status_changes] == \
            [("active", "exempt_pinned")]
        # Pinned, it keeps its tier (sweep-5); sweep-2 to sweep-4 promoted it in this same
        # sweep, sweep-1 at the next (test_a_sweep_1_log_still_audits).
        assert report.tier_changes == ()
        assert mem.get(mid).tier == "episodic"
        assert all(e.policy == SWEEP_POLICY for _, e in mem.store.read()
                   if isinstance(e, LifecycleTransitioned | TierChanged) and e.now == now)
        audited_and_settled(mem, now)


def test_a_sweep_1_log_still_audits(store_path: Path, monkeypatch: pytest.MonkeyPatch,
        legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_1, DREAM_POLICY)
    with open_at_t0(store_path) as mem:
        _, now = restored_by_pin(mem)
        assert mem.consolidate(now=now).tier_changes == ()  # sweep-1: at the next sweep
        assert mem.consolidate(now=now).tier_changes != ()
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report


# -- deleted and purged memories -------------------------------------------------------------------


def test_recall_of_a_deleted_memory_does_not_revive_it(store_path: Path) -> None:
    with open_at_t0(store_path) as mem:
        mid = mem.remember(OTHERS[1], kind="event").memory_id
        assert mid is not None
        mem.forget(mid)
        hits = mem.recall("Dan restores old radios", include_hidden=True)
        assert mid in [h.memory_id for h in hits]
        assert mem.get(mid).status == "deleted"
        report = mem.consolidate(now=T0 + 91 * DAY)
        assert [(c.memory_id, c.to_status) for c in report.status_changes] == [(mid, "purged")]
        audited_and_settled(mem, T0 + 91 * DAY)


def test_a_purged_memory_takes_no_more_changes(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        made = mem.remember("The old locker number was 4711", namespace="n")
        mem.forget(made.memory_id)
        clock.advance(100 * DAY)
        mem.consolidate()
        assert mem.get(made.memory_id).status == "purged"
        head = mem.head()
        for change in (mem.forget, mem.touch, mem.pin, mem.unpin, mem.feedback):
            with pytest.raises(eventmem.InvalidInputError, match="is purged"):
                change(made.memory_id)
        assert mem.head() == head
        assert mem.get(made.memory_id).status == "purged"
        assert mem.audit().ok and mem.verify().ok

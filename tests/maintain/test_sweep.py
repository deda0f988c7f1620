"""Memory dynamics through the public engine API, on a ManualClock: decay, the lifecycle sweep,
tiers, utility, time-bounded memories, history and point in time.

Every memory is stored with an explicit ``kind`` (the classifier is not under test here) and a
plain, calm text (no urgency, error, deadline or emotion cue, so no memory becomes a pinned
flashbulb by accident; the tests check ``pinned`` is False where it matters). Times are set with
``clock.set`` and each sweep runs at the clock's time, as an operator's daily job would.

The numbers come from ARCHITECTURE.md section 9 with the default ``Config``: retention
``exp(-t / S_eff)``, ``S_eff = S * (1 + 0.5 ln(1 + accesses))`` for a user-stated episodic memory;
active while retention >= 0.3, stale below, archived after 30 days stale (or below 0.1), deleted
below 0.01, purged 90 days after deletion.

The last test is a hypothesis property over random programs of remember / touch / recall /
feedback / forget / clock advances / consolidate on one store.

Known bugs are marked ``xfail(strict=True)`` with the reason: each such test passes once the bug
is fixed, and then the marker must go.
"""

from __future__ import annotations

import itertools
import math
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import eventmem
import replay
from eventmem.policies.dream.params import DreamParams

DAY = timedelta(days=1)
T0 = datetime(2025, 1, 1, tzinfo=UTC)  # the property's start (fixtures do not mix with @given)


@pytest.fixture
def mem(store_path: Path, clock: eventmem.ManualClock) -> Iterator[eventmem.Engine]:
    """The examples pin the sweep's own numbers (lifecycle, tiers, expiry), so they run without
    the dream cycle, whose rehearsal and forgetting would change them
    (tests/maintain/test_dream_cycle.py). The property at the end keeps the dream cycle on."""
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
    shared = remember(mem, "The gate code is 4417", "identity")
    twin = mem.remember("The gate code is 4417", namespace="other", kind="identity").memory_id
    mem.forget(mid)
    mem.forget(shared)
    sweep(mem, clock, t0, 91)
    assert mem.get(mid).status == mem.get(shared).status == "purged"
    assert mem.get(mid).text is None
    # The content is gone from the store, not only from the views.
    assert all(b"locker" not in data for _, data in mem.store.iter_blobs())
    # Content another memory still holds stays (the same text in another namespace), though
    # the purged memory itself no longer shows it.
    assert mem.get(twin).text == "The gate code is 4417" and mem.get(shared).text is None
    assert any(b"gate code" in data for _, data in mem.store.iter_blobs())
    assert [h.memory_id for h in mem.recall("gate code", namespace="other")] == [twin]
    assert mem.verify().ok  # live views equal a rebuild from the log without those bytes


def test_history_shows_every_lifecycle_transition_with_its_reason(mem, clock, t0):
    """An event memory (S = 60) left alone: stale at 75 days, archived after 30 days stale,
    deleted when retention falls below 0.01, purged 90 days later."""
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
        assert mem.get(control).retention == pytest.approx(math.exp(-days / 180), rel=1e-9)
        assert mem.consolidate(now=clock.now()).tier_changes == ()
    assert mem.get(idle).status == "dormant"
    # an access brings it back
    mem.touch(idle)
    got = mem.get(idle)
    assert (got.tier, got.status, got.retention) == ("episodic", "active", 1.0)


# -- reinforcement and utility ----------------------------------------------------------------


def test_touch_raises_stability_and_never_lowers_it(mem, clock, t0):
    mid = remember(mem, "Erin teaches piano on Tuesdays", "activity")
    stabilities = [mem.get(mid).stability]
    for days in (0, 0, 1, 5, 30, 30, 120):
        at_day(clock, t0, days)
        mem.touch(mid)
        stabilities.append(mem.get(mid).stability)
    assert all(b > a for a, b in itertools.pairwise(stabilities)), stabilities

    # the spacing effect: the same single access teaches more after a longer gap
    soon = remember(mem, "Frank collects vintage maps", "activity")
    late = remember(mem, "Gina collects vintage stamps", "activity")
    at_day(clock, t0, 121)
    mem.touch(soon)
    at_day(clock, t0, 180)
    mem.touch(late)
    assert mem.get(late).stability > mem.get(soon).stability > 45.0


def test_a_recall_grows_stability_like_a_touch(mem, clock, t0):
    touched = remember(mem, "Hana grows tomatoes on her balcony", "activity")
    recalled = remember(mem, "Ivan grows chillies in his greenhouse", "activity")
    at_day(clock, t0, 30)
    mem.touch(touched)
    assert [h.memory_id for h in mem.recall("Ivan chillies greenhouse", k=1)] == [recalled]
    assert mem.get(recalled).access_count == mem.get(touched).access_count == 1
    assert mem.get(recalled).stability == pytest.approx(mem.get(touched).stability)


def test_feedback_moves_utility_and_recall_ranks_with_it(mem):
    a = remember(mem, "Maya keeps the spare key under the blue flowerpot", "context")
    b = remember(mem, "Maya keeps the spare key under the red flowerpot", "context")
    assert mem.get(a).utility == 0.5
    assert mem.feedback(a, useful=True) == pytest.approx(0.55)
    assert mem.feedback(a, useful=True) == pytest.approx(0.595)
    assert mem.feedback(b, useful=False) == pytest.approx(0.45)
    assert mem.feedback(b, useful=0.0) == pytest.approx(0.405)
    assert mem.get(a).utility == pytest.approx(0.595)
    assert [e.details["utility"] for e in mem.history(b) if e.type == "memory.feedback"] == [
        pytest.approx(0.45), pytest.approx(0.405)]

    query = "where does Maya keep the spare key"
    first, second = [h.memory_id for h in mem.recall(query, k=2)]
    # make the one that ranked second the useful one: the order flips
    for _ in range(6):
        mem.feedback(second, useful=True)
        mem.feedback(first, useful=False)
    hits = mem.recall(query, k=2)
    assert [h.memory_id for h in hits] == [second, first]
    high, low = hits
    assert high.signals["utility"] > 0.5 > low.signals["utility"]
    assert high.signals["utility_weight"] > 1.0 > low.signals["utility_weight"]
    assert high.signals["utility_weight"] == pytest.approx(0.75 + 0.5 * high.signals["utility"])


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


# -- the property -----------------------------------------------------------------------------

TEXTS = (
    "Alice moved to Berlin in March",
    "Alice prefers tea over coffee",
    "Bob lives in Paris with his dog",
    "The team standup is at nine every Monday",
    "Carol keeps bees on the allotment",
    "Dan restores old radios in his shed",
    "Erin teaches piano on Tuesdays",
    "Frank collects vintage maps",
    "The spare key is under the blue flowerpot",
    "Gina walks the dog along the canal",
)
KINDS = ("identity", "preference", "event", "plan", "context", "ephemeral")

remembers = st.tuples(
    st.just("remember"), st.integers(0, len(TEXTS) - 1), st.sampled_from(KINDS),
    st.sampled_from(["user", "extraction"]), st.booleans(),
    st.one_of(st.none(), st.integers(1, 40)))  # valid for that many days
advances = st.tuples(st.just("advance"), st.sampled_from([0.5, 1, 2, 3, 5, 8, 13, 30, 95]))
consolidates = st.tuples(st.just("consolidate"))
OPERATIONS = {
    "remember": remembers,
    "touch": st.tuples(st.just("touch"), st.integers(0, 50)),
    "recall": st.tuples(st.just("recall"), st.integers(0, len(TEXTS) - 1)),
    # once, or a burst (twelve "not useful" take utility under the demotion threshold of 0.2)
    "feedback": st.tuples(st.just("feedback"), st.integers(0, 50), st.booleans(),
                          st.sampled_from([1, 12])),
    "forget": st.tuples(st.just("forget"), st.integers(0, 50)),
    "advance": advances,
    "consolidate": consolidates,
}
# Repeated names weigh the choice: time passes and sweeps find work.
operations = st.sampled_from(
    ["remember", "touch", "recall", "feedback", "feedback", "forget"] + ["advance"] * 3
    + ["consolidate"] * 2
).flatmap(OPERATIONS.__getitem__)


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="eventmem-dynamics-") as path:
        yield Path(path)


def _dynamics(memory: eventmem.Memory) -> tuple[Any, ...]:
    """What time changes about a memory (retention rounded: a view recomputes it). Not the text:
    a purge removes it from the store, and views of the past show it gone, like an erasure."""
    return (memory.status, memory.tier, round(memory.retention, 9), round(memory.stability, 9),
            round(memory.utility, 9), memory.access_count)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=st.tuples(st.lists(remembers, min_size=2, max_size=6),
                         st.lists(operations, min_size=10, max_size=50)).map(lambda p: p[0] + p[1]))
def test_dynamics_replay_idempotence_and_monotone_retention(workdir, program):
    store = Path(tempfile.mkdtemp(dir=workdir))
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(store, clock=clock, config=eventmem.Config(sync=False)) as mem:
        ids: list[str] = []
        # memory id -> (retention, (last_access_at, access_count), tier) at the previous look
        seen: dict[str, tuple[float, tuple[datetime, int], str]] = {}
        past: dict[int, tuple[datetime, dict[str, tuple[Any, ...]]]] = {}  # seq -> state
        for op in program:
            name = op[0]
            if name == "remember":
                _, i, kind, source, pinned, until = op
                valid_until = None if until is None else clock.now() + timedelta(days=until)
                r = mem.remember(TEXTS[i], kind=kind, source=source, pinned=pinned,
                                 valid_until=valid_until)
                if r.action == "created":
                    ids.append(r.memory_id)
            elif name == "touch" and ids:
                _change(mem, mem.touch, ids[op[1] % len(ids)])
            elif name == "recall":
                mem.recall(TEXTS[op[1]], k=2)
            elif name == "feedback" and ids:
                for _ in range(op[3]):
                    _change(mem, mem.feedback, ids[op[1] % len(ids)], useful=op[2])
            elif name == "forget" and ids:
                _change(mem, mem.forget, ids[op[1] % len(ids)])
            elif name == "advance":
                clock.advance(timedelta(days=op[1]))
            elif name == "consolidate":
                now = mem.now()
                first = mem.consolidate(now=now)
                seq = mem.seq
                # (b) a second sweep at the same now changes nothing
                second = mem.consolidate(now=now)
                assert (second.status_changes, second.tier_changes, second.invalidated,
                        second.seqs) == ((), (), (), ()), (first, second)
                assert mem.seq == seq
                if first.seqs:
                    event("consolidate changed something")

            # (c) without an access, retention never rises as the clock advances
            for mid in ids:
                got = mem.get(mid)  # not an access
                previous = seen.get(mid)
                accessed = (got.last_access_at, got.access_count)
                if previous is not None and previous[1] == accessed:  # tier changes included
                    assert got.retention <= previous[0] + 1e-12, (mid, previous, got)
                seen[mid] = (got.retention, accessed, got.tier)

            # (a) the live projections equal a rebuild from the log
            assert mem._views.digests() == replay.rebuild(mem.store).digests(), op
            # The state right after each seq, seen at that event's time (what a view sees).
            past.setdefault(mem.seq, (mem.now(), {mid: _dynamics(mem.get(mid)) for mid in ids}))

        # (d) as_of any past point equals the state at that point, decay included
        compared = 0
        for seq in sorted(past)[:: max(1, len(past) // 6)]:
            when, expected = past[seq]
            view = mem.as_of(seq=seq)
            if view.now() == when:  # else the clock had moved on before the state was taken
                assert {mid: _dynamics(view.get(mid)) for mid in expected} == expected, seq
                compared += 1
        assert compared, "no past point was compared"


def _change(mem: eventmem.Engine, change: Any, memory_id: str, **kwargs: Any) -> None:
    """``change(memory_id)``, which a purged memory refuses (its content is gone)."""
    if mem.get(memory_id).status == "purged":
        with pytest.raises(eventmem.InvalidInputError, match="is purged"):
            change(memory_id, **kwargs)
    else:
        change(memory_id, **kwargs)

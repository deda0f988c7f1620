"""Memory dynamics policies (decay, lifecycle, utility, tiers): pure functions of (record, now).

Properties first (hypothesis), then one example with exact numbers for each rule of the seeds.
"""

from __future__ import annotations

import math
import random
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.clock import MICROS_PER_DAY
from eventmem.errors import InvalidInputError
from eventmem.policies.decay import (
    DECAY_MODELS,
    DecayParams,
    effective_stability,
    retention,
    stability_after_access,
)
from eventmem.policies.lifecycle import LifecycleParams, Transition, status_at, sweep
from eventmem.policies.tiers import TierParams, hot_set, tier_change, working_evictions
from eventmem.policies.utility import UtilityParams, after_feedback, drifted
from projections.state import MemoryRecord

DAY = MICROS_PER_DAY
T0 = 1_735_689_600 * 1_000_000  # 2025-01-01T00:00Z
DECAY = DecayParams()
LIFE = LifecycleParams()
UTIL = UtilityParams()
TIERS = TierParams()


def make(
    memory_id: str = "m1",
    *,
    kind: str = "context",
    source: str = "user",
    stability: float = 7.0,
    importance: float = 0.5,
    pinned: bool = False,
    immutable: bool = False,
    created_at: int = T0,
    created_seq: int = 1,
    last_access_at: int | None = None,
    **later: Any,
) -> MemoryRecord:
    """A MemoryRecord (positional by design) from keywords with the defaults of a fresh ingest."""
    record = MemoryRecord(
        memory_id, "ns", "hash-" + memory_id, "key-" + memory_id, kind, "caller", source,
        stability, importance, 1.0, pinned, immutable, None, None, (), (), created_at, created_seq,
        created_at if last_access_at is None else last_access_at, created_seq,
    )
    for name, value in later.items():
        setattr(record, name, value)
    return record


# -- strategies -------------------------------------------------------------------------------

models = st.sampled_from(DECAY_MODELS)
tiers = st.sampled_from(["working", "episodic", "semantic", "procedural", "dormant", "unknown"])
sources = st.sampled_from(["user", "agent", "extraction", "import", "system", "consolidation"])
statuses = st.sampled_from(
    ["active", "stale", "archived", "dormant", "superseded", "deleted", "purged", "erased"])
offsets = st.integers(min_value=0, max_value=3_000 * DAY)


@st.composite
def records(draw: st.DrawFn, memory_id: str = "m1", created_seq: int = 1) -> MemoryRecord:
    created = T0 + draw(st.integers(min_value=0, max_value=400 * DAY))
    status = draw(statuses)
    return make(
        memory_id,
        source=draw(sources),
        stability=draw(st.floats(min_value=0.0, max_value=40_000.0)),
        pinned=draw(st.booleans()),
        immutable=draw(st.booleans()),
        created_at=created,
        created_seq=created_seq,
        last_access_at=created + draw(st.integers(min_value=0, max_value=400 * DAY)),
        access_count=draw(st.integers(min_value=0, max_value=50)),
        reinforce_count=draw(st.integers(min_value=0, max_value=5)),
        tier=draw(tiers),
        status=status,
        status_since=draw(st.sampled_from([0, created + draw(offsets)])),
        deleted_at=(created + draw(offsets)) if status == "deleted" and draw(st.booleans())
        else None,
        flashbulb=draw(st.booleans()),
    )


# -- properties -------------------------------------------------------------------------------

@given(records(), models, offsets, offsets)
def test_without_access_retention_never_rises(record: MemoryRecord, model: str, a: int,
                                              b: int) -> None:
    params = DecayParams(model=model)  # type: ignore[arg-type]
    early, late = sorted((a, b))
    r_early = retention(record, record.created_at + early, params)
    r_late = retention(record, record.created_at + late, params)
    assert 0.0 <= r_late <= r_early <= 1.0


@given(records(), models, offsets)
def test_an_access_never_lowers_stability(record: MemoryRecord, model: str, gap: int) -> None:
    params = DecayParams(model=model)  # type: ignore[arg-type]
    grown = stability_after_access(record, record.last_access_at + gap, params)
    assert grown >= record.stability
    assert grown <= max(record.stability, params.max_stability_days)


def apply(record: MemoryRecord, change: Transition, now: int) -> None:
    """What the engine's fold does with a transition."""
    record.status = change.to_status  # type: ignore[assignment]
    record.status_since = now
    if change.to_status == "deleted" and record.deleted_at is None:
        record.deleted_at = now


@pytest.mark.slow
@settings(max_examples=200)
@given(st.lists(records(), min_size=1, max_size=12), models, offsets, st.randoms())
def test_sweep_twice_at_the_same_now_changes_nothing(
    drawn: list[MemoryRecord], model: str, offset: int, rnd: random.Random
) -> None:
    for seq, record in enumerate(drawn):
        record.memory_id, record.created_seq = f"m{seq}", seq
    params = DecayParams(model=model)  # type: ignore[arg-type]
    now = T0 + offset
    changes = sweep(drawn, now, params, LIFE)
    assert [c.memory_id for c in changes] == sorted(
        (c.memory_id for c in changes), key=lambda mid: int(mid[1:]))
    shuffled = list(drawn)
    rnd.shuffle(shuffled)
    assert sweep(shuffled, now, params, LIFE) == changes  # input order does not matter
    by_id = {r.memory_id: r for r in drawn}
    for change in changes:
        apply(by_id[change.memory_id], change, now)
    assert sweep(drawn, now, params, LIFE) == []


unit = st.floats(min_value=0.0, max_value=1.0)


@given(unit, offsets, st.one_of(st.booleans(), unit))
def test_utility_stays_in_unit_interval_and_drifts_without_overshoot(
    u: float, days: int, useful: bool | float
) -> None:
    d = drifted(u, T0, T0 + days, UTIL)
    assert 0.0 <= d <= 1.0
    assert abs(d - 0.5) <= abs(u - 0.5) + 1e-12  # toward neutral...
    assert (d - 0.5) * (u - 0.5) >= 0  # ...and never past it
    assert 0.0 <= after_feedback(u, useful, T0, T0 + days, UTIL) <= 1.0


# -- decay examples ---------------------------------------------------------------------------

def test_a_fresh_context_memory_goes_stale_after_about_a_week() -> None:
    record = make(kind="context", stability=7.0)
    assert retention(record, T0 + 7 * DAY, DECAY) == pytest.approx(math.exp(-1))  # 0.368
    assert status_at(record, T0 + 7 * DAY, DECAY, LIFE) == ("active", "retention_ok")
    crossing = 7.0 * math.log(1 / 0.3)  # 8.43 days
    assert crossing == pytest.approx(8.43, abs=0.01)
    assert status_at(record, T0 + int(8.4 * DAY), DECAY, LIFE)[0] == "active"
    assert status_at(record, T0 + int(8.5 * DAY), DECAY, LIFE) == (
        "stale", "retention_below_active")


def test_an_identity_memory_accessed_ten_times_is_active_after_200_days() -> None:
    record = make(kind="identity", stability=365.0, access_count=10)
    assert effective_stability(record, DECAY) == pytest.approx(365 * (1 + math.log(11) * 0.5))
    r = retention(record, T0 + 200 * DAY, DECAY)
    assert r == pytest.approx(math.exp(-200 / 802.6), abs=1e-3)  # 0.779
    assert status_at(record, T0 + 200 * DAY, DECAY, LIFE)[0] == "active"


def test_extraction_decays_three_times_faster() -> None:
    user, extracted = make(source="user"), make(source="extraction")
    assert effective_stability(extracted, DECAY) == pytest.approx(7.0 / 3)
    assert retention(extracted, T0 + 3 * DAY, DECAY) == pytest.approx(
        retention(user, T0 + 9 * DAY, DECAY))


def test_tiers_change_the_rate_relative_to_episodic() -> None:
    stabilities = {tier: effective_stability(make(tier=tier), DECAY)
                   for tier in ("working", "episodic", "semantic", "procedural")}
    assert stabilities == pytest.approx(
        {"working": 2.1, "episodic": 7.0, "semantic": 21.0, "procedural": 21.0})
    at = T0 + 5 * DAY
    working, episodic, semantic = (retention(make(tier=t), at, DECAY)
                                   for t in ("working", "episodic", "semantic"))
    assert working < episodic < semantic


def test_a_dormant_memory_is_frozen_at_the_moment_it_went_dormant() -> None:
    # A demotion records the progress so far (3 days of a 7-day stability) and when.
    dormant = make(tier="dormant", status="dormant", status_since=T0 + 3 * DAY,
                   decay_done=3 / 7, decay_from=T0 + 3 * DAY)
    frozen = retention(dormant, T0 + 3 * DAY, DECAY)
    assert frozen == pytest.approx(math.exp(-3 / 7))
    assert retention(dormant, T0 + 3_000 * DAY, DECAY) == frozen
    assert status_at(dormant, T0 + 3_000 * DAY, DECAY, LIFE) == ("dormant", "not_decaying")
    # Dormant tier, other status: the sweep leaves it alone, else applying a transition would move
    # status_since, the freeze point, and the next sweep would decide again (found by hypothesis).
    tier_only = make(stability=0.0, tier="dormant", status="stale")
    assert sweep([tier_only], T0 + 1, DECAY, LIFE) == []


def test_the_other_curves() -> None:
    record, at = make(stability=10.0), T0 + 20 * DAY  # x = 2
    fsrs = (1 + 2 / 9) ** -2
    got = {m: retention(record, at, DecayParams(model=m)) for m in DECAY_MODELS}  # type: ignore[arg-type]
    assert got == pytest.approx({"exponential": math.exp(-2), "fsrs6": fsrs,
                                 "huber": math.exp(-1) / 2, "elastic": (math.exp(-2) + fsrs) / 2})
    early = T0 + 5 * DAY  # below the knee huber is exponential
    assert retention(record, early, DecayParams(model="huber")) == pytest.approx(math.exp(-0.5))


def test_the_spacing_effect() -> None:
    record = make(stability=7.0)
    assert stability_after_access(record, T0, DECAY) == 7.0  # cramming teaches nothing
    week = stability_after_access(record, T0 + 7 * DAY, DECAY)
    assert week == pytest.approx(7.0 * (1 + 2 * (1 - math.exp(-1))))  # 15.85
    assert stability_after_access(record, T0 + 70 * DAY, DECAY) == pytest.approx(21.0, rel=1e-3)
    assert stability_after_access(make(stability=30_000.0), T0 + 10**5 * DAY, DECAY) == 36_500.0


def test_params_are_validated() -> None:
    with pytest.raises(InvalidInputError):
        DecayParams(source_rate={"user": 0.0})
    with pytest.raises(InvalidInputError):
        LifecycleParams(active_min=0.05)
    with pytest.raises(InvalidInputError):
        after_feedback(0.5, 1.5, T0, T0)
    # Round-trips as config would carry them.
    assert msgspec.json.decode(msgspec.json.encode(DECAY), type=DecayParams) == DECAY


# -- lifecycle examples -----------------------------------------------------------------------

def test_stale_memory_accessed_again_is_active_again() -> None:
    record = make(status="stale", status_since=T0 + 9 * DAY, last_access_at=T0 + 10 * DAY)
    assert status_at(record, T0 + 10 * DAY, DECAY, LIFE) == ("active", "retention_restored")


def test_archived_after_30_days_stale_or_below_0_1() -> None:
    # S = 100 days: stale from 120 days on (R = 0.301 at day 120), R = 0.1 only at day 230.
    record = make(stability=100.0, status="stale", status_since=T0 + 121 * DAY)
    assert status_at(record, T0 + 150 * DAY, DECAY, LIFE)[0] == "stale"
    assert status_at(record, T0 + 151 * DAY, DECAY, LIFE) == ("archived", "stale_too_long")
    fresh = make(stability=7.0)  # R = 0.1 at 16.1 days
    assert status_at(fresh, T0 + 17 * DAY, DECAY, LIFE) == ("archived", "retention_below_archive")
    assert status_at(fresh, T0 + 33 * DAY, DECAY, LIFE) == ("deleted", "retention_below_delete")


def test_a_pinned_memory_never_archives() -> None:
    for field in ("pinned", "immutable", "flashbulb"):
        record = make(stability=1.0, status="stale")
        setattr(record, field, True)
        assert status_at(record, T0 + 10_000 * DAY, DECAY, LIFE) == ("active", f"exempt_{field}")
    forgotten = make(pinned=True, status="deleted", deleted_at=T0)
    assert status_at(forgotten, T0 + DAY, DECAY, LIFE)[0] == "deleted"


def test_purge_90_days_after_deletion() -> None:
    record = make(status="deleted", deleted_at=T0 + 10 * DAY)
    assert status_at(record, T0 + 99 * DAY, DECAY, LIFE)[0] == "deleted"
    assert status_at(record, T0 + 100 * DAY, DECAY, LIFE) == ("purged", "purge_due")
    swept = make(status="deleted", status_since=T0 + 10 * DAY)  # deleted by a sweep
    assert status_at(swept, T0 + 100 * DAY, DECAY, LIFE)[0] == "purged"


def test_sweep_lists_changes_in_creation_order() -> None:
    old = make("b", created_seq=1)
    new = make("a", created_seq=2)
    kept = make("c", created_seq=3, kind="identity", stability=365.0)
    changes = sweep([kept, new, old], T0 + 9 * DAY, DECAY, LIFE)
    assert [(c.memory_id, c.from_status, c.to_status, c.reason) for c in changes] == [
        ("b", "active", "stale", "retention_below_active"),
        ("a", "active", "stale", "retention_below_active")]
    assert changes[0].retention == pytest.approx(math.exp(-9 / 7))


# -- utility and tier examples ----------------------------------------------------------------

def test_feedback_and_drift_numbers() -> None:
    assert after_feedback(0.5, True, T0, T0, UTIL) == pytest.approx(0.55)
    assert after_feedback(0.5, False, T0, T0, UTIL) == pytest.approx(0.45)
    assert drifted(0.9, T0, T0 + 10 * DAY, UTIL) == pytest.approx(0.86)  # 0.9 - 0.1 * 0.4
    assert drifted(0.9, T0, T0 + 1_000 * DAY, UTIL) == 0.5
    # Drift first (0.9 -> 0.86), then a step toward 1.
    assert after_feedback(0.9, 1.0, T0, T0 + 10 * DAY, UTIL) == pytest.approx(0.874)


def test_promotion_after_3_accesses_or_high_utility_at_7_days() -> None:
    now = T0 + DAY
    assert tier_change(make(access_count=2), now, 0.5, TIERS) is None
    assert tier_change(make(access_count=3), now, 0.5, TIERS) == ("semantic", "promote_accesses")
    assert tier_change(make(), T0 + 6 * DAY, 0.8, TIERS) is None
    assert tier_change(make(), T0 + 7 * DAY, 0.8, TIERS) == ("semantic", "promote_utility")
    assert tier_change(make(access_count=9, tier="semantic"), now, 0.5, TIERS) is None


def test_demotion_after_60_idle_days_with_low_utility() -> None:
    record = make(kind="identity", stability=365.0, tier="semantic")
    assert tier_change(record, T0 + 59 * DAY, 0.1, TIERS) is None
    assert tier_change(record, T0 + 60 * DAY, 0.2, TIERS) is None
    assert tier_change(record, T0 + 60 * DAY, 0.19, TIERS) == ("dormant", "demote_idle")
    assert tier_change(make(stability=365.0, pinned=True), T0 + 90 * DAY, 0.0, TIERS) is None
    assert tier_change(make(tier="dormant"), T0 + 90 * DAY, 0.0, TIERS) is None


def test_working_memory_evicts_the_weakest_beyond_capacity() -> None:
    now = T0 + 10 * DAY
    items = [make(f"w{i}", created_seq=i, importance=0.5, tier="working", last_access_at=now)
             for i in range(11)]
    items[5].importance = 0.1  # least important
    items[7].access_count = 4  # used: survives a tie
    assert working_evictions(items, 9, now) == ["w5", "w0"]  # then the oldest of the ties
    assert working_evictions(items[:9], 9, now) == []


def test_hot_set_prefers_useful_frequently_used_memories() -> None:
    now = T0 + 2 * DAY
    hot = make("hot", created_seq=1, kind="identity", stability=365.0, access_count=10,
               utility=0.9, utility_at=now, last_access_at=now)
    warm = make("warm", created_seq=2, stability=365.0, access_count=5, last_access_at=now)
    cold = make("cold", created_seq=3)  # never used, neutral utility: 0.5 * 0.4 + 0.3 R < 0.6
    gone = make("gone", created_seq=4, stability=365.0, access_count=10, utility=0.9,
                status="archived")
    got = hot_set([cold, gone, warm, hot], now, 5, DECAY, UTIL, TIERS)
    assert got == ["hot", "warm"]
    assert hot_set([cold, gone, warm, hot], now, 1, DECAY, UTIL, TIERS) == ["hot"]

"""The routing policy (eventmem/policies/routing.py): sub-tiers, the boost factor and the seed's
hot tier as pure functions of records and ``now``."""

from __future__ import annotations

import pytest

from eventmem.clock import MICROS_PER_DAY
from eventmem.policies.routing import RoutingParams, boost, hot_tier, subtier
from tests.strategies import memory_record

PARAMS = RoutingParams()


def test_sub_tiers() -> None:
    told = memory_record("a")
    assert subtier(told, "I went climbing") == "personal"
    assert subtier(memory_record("b", source="agent"), "The user seems tired") == "observed"
    assert subtier(told, "Sam said the lake is frozen") == "vicarious"
    semantic = memory_record("c")
    semantic.tier = "semantic"
    assert subtier(semantic, "Paris is in France") == "factual"
    assert subtier(semantic, "Always run the tests before a push") == "procedural"
    semantic.derived_from = ("x", "y")
    assert subtier(semantic, "Alice likes hiking and climbing") == "schematic"
    procedural = memory_record("d")
    procedural.tier = "procedural"
    assert subtier(procedural, "whatever") == "procedural"


def test_the_boost_factor() -> None:
    record = memory_record("a")
    got = boost(record, "The lake is frozen", same_session=True, entities_named=5,
                in_open_conflict=True, params=PARAMS)
    assert (got.session, got.entity, got.subtier) == (0.15, 0.2, "personal")  # 5 x 0.05, bounded
    assert got.weight == pytest.approx((1 + 0.15 + 0.2) * 1.1 * 0.9)
    plain = boost(memory_record("b", source="agent"), "x", same_session=False,
                  entities_named=0, in_open_conflict=False, params=PARAMS)
    assert plain.weight == 1.0


def test_the_seed_hot_tier_rule() -> None:
    now = 40 * MICROS_PER_DAY
    rows = []
    for i, (utility, accesses, age_days, tier, status) in enumerate([
            (0.9, 10, 1, "semantic", "active"),  # hot
            (0.95, 12, 29, "semantic", "active"),  # hot, more useful
            (0.79, 50, 1, "semantic", "active"),  # utility too low
            (0.9, 9, 1, "semantic", "active"),  # too few accesses
            (0.9, 10, 30, "semantic", "active"),  # 30 days old: not younger than 30
            (0.9, 10, 1, "episodic", "active"),  # not semantic
            (0.9, 10, 1, "semantic", "stale")]):  # not active
        r = memory_record(f"m{i}", created=now - age_days * MICROS_PER_DAY, utility=utility,
                          accesses=accesses, status=status)
        r.tier = tier
        rows.append(r)
    assert hot_tier(rows, now, PARAMS) == ["m1", "m0"]
    assert hot_tier(rows, now, PARAMS, k=1) == ["m1"]
    many = []
    for i in range(20):
        r = memory_record(f"h{i:02}", created=now, utility=0.9, accesses=10)
        r.tier = "semantic"
        many.append(r)
    assert len(hot_tier(many, now, PARAMS)) == 15  # at most 15

"""Scoring (eventmem/recall/score.py): the profile weights, ACT-R activation, the bounded composite
(reinforcement never outweighs relevance), and MMR diversity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.recall.score import PROFILES, Params, activation, composite, lift, mmr
from tests.strategies import memory_record

# -- scoring -------------------------------------------------------------------------------------


def test_profiles_are_the_architecture_weights() -> None:
    assert PROFILES["default"] == (0.35, 0.20, 0.20, 0.20, 0.05)
    assert PROFILES["recent"] == (0.30, 0.50, 0.10, 0.07, 0.03)
    for profile in PROFILES.values():
        assert sum(profile) == pytest.approx(1.0)
    # a profile that weighs semantics less lets the priors move scores more
    assert lift(PROFILES["recent"], 0.05) > lift(PROFILES["default"], 0.05) > lift(
        PROFILES["deep"], 0.05)


def test_act_r_activation() -> None:
    assert activation(1, 1.0) == pytest.approx(0.5)  # B = 0
    b = math.log(4) - 0.5 * math.log(3600)
    assert activation(4, 3600) == pytest.approx(1 / (1 + math.exp(-b)))
    assert activation(0, 0) == activation(1, 1)  # n and age floored at 1
    assert activation(10, 60) > activation(1, 60) > activation(1, 86_400)


PARAMS = Params(0.05, 30.0, 0.1, eventmem.Config().decay)

NOW = 400 * 86_400_000_000


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.integers(0, 10_000), st.integers(0, NOW),
       st.sampled_from(["active", "stale"]), st.sampled_from(sorted(PROFILES)),
       st.sampled_from(["user", "agent", "extraction"]), st.floats(0, 1))
# Every factor at its most: their product reached twice the least they can be (found by CI).
@example(importance=1.0, utility=1.0, accesses=1, created=34_189_475_995_242, status="active",
         profile="recent", source="user", confidence=1.0)
def test_reinforcement_never_outweighs_relevance(importance, utility, accesses, created, status,
                                                 profile, source, confidence) -> None:
    """The composite's factors are bounded: a memory twice as relevant as another always
    outranks it, however used, recent or important the other is (ARCHITECTURE.md section 11)."""
    weak = memory_record("w", created=created, importance=importance, utility=utility,
                  accesses=accesses, status=status, source=source, confidence=confidence)
    weak.last_access_at = NOW  # just used: the most activation it can have
    strong = memory_record("s", created=0, importance=0.0, utility=0.0, status="active",
                    source="extraction", confidence=0.0)
    chosen = PROFILES[profile]
    weak_score = composite(0.4, weak, NOW, chosen, PARAMS)["score"]
    assert composite(0.8, strong, NOW, chosen, PARAMS)["score"] > weak_score
    assert composite(0.0, weak, NOW, chosen, PARAMS)["score"] == 0.0


def test_composite_signals() -> None:
    r = memory_record("a", created=NOW - 30 * 86_400_000_000, importance=0.9, source="agent",
               confidence=0.5)
    s = composite(0.5, r, NOW, PROFILES["default"], PARAMS)
    assert s["recency"] == pytest.approx(0.5)  # one half-life
    assert s["confidence"] == pytest.approx(0.45)  # agent trust 0.9 x its confidence
    assert s["status_weight"] == 1.0 and s["utility_weight"] == 1.0
    assert s["score"] == pytest.approx(0.5 * s["prior_weight"] * s["activation_weight"])
    assert composite(0.5, memory_record("b", status="stale"), NOW, PROFILES["default"],
                     PARAMS)["status_weight"] == 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=12), st.integers(0, 2**32 - 1),
       st.floats(0.1, 1.0))
def test_mmr_scores_never_rise_and_picks_are_distinct(scores, seed, lam) -> None:
    scores = sorted(scores, reverse=True)
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(len(scores), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    names = [f"m{i}" for i in range(len(scores))]
    picked = mmr(names, scores, vectors, len(scores), lam, 0.0)
    assert sorted(p[0] for p in picked) == sorted(names)
    values = [p[1] for p in picked]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(values))
    assert picked[0] == (names[0], scores[0], 0.0)


def test_mmr_demotes_a_near_duplicate() -> None:
    v = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    assert [p[0] for p in mmr(["a", "b", "c"], [1.0, 0.95, 0.8], v, 3, 0.7, 0.0)] == [
        "a", "c", "b"]
    assert [p[0] for p in mmr(["a", "b", "c"], [1.0, 0.95, 0.8], v, 3, 1.0, 0.0)] == [
        "a", "b", "c"]

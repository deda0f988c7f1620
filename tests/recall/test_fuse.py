"""Fusion (eventmem/recall/fuse.py): weighted reciprocal rank fusion, ranks shared by equal scores,
lists weighted 0 that explain without adding memories, and the answer channel."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.cli.render import explain_lines
from eventmem.recall.fuse import keep_clearly_better_first, rrf, spread_sessions

# -- fusion --------------------------------------------------------------------------------------


def test_weighted_rrf_sums_weight_over_k_plus_rank() -> None:
    lists = {"a": [("x", 2.0), ("y", 1.0)], "b": [("y", 0.9), ("z", 0.3)], "c": [("w", 5.0)]}
    fused = rrf(lists, {"a": 1.0, "b": 0.5, "c": 0.0}, 60)
    assert set(fused) == {"x", "y", "z"}  # a list weighted 0 adds no memory
    assert fused["y"]["rrf"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert fused["y"]["a_rank"] == 2 and fused["y"]["b_rank"] == 1 and fused["y"]["b_weight"] == 0.5
    # support scales each term by the score over the list's best
    assert fused["y"]["support"] == pytest.approx(1 / 62 * 0.5 + 0.5 / 61)
    assert fused["z"]["support"] == pytest.approx(0.5 / 62 * (0.3 / 0.9))


def test_equal_scores_share_a_rank() -> None:
    fused = rrf({"a": [("x", 2.0), ("y", 2.0), ("z", 1.0)]}, {"a": 1.0}, 60)
    assert [fused[m]["a_rank"] for m in "xyz"] == [1, 1, 3]
    assert fused["x"]["rrf"] == fused["y"]["rrf"]


def test_a_zero_weight_list_still_explains_the_memories_others_found() -> None:
    fused = rrf({"a": [("x", 1.0)], "c": [("w", 3.0), ("x", 1.0)]}, {"a": 1.0, "c": 0.0}, 60)
    assert set(fused) == {"x"}
    assert fused["x"]["c_rank"] == 2 and fused["x"]["rrf"] == pytest.approx(1 / 61)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 1.0), st.floats(0.3, 3.0)), min_size=1, max_size=12))
def test_a_boost_never_lifts_a_hit_above_a_clearly_more_relevant_one(rows) -> None:
    """Issue 14 item 2, for the boosts: sorted by boosted score, then repaired, no hit stays
    above one that ranked above it before and is at least twice as relevant; scores never rise
    down the list."""
    before_order = sorted(range(len(rows)), key=lambda i: (-rows[i][0], i))  # by relevance
    before = {f"m{i}": position for position, i in enumerate(before_order)}
    pool = []
    for i, (relevance, factor) in enumerate(rows):
        signals = {"relevance": relevance, "score": relevance * factor}
        pool.append((-signals["score"], f"m{i}", signals))
    pool.sort(key=lambda item: (item[0], item[1]))
    out = keep_clearly_better_first(pool, before, 2.0)
    assert sorted(mid for _, mid, _ in out) == sorted(before)
    for i, (_, upper, upper_signals) in enumerate(out):
        for _, lower, lower_signals in out[i + 1:]:
            assert not (before[lower] < before[upper]
                        and lower_signals["relevance"] >= 2.0 * upper_signals["relevance"])
        if i:
            assert upper_signals["score"] <= out[i - 1][2]["score"]


# -- the answer channel --------------------------------------------------------------------------


def _conversation(mem: eventmem.Engine) -> dict[str, str]:
    turns = ["Maria: How often do you work out with your family?",
             "John: Three times a week; it keeps us on track.",
             "Maria: My family loves the park on Sundays.",
             "John: We made pancakes this morning.",
             "Maria: Pancakes sound lovely.",
             "John: The weather is lovely today."]
    return {t: r.memory_id for t, r in zip(turns, mem.remember_many(turns, namespace="c"),
                                            strict=True)}


def test_the_turn_after_a_matching_question_answers_it(tmp_path,
                                                       clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        ids = _conversation(mem)
        hits = mem.recall("How often does John work out with his family?", namespace="c", k=3)
        answer = ids["John: Three times a week; it keeps us on track."]
        hit = next(h for h in hits if h.memory_id == answer)
        assert hit.signals["answer_rank"] == 1
        assert any("the reply to a matching question" in line
                   for line in explain_lines(hit.signals))
        # A statement lends nothing to the turn after it.
        hits = mem.recall("What did John make this morning with pancakes?", namespace="c", k=6)
        after = {h.memory_id: h for h in hits}[ids["Maria: Pancakes sound lovely."]]
        assert "answer_rank" not in after.signals


def test_the_answer_channel_can_be_switched_off(tmp_path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock,
                       config=eventmem.Config(answer_weight=0.0)) as mem:
        _conversation(mem)
        hits = mem.recall("How often does John work out with his family?", namespace="c", k=6)
        assert hits and all("answer_rank" not in h.signals for h in hits)


# -- a list's answers across sessions -------------------------------------------------------------


def test_a_list_question_spreads_its_hits_over_sessions() -> None:
    from tests.policies.test_dynamics import make

    hour = 3_600_000_000
    # a1..a3 said in one conversation, b1 an hour later: the pool best first.
    memories = {mid: make(mid, created_at=at) for mid, at in
                (("a1", 0), ("a2", 1), ("a3", 2), ("b1", hour))}
    pool = [(-score, mid, {"score": score})
            for mid, score in (("a1", 1.0), ("a2", 0.9), ("a3", 0.8), ("b1", 0.7))]
    spread = spread_sessions(pool, memories, 0.5, 1_800.0)
    assert [mid for _, mid, _ in spread] == ["a1", "b1", "a2", "a3"]
    signals = {mid: sig for _, mid, sig in spread}
    assert signals["a2"]["session_spread"] == 0.5 and signals["a3"]["score"] == 0.8 * 0.25
    assert "session_spread" not in signals["b1"] and signals["b1"]["score"] == 0.7
    # At 1, nothing moves.
    same = [(-score, mid, {"score": score}) for mid, score in
            (("a1", 1.0), ("a2", 0.9), ("a3", 0.8), ("b1", 0.7))]
    assert [m for _, m, _ in spread_sessions(same, memories, 1.0, 1_800.0)] == \
        ["a1", "a2", "a3", "b1"]

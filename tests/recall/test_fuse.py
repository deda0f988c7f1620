"""Fusion (eventmem/recall/fuse.py): weighted reciprocal rank fusion, ranks shared by equal scores,
and lists weighted 0 that explain without adding memories."""

from __future__ import annotations

import pytest

from eventmem.recall.fuse import rrf

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

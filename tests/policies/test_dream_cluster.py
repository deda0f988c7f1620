"""Similar pairs, clusters and summaries of the dream cycle: exact, deterministic, layout-free."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.cluster import AgglomerativeClustering

from eventmem.policies.dream import cluster, summaries


def unit_rows(seed: int, n: int, dim: int = 8, families: int = 3, noise: float = 0.35
              ) -> np.ndarray:
    """``n`` unit rows around a few directions, so that some pairs are close and some not."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(families, dim))
    rows = centres[rng.integers(0, families, n)] + noise * rng.normal(size=(n, dim))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows.astype(np.float32)


def brute_pairs(matrix: np.ndarray, threshold: float) -> set[tuple[int, int]]:
    sims = matrix.astype(np.float64) @ matrix.astype(np.float64).T
    n = len(matrix)
    return {(i, j) for i in range(n) for j in range(i + 1, n) if sims[i, j] >= threshold}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 90), st.sampled_from([0.3, 0.75, 0.9]))
def test_similar_pairs_are_every_pair_above_the_threshold(seed: int, n: int, threshold: float
                                                          ) -> None:
    matrix = unit_rows(seed, n)
    i, j, sims = cluster.similar_pairs(matrix, threshold)
    assert set(zip(i.tolist(), j.tolist(), strict=True)) == brute_pairs(matrix, threshold)
    assert list(zip(i.tolist(), j.tolist(), strict=True)) == sorted(
        zip(i.tolist(), j.tolist(), strict=True))
    assert np.all(sims >= threshold)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 60), st.data())
def test_a_pair_cosine_depends_on_its_two_rows_only(seed: int, n: int, data: st.DataObject
                                                    ) -> None:
    """Other rows around (a subset, another order) never change a pair's cosine in the last
    bit: the decision on two memories is the same whatever else the namespace holds."""
    matrix = unit_rows(seed, n, dim=64)
    i, j, sims = cluster.similar_pairs(matrix, 0.0)
    found = {(a, b): s for a, b, s in zip(i.tolist(), j.tolist(), sims.tolist(), strict=True)}
    keep = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=2)))
    si, sj, ssims = cluster.similar_pairs(matrix[keep], 0.0)
    for a, b, s in zip(si.tolist(), sj.tolist(), ssims.tolist(), strict=True):
        assert found[(keep[a], keep[b])] == s


def full_clustering(matrix: np.ndarray, similarity: float, linkage: str) -> list[list[int]]:
    """scikit-learn over the whole matrix at once (the reference)."""
    if len(matrix) < 2:
        return [[0]] if len(matrix) else []
    m64 = matrix.astype(np.float64)
    distances = np.clip(1.0 - m64 @ m64.T, 0.0, 2.0)
    np.fill_diagonal(distances, 0.0)
    labels = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage=linkage,
                                     distance_threshold=1.0 - similarity).fit_predict(distances)
    groups: dict[int, list[int]] = {}
    for row, label in enumerate(labels.tolist()):
        groups.setdefault(label, []).append(row)
    return sorted(groups.values())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 70), st.sampled_from(["complete", "single"]),
       st.sampled_from([0.6, 0.8]))
def test_clusters_by_group_equal_the_whole_clustering(seed: int, n: int, linkage: str,
                                                      similarity: float) -> None:
    matrix = unit_rows(seed, n, noise=0.5)
    i, j, sims = cluster.similar_pairs(matrix, similarity)
    got = cluster.clusters(matrix, i, j, sims, similarity=similarity, min_size=2,
                           linkage=linkage, max_group=1_000)
    expected = [c for c in full_clustering(matrix, similarity, linkage) if len(c) >= 2]
    assert [c.tolist() for c in got] == expected
    if linkage == "complete":
        for rows in got:
            assert cluster.cohesion(matrix, rows) > similarity


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 60))
def test_clustering_what_is_left_finds_nothing_new(seed: int, n: int) -> None:
    """Take the clusters out and cluster the rest: no cluster of the minimum size appears (what
    makes a second consolidation at the same now a no-op)."""
    matrix = unit_rows(seed, n, noise=0.6)
    i, j, sims = cluster.similar_pairs(matrix, 0.7)
    found = cluster.clusters(matrix, i, j, sims, similarity=0.7, min_size=3,
                             linkage="complete", max_group=1_000)
    taken = {int(r) for rows in found for r in rows}
    rest = [r for r in range(n) if r not in taken]
    ri, rj, rsims = cluster.similar_pairs(matrix[rest], 0.7)
    assert cluster.clusters(matrix[rest], ri, rj, rsims, similarity=0.7, min_size=3,
                            linkage="complete", max_group=1_000) == []


def test_a_large_group_is_clustered_in_slices():
    matrix = np.tile(unit_rows(1, 1, dim=8), (10, 1))  # ten identical rows: one group
    i, j, sims = cluster.similar_pairs(matrix, 0.9)
    assert len(i) == 45
    whole = cluster.clusters(matrix, i, j, sims, similarity=0.9, min_size=3, linkage="complete",
                             max_group=100)
    assert [c.tolist() for c in whole] == [list(range(10))]
    sliced = cluster.clusters(matrix, i, j, sims, similarity=0.9, min_size=3,
                              linkage="complete", max_group=4)
    assert [c.tolist() for c in sliced] == [[0, 1, 2, 3], [4, 5, 6, 7]]  # [8, 9] is too small


def test_complete_linkage_does_not_chain():
    # a - b - c in a line: a~b and b~c close, a~c far apart
    a = np.array([1.0, 0.0], dtype=np.float32)
    c = np.array([0.0, 1.0], dtype=np.float32)
    b = (a + c) / np.linalg.norm(a + c)
    matrix = np.stack([a, b, c, b * 0.999 + a * 0.001]).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    i, j, sims = cluster.similar_pairs(matrix, 0.7)
    single = cluster.clusters(matrix, i, j, sims, similarity=0.7, min_size=2, linkage="single",
                              max_group=10)
    complete = cluster.clusters(matrix, i, j, sims, similarity=0.7, min_size=2,
                                linkage="complete", max_group=10)
    assert [c.tolist() for c in single] == [[0, 1, 2, 3]]
    assert all(cluster.cohesion(matrix, rows) > 0.7 for rows in complete)
    assert sorted(len(rows) for rows in complete) == [2, 2] or len(complete) == 1


# -- summaries ---------------------------------------------------------------------------------


def test_sources_are_the_closest_distinct_texts_in_time_order():
    matrix = np.array([[1, 0], [0.8, 0.6], [0.6, 0.8], [0, 1], [0.8, 0.6]], dtype=np.float32)
    texts = ["far a", "near b", "near c", "far d", "copy of b"]
    keys = ["a", "b", "c", "d", "b"]  # the last is b again (same dedup key)
    seqs = [50, 40, 30, 20, 10]  # creation order is the reverse of the rows
    got = summaries.pick_sources(matrix, np.arange(5), seqs, keys, texts.__getitem__, 2, 1_000)
    # closest: rows 1, 4 (b, tie: the older row 4 wins), then 2 (c); in time order: 4, 2
    assert [(s.position, s.text) for s in got] == [(4, "copy of b"), (2, "near c")]
    centre = matrix.astype(np.float64).sum(axis=0)
    assert got[1].cosine == pytest.approx(np.dot([0.6, 0.8], centre / np.linalg.norm(centre)))
    # a text that does not fit, or is gone, is passed over
    got = summaries.pick_sources(matrix, np.arange(5), seqs, keys,
                                 lambda p: None if p == 4 else texts[p], 2, 1_000)
    assert [s.position for s in got] == [2, 1]
    got = summaries.pick_sources(matrix, np.arange(5), seqs, keys, texts.__getitem__, 3, 20)
    assert sum(len(s.text) + 2 for s in got) <= 20


def test_extractive_summary_and_digest():
    assert summaries.EXTRACTIVE.summarize(["Alice hikes", "Bob swims!", " ", "Carol reads."]) \
        == "Alice hikes. Bob swims! Carol reads."
    assert summaries.members_digest(["b", "a"]) == summaries.members_digest(["a", "b"])
    assert summaries.members_digest(["a", "b"]) != summaries.members_digest(["a", "b", "c"])
    assert summaries.summarizer_id(summaries.EXTRACTIVE) == "extractive-1"

    class Plain:
        def summarize(self, texts: list[str]) -> str:
            return "x"

    assert summaries.summarizer_id(Plain()) == "Plain"
    assert isinstance(Plain(), summaries.Summarizer)


# -- the blocked search of large namespaces (dream-4) -----------------------------------------


def pair_set(found: tuple[np.ndarray, np.ndarray, np.ndarray]) -> dict[tuple[int, int], float]:
    i, j, sims = found
    return {(a, b): s for a, b, s in zip(i.tolist(), j.tolist(), sims.tolist(), strict=True)}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 80), st.sampled_from([0.5, 0.75, 0.9]),
       st.integers(1, 8), st.data())
def test_blocked_pairs_are_exact_pairs_and_all_of_them_when_every_pair_is_a_candidate(
        seed: int, n: int, threshold: float, probes: int, data: st.DataObject) -> None:
    matrix = unit_rows(seed, n, dim=16, families=5)
    pivots = np.asarray(sorted(data.draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=12)))
                        if n else [], dtype=np.int64)
    exact = pair_set(cluster.similar_pairs(matrix, threshold))
    found = cluster.blocked_pairs(matrix, threshold, matrix[pivots], probes)
    blocked = pair_set(found)
    # a subset of the exact pairs, with the very same cosines, in (i, j) order
    assert all(exact[pair] == s for pair, s in blocked.items())
    assert list(blocked) == sorted(blocked)
    if len(pivots) <= probes:  # every row probes every pivot: every pair is a candidate
        assert blocked == exact


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 120), st.data())
def test_a_blocked_pair_depends_on_its_rows_and_the_pivots_only(seed: int, n: int,
                                                               data: st.DataObject) -> None:
    """Drop rows but keep the pivots: the pairs among the rows left are exactly those found
    before (what makes the next cycle, which compares fewer memories, find nothing new)."""
    matrix = unit_rows(seed, n, dim=16, families=4, noise=0.5)
    pivots = matrix[np.arange(0, n, 7)]
    whole = pair_set(cluster.blocked_pairs(matrix, 0.6, pivots, 3))
    keep = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=2)))
    local = {row: position for position, row in enumerate(keep)}
    part = pair_set(cluster.blocked_pairs(matrix[keep], 0.6, pivots, 3))
    assert part == {(local[a], local[b]): s for (a, b), s in whole.items()
                    if a in local and b in local}


def test_near_duplicates_are_found_by_the_blocked_search() -> None:
    """Identical and near-identical rows share their best pivot, so they are always
    candidates, however many pivots there are."""
    rng = np.random.default_rng(5)
    matrix = rng.normal(size=(3_000, 64))
    matrix[1::2] = matrix[0::2] + 0.05 * rng.normal(size=(1_500, 64))  # 1,500 twins
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix.astype(np.float32)
    pivots = matrix[::16]
    exact = pair_set(cluster.similar_pairs(matrix, 0.9))
    blocked = pair_set(cluster.blocked_pairs(matrix, 0.9, pivots, 4))
    assert len(exact) == 1_500 and blocked == exact


def test_pivot_scores_are_exact_integers_whatever_the_row_order() -> None:
    """The scores that choose the blocks are integers computed exactly: permuting the rows
    permutes the probes, bit for bit (no BLAS blocking or summation order shows)."""
    matrix = unit_rows(3, 500, dim=384, families=6)
    pivots = np.arange(0, 500, 5, dtype=np.int64)
    probes, best = cluster.pivot_probes(matrix, matrix[pivots], 6)
    order = np.random.default_rng(1).permutation(500)
    shuffled, shuffled_best = cluster.pivot_probes(matrix[order], matrix[pivots], 6)
    assert np.array_equal(shuffled, probes[order])
    assert np.array_equal(shuffled_best, best[order])
    q = np.rint(matrix.astype(np.float64) * cluster.QUANT)
    assert (np.abs(q) @ np.abs(q).T).max() < 2 ** 24


def test_orphans_far_from_every_pivot_are_compared_with_each_other() -> None:
    """A small topic no pivot lies near: its pairs are found although the pivots' ranking says
    nothing about where its rows lie (with blocks alone, 5 of its 15 pairs)."""
    crowd = unit_rows(5, 400, dim=64, families=4)
    rng = np.random.default_rng(3)
    small = rng.standard_normal(64) + 0.5 * rng.standard_normal((6, 64))
    small /= np.linalg.norm(small, axis=1, keepdims=True)
    matrix = np.vstack([crowd, small]).astype(np.float32)
    pivots = matrix[np.arange(0, 400, 20)]  # from the crowd only
    _, best = cluster.pivot_probes(matrix, pivots, 2)
    assert (best[400:] < 0.5 * cluster.QUANT ** 2).all()  # orphans
    exact = set(zip(*(a.tolist() for a in cluster.similar_pairs(matrix, 0.5)[:2]), strict=True))
    blocked = set(zip(*(a.tolist() for a in cluster.blocked_pairs(matrix, 0.5, pivots, 2)[:2]),
                      strict=True))
    inside = {(a, b) for a in range(400, 406) for b in range(a + 1, 406)}
    assert inside <= exact and inside <= blocked <= exact


def test_pivots_are_chosen_by_memory_id_alone() -> None:
    ids = [f"mem_{k:016x}" for k in range(4_000)]
    pivots = cluster.pivot_rows(ids, 128)
    assert 10 < len(pivots) < 60 and np.all(np.diff(pivots) > 0)
    chosen = {ids[p] for p in pivots.tolist()}
    reversed_rows = cluster.pivot_rows(ids[::-1], 128)
    assert {ids[::-1][p] for p in reversed_rows.tolist()} == chosen
    # a golden value: blake2b, never Python's salted hash()
    assert pivots[:4].tolist() == [32, 540, 542, 555]

"""ANN search over sealed vector segments (projections.ann, Vectors.search(exact=False)).

Most tests swap pynndescent for an exact stand-in index, so they run in milliseconds and can
demand exact equality with exact search: they test the bookkeeping (segments, the exact tail,
purges, over-fetch, fallbacks, snapshots). One test builds real pynndescent indexes (it compiles
numba once, tens of seconds) and checks their quality and persistence.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
import projections
from projections import Projections, ann
from projections.vectors import AnnDump, SegmentDump, Space, Vectors

DIM = 8
NS = "ns"


class ExactIndex:
    """Stands in for pynndescent: the true k nearest by dot product, ties by row."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = np.array(rows, dtype=np.float32)

    def query(self, q: np.ndarray, k: int, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        sims = self.rows @ q[0]
        order = np.lexsort((np.arange(len(sims)), -sims))[:k]
        return order[None, :].astype(np.int32), (1.0 - sims[order])[None, :]


@pytest.fixture
def fake_ann(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    counts = {"built": 0, "loaded": 0}

    def build(rows: np.ndarray) -> ExactIndex:
        counts["built"] += 1
        return ExactIndex(rows)

    def load(blob: bytes, rows: np.ndarray) -> ExactIndex:
        if bytes(blob) != b"\x01exact":
            raise ValueError("not an index")
        counts["loaded"] += 1
        return ExactIndex(rows)

    monkeypatch.setattr(ann, "build_index", build)
    monkeypatch.setattr(ann, "dump_index", lambda index: b"\x01exact")
    monkeypatch.setattr(ann, "load_index", load)
    yield counts


def int_rows(seed: int, n: int) -> np.ndarray:
    # Small integers: every dot product is exact in float32 whatever the summation order, so
    # ANN and exact search must agree to the bit, ties (there are many) included.
    return np.random.default_rng(seed).integers(-3, 4, size=(n, DIM)).astype(np.float32)


def space_of(rows: np.ndarray) -> Vectors:
    vectors = Vectors(DIM)
    vectors.spaces[NS] = space = Space(DIM)
    space.add([f"m{i:04d}" for i in range(len(rows))], rows)
    return vectors


def both(vectors: Vectors, q: np.ndarray, n: int, allowed=None):
    exact = vectors.search(NS, q, n, allowed)
    approx = vectors.search(NS, q, n, allowed, exact=False)
    return approx, exact


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), n_rows=st.integers(0, 260), seg=st.integers(2, 70),
       tail=st.integers(1, 30), n=st.integers(1, 40), keep=st.sampled_from((1.0, 0.5, 0.05, 0.0)),
       purge=st.integers(0, 40))
def test_with_exact_indexes_ann_search_is_exact_search(fake_ann, seed, n_rows, seg, tail, n,
                                                      keep, purge):
    vectors = space_of(int_rows(seed, n_rows))
    vectors.build_indexes(segment_rows=seg, tail_rows=tail)
    rng = np.random.default_rng(seed + 1)
    if n_rows and purge:  # some rows purged after the build: their segments turn dirty
        gone = {f"m{i:04d}" for i in rng.choice(n_rows, size=min(purge, n_rows), replace=False)}
        vectors.spaces[NS].remove(gone)
    else:
        gone = set()
    passing = {f"m{i:04d}" for i in range(n_rows) if rng.random() < keep}
    q = int_rows(seed + 2, 1)[0]
    approx, exact = both(vectors, q, n, passing.__contains__)
    assert approx == exact
    assert not gone & {mid for mid, _ in approx}
    if NS in vectors.spaces:
        vectors.build_indexes(segment_rows=seg, tail_rows=tail)  # dirty segments rebuilt
        assert vectors.ann_status(NS)["dirty"] == 0
        assert both(vectors, q, n, passing.__contains__)[0] == exact


def test_segments_are_sealed_in_full_runs_by_maintenance_only(fake_ann):
    vectors = space_of(int_rows(1, 130))
    assert vectors.ann_status(NS)["segments"] == 0  # folding rows builds nothing
    assert vectors.build_indexes(segment_rows=50) == 2
    assert vectors.ann_status(NS) == {"rows": 130, "segments": 2, "covered": 100, "dirty": 0,
                                      "broken": 0}
    space = vectors.spaces[NS]
    assert space.uncovered(space.segments) == [(100, 130)]  # the exact tail
    assert vectors.build_indexes(segment_rows=50) == 0
    space.add([f"n{i}" for i in range(25)], int_rows(2, 25))
    assert vectors.build_indexes(segment_rows=50) == 1
    assert [(s.start, s.size) for s in space.segments] == [(0, 50), (50, 50), (100, 50)]
    assert fake_ann["built"] == 3
    assert space_of(int_rows(1, 49)).build_indexes(segment_rows=50, tail_rows=1) == 0


def test_maintenance_indexes_a_long_tail_in_a_short_segment_and_grows_it_later(fake_ann):
    vectors = space_of(int_rows(1, 130))
    space = vectors.spaces[NS]
    assert vectors.build_indexes(segment_rows=50, tail_rows=20) == 3
    assert [(s.start, s.size) for s in space.segments] == [(0, 50), (50, 50), (100, 30)]
    space.add([f"n{i}" for i in range(10)], int_rows(2, 10))
    assert vectors.build_indexes(segment_rows=50, tail_rows=20) == 0  # 10 new rows stay exact
    space.add([f"o{i}" for i in range(15)], int_rows(3, 15))
    assert vectors.build_indexes(segment_rows=50, tail_rows=20) == 1  # the short one grows
    assert [(s.start, s.size) for s in space.segments] == [(0, 50), (50, 50), (100, 50)]
    assert space.uncovered(space.segments) == [(150, 155)]
    q = int_rows(4, 1)[0]
    assert vectors.search(NS, q, 20, exact=False) == vectors.search(NS, q, 20)


def test_a_purge_marks_its_segment_and_maintenance_rebuilds_what_remains(fake_ann):
    vectors = space_of(int_rows(3, 150))
    vectors.build_indexes(segment_rows=50, tail_rows=50)
    space = vectors.spaces[NS]
    # all of the first segment and one row of the second
    space.remove({f"m{i:04d}" for i in range(50)} | {"m0060"})
    assert [(s.start, s.rows, s.dirty) for s in space.segments] == [(0, 49, True),
                                                                    (49, 50, False)]
    q = int_rows(4, 1)[0]
    approx, exact = both(vectors, q, 30)
    assert approx == exact and "m0060" not in dict(approx)
    assert vectors.build_indexes(segment_rows=50) == 1  # only the dirty one, over its 49 rows
    assert [(s.start, s.size, s.dirty) for s in space.segments] == [(0, 49, False),
                                                                    (49, 50, False)]
    assert both(vectors, q, 30)[0] == exact


def test_too_few_allowed_near_the_query_falls_back_to_exact(fake_ann):
    vectors = space_of(int_rows(5, 400))
    vectors.build_indexes(segment_rows=100)
    q = int_rows(6, 1)[0]
    far = [mid for mid, _ in vectors.search(NS, -q, 3)]  # the three least similar rows
    approx, exact = both(vectors, q, 5, set(far).__contains__)
    assert approx == exact  # (empty or few: they are positive only if anything is)
    assert vectors.search(NS, np.zeros(DIM, np.float32), 5, exact=False) == []


def test_snapshots_carry_clean_indexes_outside_the_digest(fake_ann):
    views = Projections()
    views.vectors = space_of(int_rows(7, 120))
    plain = views.digests()
    views.vectors.build_indexes(segment_rows=40)
    assert views.digests() == plain  # a cache: verify never sees it
    q = int_rows(8, 1)[0]
    expected = views.vectors.search(NS, q, 10, exact=False)
    restored = Projections.from_bytes(views.to_bytes())
    assert restored is not None and restored.digests() == plain
    assert restored.vectors.ann_status(NS)["segments"] == 3
    assert fake_ann["loaded"] == 0  # loaded lazily, by the first search that needs them
    assert restored.vectors.search(NS, q, 10, exact=False) == expected
    assert fake_ann["loaded"] == 3 and fake_ann["built"] == 3  # nothing rebuilt

    views.vectors.spaces[NS].remove({"m0005"})  # a dirty segment is not persisted
    restored = Projections.from_bytes(views.to_bytes())
    assert restored is not None
    assert [s.start for s in restored.vectors.spaces[NS].segments] == [39, 79]


def test_an_index_that_does_not_fit_its_rows_is_searched_exactly_then_rebuilt(fake_ann):
    vectors = space_of(int_rows(9, 90))
    space = vectors.spaces[NS]
    fp = ann.fingerprint(space.ids[:40])
    vectors.attach_ann(AnnDump(format=ann.FORMAT, spaces={NS: (
        SegmentDump(start=0, size=40, fingerprint=fp, blob=b"damaged"),
        SegmentDump(start=40, size=40, fingerprint=fp, blob=b"\x01exact"),  # other rows' ids
        SegmentDump(start=70, size=40, fingerprint=fp, blob=b"\x01exact"),  # past the rows
    )}))
    assert [s.start for s in space.segments] == [0, 40]
    q = int_rows(10, 1)[0]
    approx, exact = both(vectors, q, 20)
    assert approx == exact
    assert vectors.ann_status(NS)["broken"] == 2
    assert vectors.build_indexes(segment_rows=40) == 2
    assert vectors.ann_status(NS) == {"rows": 90, "segments": 2, "covered": 80, "dirty": 0,
                                      "broken": 0}
    vectors.attach_ann(AnnDump(format=ann.FORMAT + 1, spaces={}))  # another format: ignored
    assert vectors.ann_status(NS)["segments"] == 2


def test_consolidate_builds_persists_and_after_a_purge_rebuilds(fake_ann, monkeypatch,
                                                                 store_path, clock):
    monkeypatch.setattr(ann, "SEGMENT_ROWS", 40)
    texts = [f"note {i}: {w} met {v} at the {u}" for i, (w, v, u) in enumerate(
        (w, v, u) for w in ("Alice", "Bob", "Carol") for v in ("Dan", "Eve", "Finn", "Gus")
        for u in ("park", "cafe", "gym", "lake", "office", "museum", "beach", "library"))]
    with eventmem.open(store_path, clock=clock) as mem:
        ids = [r.memory_id for r in mem.remember_many(texts, namespace="a")]
        assert mem._views.vectors.ann_status("a")["segments"] == 0  # never on ingest
        mem.consolidate()
        assert mem._views.vectors.ann_status("a")["segments"] == 2
    built = fake_ann["built"]
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem._views.vectors.ann_status("a")["segments"] == 2  # from the snapshot
        hits = mem._views.vectors.search("a", mem.embedder.embed(["Alice at the park"])[0], 5,
                                         exact=False)
        assert len(hits) == 5 and fake_ann["built"] == built
        for mid in ids[:3]:
            mem.forget(mid)
        clock.advance(timedelta(days=200))
        mem.consolidate()  # the forgotten ones are purged, their segment rebuilt
        status = mem._views.vectors.ann_status("a")
        assert status["dirty"] == 0 and status["segments"] == 2
        # The three are gone; the dream cycle may have added summaries of its own.
        held = [m for m in mem.memories(namespace="a") if m.status not in ("purged", "erased")]
        assert status["rows"] == len(held) and not {m.memory_id for m in held} & set(ids[:3])
        assert mem.verify().ok


@pytest.mark.slow
def test_pynndescent_indexes_find_the_true_neighbours_and_survive_a_snapshot():
    # Clustered unit vectors, like embeddings of related texts.
    rng = np.random.default_rng(11)
    dim = 32
    centres = rng.standard_normal((12, dim))
    rows = centres[rng.integers(0, 12, 1300)] + 0.6 * rng.standard_normal((1300, dim))
    rows = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    views = Projections()
    views.vectors = vectors = Vectors(dim)
    vectors.spaces[NS] = Space(dim)
    vectors.spaces[NS].add([f"m{i:04d}" for i in range(len(rows))], rows)
    assert vectors.build_indexes(segment_rows=400) == 3  # and a tail of 100 rows
    blob = vectors.spaces[NS].segments[0].blob
    # stored without its own copy of the vectors (the snapshot has them already)
    assert not any(rows[i].tobytes() in blob for i in range(0, 400, 7))

    queries = rows[rng.integers(0, 1300, 40)] + 0.3 * rng.standard_normal((40, dim))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)
    found = [vectors.search(NS, q, 50, exact=False) for q in queries]
    overlap = [len({m for m, _ in f[:10]} & {m for m, _ in vectors.search(NS, q, 10)}) / 10
               for f, q in zip(found, queries, strict=True)]
    assert np.mean(overlap) >= 0.9
    for f, q in zip(found, queries, strict=True):  # scores are exact cosines, best first
        exact = dict(vectors.search(NS, q, 1300))
        assert all(abs(exact[m] - s) < 1e-5 for m, s in f)
        assert [s for _, s in f] == sorted((s for _, s in f), reverse=True)
    assert [vectors.search(NS, q, 50, exact=False) for q in queries] == found  # deterministic

    restored = Projections.from_bytes(views.to_bytes())
    assert restored is not None
    assert restored.vectors.warm() == 3
    assert [restored.vectors.search(NS, q, 50, exact=False) for q in queries] == found


def test_a_rebuild_past_an_older_snapshot_keeps_its_indexes(fake_ann, monkeypatch, store_path,
                                                            clock):
    """A new projection version ignores the old snapshot's views, not its ANN indexes: they
    are checked against the rows and serve again, nothing is rebuilt."""
    monkeypatch.setattr(ann, "SEGMENT_ROWS", 40)
    texts = [f"note {i}: {w} met {v} at the {u}" for i, (w, v, u) in enumerate(
        (w, v, u) for w in ("Alice", "Bob", "Carol") for v in ("Dan", "Eve", "Finn", "Gus")
        for u in ("park", "cafe", "gym", "lake", "office", "museum", "beach", "library"))]
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember_many(texts, namespace="a")
        mem.consolidate()
        assert mem._views.vectors.ann_status("a")["segments"] == 2
    built = fake_ann["built"]
    monkeypatch.setattr(projections, "PROJECTION_VERSION", projections.PROJECTION_VERSION + 1)
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.opened_from.startswith("rebuild")
        status = mem._views.vectors.ann_status("a")
        assert status["segments"] == 2 and status["broken"] == 0
        q = mem.embedder.embed(["Alice at the park"])[0]
        assert mem._views.vectors.search("a", q, 5, exact=False) == \
            mem._views.vectors.search("a", q, 5, exact=True)
        assert fake_ann["built"] == built and fake_ann["loaded"] == 2
        assert mem.verify().ok


def test_a_damaged_snapshot_gives_no_indexes(fake_ann) -> None:
    views = Projections()
    views.vectors = space_of(int_rows(7, 120))
    assert Projections.ann_of(views.to_bytes()) is None  # none were built yet
    views.vectors.build_indexes(segment_rows=40)
    data = bytearray(views.to_bytes())
    kept = Projections.ann_of(bytes(data))
    assert kept is not None and [d.start for d in kept.spaces[NS]] == [0, 40, 80]
    data[-1] ^= 1
    assert Projections.ann_of(bytes(data)) is None
    assert Projections.ann_of(b"EMSNAP") is None

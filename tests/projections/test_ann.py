"""ANN search over sealed vector segments (projections.ann, Vectors.search(exact=False)).

Most tests swap pynndescent for an exact stand-in index, so they run in milliseconds and can
demand exact equality with exact search: they test the bookkeeping (the seals the fold makes
and merges, the indexes maintenance builds for them, the exact rows, tombstones, over-fetch,
fallbacks, snapshots). One test builds real pynndescent indexes (it compiles numba once, tens of
seconds) and checks their quality and persistence.
"""

from __future__ import annotations

import math
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
from tests.maps import held_snapshot_files

DIM = 8
NS = "ns"


class ExactIndex:
    """Stands in for pynndescent: the true k nearest by dot product, ties by row. It keeps its
    rows where pynndescent does (``_raw_data``, in ``_vertex_order``: here the build order), so
    that what a segment does to an index's own rows (zeroes removed ones, sets cold ones)
    reaches it too."""

    def __init__(self, rows: np.ndarray) -> None:
        self._raw_data = np.array(rows, dtype=np.float32)
        self._vertex_order = np.arange(len(rows))

    def query(self, q: np.ndarray, k: int, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        sims = self._raw_data @ q[0]
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


SMALL = ann.Layout(base_rows=10, fan_in=4, min_index_rows=40)


def space_of(rows: np.ndarray, layout: ann.Layout = SMALL) -> Vectors:
    vectors = Vectors(DIM, layout)
    vectors.spaces[NS] = space = Space(DIM)
    space.add([f"m{i:04d}" for i in range(len(rows))], rows)
    return vectors


def add(vectors: Vectors, prefix: str, rows: np.ndarray) -> None:
    vectors.spaces[NS].add([f"{prefix}{i:04d}" for i in range(len(rows))], rows)


def remove(vectors: Vectors, ids: set[str], *, erased: bool = False) -> None:
    vectors.spaces[NS].remove(ids, erased=erased)


def layout_of(vectors: Vectors) -> list[tuple[int, int]]:
    return vectors.spaces[NS].seal_rows(vectors.layout)


def segments_of(vectors: Vectors) -> list[tuple[int, int, int]]:
    return [(s.start, s.size, s.rows) for s in vectors.spaces[NS].segments]


def check_cache(vectors: Vectors, *, maintained: bool) -> None:
    """The indexes never overlap; after maintenance, each lies inside one run of the layout
    (before, one may serve a run since left with too few rows for an index)."""
    at = 0
    for seg in vectors.spaces[NS].segments:
        assert seg.start >= at
        at = seg.start + seg.rows
        assert not maintained or any(lo <= seg.start and at <= hi
                                     for lo, hi in layout_of(vectors))


def both(vectors: Vectors, q: np.ndarray, n: int, allowed=None):
    exact = vectors.search(NS, q, n, allowed)
    approx = vectors.search(NS, q, n, allowed, exact=False)
    return approx, exact


layouts = st.builds(ann.Layout, base_rows=st.integers(2, 30), fan_in=st.integers(2, 5),
                    min_index_rows=st.integers(2, 80),
                    rebuild_fraction=st.sampled_from((0.0, 0.25, 0.5, 1.0)))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), n_rows=st.integers(0, 260), layout=layouts,
       n=st.integers(1, 40), keep=st.sampled_from((1.0, 0.5, 0.05, 0.0)),
       purge=st.integers(0, 40), more=st.integers(0, 120), erased=st.booleans())
def test_with_exact_indexes_ann_search_is_exact_search(fake_ann, seed, n_rows, layout, n, keep,
                                                      purge, more, erased):
    vectors = space_of(int_rows(seed, n_rows), layout)
    vectors.build_indexes()
    rng = np.random.default_rng(seed + 1)
    gone: set[str] = set()
    if n_rows and purge:  # some rows removed after the build: masked in their segments
        gone = {f"m{i:04d}" for i in rng.choice(n_rows, size=min(purge, n_rows), replace=False)}
        remove(vectors, gone, erased=erased)
    if more and NS in vectors.spaces:  # new rows: seals merge, the old indexes still serve
        add(vectors, "n", int_rows(seed + 3, more))
    passing = {f"m{i:04d}" for i in range(n_rows) if rng.random() < keep}
    passing |= {f"n{i:04d}" for i in range(more) if rng.random() < keep}
    q = int_rows(seed + 2, 1)[0]
    approx, exact = both(vectors, q, n, passing.__contains__)
    assert approx == exact
    assert not gone & {mid for mid, _ in approx}
    if NS in vectors.spaces:
        check_cache(vectors, maintained=False)
        vectors.build_indexes()
        check_cache(vectors, maintained=True)
        space = vectors.spaces[NS]
        assert vectors.ann_status(NS)["segments"] == len(space.seal_rows(layout))
        assert vectors.build_indexes() == 0  # maintenance converges
        assert both(vectors, q, n, passing.__contains__)[0] == exact
        restored = Projections.from_bytes(_views(vectors).to_bytes())
        assert restored is not None
        assert restored.vectors.search(NS, q, n, passing.__contains__, exact=False) == exact


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**16), n_rows=st.integers(1, 260), layout=layouts,
       n=st.integers(1, 40), before=st.sampled_from((0.0, 0.3, 1.0)),
       after=st.sampled_from((0.0, 0.3, 1.0)), more=st.integers(0, 60))
def test_with_exact_indexes_ann_search_over_cold_rows_is_exact_search(
        fake_ann, seed, n_rows, layout, n, before, after, more):
    """Rows made cold (int8) before an index is built, after it (the loaded index takes them),
    or never: an index finds the same answers, scored the same way, as a scan of the rows."""
    vectors = space_of(int_rows(seed, n_rows), layout)
    rng = np.random.default_rng(seed + 1)
    space = vectors.spaces[NS]
    space.quantize({f"m{i:04d}" for i in range(n_rows) if rng.random() < before})
    vectors.build_indexes()
    space.quantize({f"m{i:04d}" for i in range(n_rows) if rng.random() < after})
    if more:
        add(vectors, "n", int_rows(seed + 3, more))
    q = int_rows(seed + 2, 1)[0]
    approx, exact = both(vectors, q, n)
    assert approx == exact
    restored = Projections.from_bytes(_views(vectors).to_bytes())
    assert restored is not None
    assert restored.vectors.digest_bytes() == vectors.digest_bytes()
    assert restored.vectors.search(NS, q, n, exact=False) == exact


def _views(vectors: Vectors) -> Projections:
    views = Projections()
    views.vectors = vectors
    return views


@settings(max_examples=100, deadline=None)
@given(layout=layouts, slots=st.integers(0, 2_000))
def test_the_runs_tile_the_slots_in_sizes_of_the_layout_largest_first(layout, slots):
    runs = ann.seals(slots, layout)
    assert all(b - a >= layout.min_index_rows for a, b in runs)
    unit = layout.base_rows
    sizes = [b - a for a, b in runs]
    assert sizes == sorted(sizes, reverse=True)
    assert all(sizes.count(n) < layout.fan_in for n in set(sizes))
    assert all(n // unit == layout.fan_in ** round(math.log(n // unit, layout.fan_in))
               for n in sizes)
    assert all(a % unit == 0 and b <= slots for a, b in runs)
    if layout.min_index_rows <= unit:  # nothing left out: they tile the full base runs
        assert sum(sizes) == slots // unit * unit
        assert [a for a, _ in runs] == [sum(sizes[:i]) for i in range(len(sizes))]


@settings(max_examples=80, deadline=None)
@given(layout=layouts, batches=st.lists(st.integers(0, 60), max_size=8),
       removed=st.sets(st.integers(0, 400), max_size=60))
def test_a_replay_that_never_sees_removed_rows_places_the_same_runs(layout, batches, removed):
    """Live, a row is added and removed later; a replay of the same log never gets its vector
    (its content was purged) but counts its slot: the same slots, runs and digest, however the
    rows arrive."""
    total = sum(batches)
    rows = int_rows(1, total)
    live = space_of(rows, layout)
    gone = {i for i in removed if i < total}
    remove(live, {f"m{i:04d}" for i in gone})
    replayed = Vectors(DIM, layout)
    replayed.spaces[NS] = space = Space(DIM)
    at = 0
    for size in batches:
        kept = [i for i in range(at, at + size) if i not in gone]
        space.add([f"m{i:04d}" for i in kept], rows[kept],
                  space.next_slot + np.asarray(kept, dtype=np.int64) - at, size)
        at += size
    assert space.next_slot == live.spaces[NS].next_slot == total
    assert layout_of(replayed) == layout_of(live)
    assert replayed.digest_bytes() == live.digest_bytes()
    restored = Vectors.load(*live.dump())
    assert restored.digest_bytes() == live.digest_bytes()
    assert restored.spaces[NS].seal_rows(layout) == layout_of(live)


def test_a_million_rows_ask_four_indexes_and_a_hundred_thousand_one():
    def sizes(count: int) -> list[int]:
        return [b - a for a, b in ann.seals(count, ann.LAYOUT)]

    assert sizes(1_000_000) == [400_000, 400_000, 100_000, 100_000]
    assert sizes(100_000) == [100_000]
    assert sizes(24_999) == []  # searched exactly
    worst = max(len(sizes(n)) for n in range(0, 1_600_001, 6_250))
    assert worst <= 9  # three per size from 25k to 400k


def test_indexes_are_built_per_seal_by_maintenance_only_and_merged_ones_replace_theirs(fake_ann):
    layout = ann.Layout(base_rows=10, fan_in=3, min_index_rows=30)
    vectors = space_of(int_rows(1, 45), layout)
    assert layout_of(vectors) == [(0, 30)]  # and 15 rows exact
    assert vectors.ann_status(NS)["segments"] == 0  # folding rows builds nothing
    assert vectors.build_indexes() == 1
    assert segments_of(vectors) == [(0, 30, 30)]
    add(vectors, "n", int_rows(2, 30))
    assert layout_of(vectors) == [(0, 30), (30, 60)]
    assert vectors.build_indexes() == 1
    add(vectors, "o", int_rows(3, 20))  # three runs of 30: merged into one of 90
    assert layout_of(vectors) == [(0, 90)]
    assert layout_of(vectors) == layout_of(space_of(np.concatenate(
        [int_rows(1, 45), int_rows(2, 30), int_rows(3, 20)]), layout))
    assert vectors.ann_status(NS) == {"rows": 95, "seals": 1, "segments": 2, "covered": 60,
                                      "dirty": 0, "broken": 0}  # the old two serve meanwhile
    q = int_rows(4, 1)[0]
    assert vectors.search(NS, q, 20, exact=False) == vectors.search(NS, q, 20)
    assert vectors.build_indexes(limit=0) == 0
    assert vectors.build_indexes() == 1
    assert segments_of(vectors) == [(0, 90, 90)]  # one index where there were two
    assert vectors.search(NS, q, 20, exact=False) == vectors.search(NS, q, 20)
    assert fake_ann["built"] == 3


def test_a_purge_masks_rows_and_only_an_index_past_the_fraction_is_rebuilt(fake_ann):
    layout = ann.Layout(base_rows=50, fan_in=4, min_index_rows=50, rebuild_fraction=0.5)
    vectors = space_of(int_rows(3, 160), layout)
    assert vectors.build_indexes() == 3
    # ten rows of the first run and one of the second: masked, no index rebuilt
    remove(vectors, {f"m{i:04d}" for i in range(10)} | {"m0060"})
    assert layout_of(vectors) == [(0, 40), (40, 89), (89, 139)]
    assert segments_of(vectors) == [(0, 50, 40), (40, 50, 49), (89, 50, 50)]
    q = int_rows(4, 1)[0]
    approx, exact = both(vectors, q, 30)
    assert approx == exact and "m0060" not in dict(approx)
    assert vectors.build_indexes() == 0
    # past half of the first: its index is rebuilt over the 20 rows it has left
    remove(vectors, {f"m{i:04d}" for i in range(10, 30)})
    assert vectors.build_indexes() == 1
    assert segments_of(vectors) == [(0, 20, 20), (20, 50, 49), (69, 50, 50)]
    assert both(vectors, q, 30)[0] == vectors.search(NS, q, 30)
    # a run left with too few rows for an index (a quarter of the minimum) is searched exactly
    remove(vectors, {f"m{i:04d}" for i in range(30, 45)})
    assert vectors.build_indexes() == 0
    assert segments_of(vectors) == [(5, 50, 49), (54, 50, 50)]
    assert both(vectors, q, 30)[0] == vectors.search(NS, q, 30)
    assert fake_ann["built"] == 4


def test_masked_indexes_survive_a_snapshot_and_erased_ones_are_not_persisted(fake_ann,
                                                                             monkeypatch):
    monkeypatch.setattr(ann, "LAYOUT", SMALL)
    views = _views(space_of(int_rows(7, 130)))  # seals of 40, 40, 40 and 10 exact rows
    plain = views.digests()
    views.vectors.build_indexes()
    assert views.digests() == plain  # the indexes are a cache: verify never sees them
    remove(views.vectors, {"m0005", "m0006"})  # purged: masked
    remove(views.vectors, {"m0050"}, erased=True)  # erased: masked, and its index not persisted
    q = int_rows(8, 1)[0]
    expected = views.vectors.search(NS, q, 10)
    assert views.vectors.search(NS, q, 10, exact=False) == expected
    restored = Projections.from_bytes(views.to_bytes())
    assert restored is not None and restored.digests() == views.digests()
    space = restored.vectors.spaces[NS]
    assert [(s.start, s.size, s.rows) for s in space.segments] == [(0, 40, 38), (77, 40, 40)]
    assert space.segments[0].removed is not None
    assert list(np.flatnonzero(space.segments[0].removed)) == [5, 6]
    assert fake_ann["loaded"] == 0  # loaded lazily, by the first search that needs them
    assert restored.vectors.search(NS, q, 10, exact=False) == expected
    assert fake_ann["loaded"] == 2
    assert restored.vectors.build_indexes() == 1  # only the erased one's seal
    assert views.vectors.build_indexes() == 1  # live too: an erased segment is rebuilt


def test_a_projection_read_back_from_its_snapshot_adopts_the_live_segments(fake_ann,
                                                                          monkeypatch):
    """What the engine does after writing a snapshot (it reads its projections back from it):
    the live segments carry over, loaded indexes and masks included, the erased one too (the
    snapshot leaves it out), each reading its blob from the new snapshot or from a copy."""
    monkeypatch.setattr(ann, "LAYOUT", SMALL)
    views = _views(space_of(int_rows(7, 130)))
    views.vectors.build_indexes()
    remove(views.vectors, {"m0005"})  # purged: masked, persisted
    remove(views.vectors, {"m0050"}, erased=True)  # erased: masked, never persisted
    live = views.vectors.spaces[NS].segments
    data = memoryview(bytearray(views.to_bytes()))  # stands in for the mapped file
    restored = Projections.from_bytes(data)
    assert restored is not None and len(restored.vectors.spaces[NS].segments) == 2
    restored.vectors.adopt_segments(views.vectors)
    segments = restored.vectors.spaces[NS].segments
    assert segments == live and [s.scrub for s in segments] == [False, True, False]
    assert isinstance(segments[0].blob, memoryview) and segments[0].blob.obj is data.obj
    assert segments[1].blob == b""  # loaded and never persisted: the index is all it needs
    q = int_rows(8, 1)[0]
    assert restored.vectors.search(NS, q, 10, exact=False) == restored.vectors.search(NS, q, 10)
    assert fake_ann["loaded"] == 0 and fake_ann["built"] == 3  # nothing loaded or built again
    assert restored.digests() == views.digests()


def test_an_erased_segment_never_loaded_keeps_a_copy_of_its_blob(fake_ann, monkeypatch):
    monkeypatch.setattr(ann, "LAYOUT", SMALL)
    views = _views(space_of(int_rows(11, 130)))
    views.vectors.build_indexes()
    opened = Projections.from_bytes(memoryview(bytearray(views.to_bytes())))
    assert opened is not None
    remove(opened.vectors, {"m0044"}, erased=True)  # its segment not loaded yet
    restored = Projections.from_bytes(memoryview(bytearray(opened.to_bytes())))
    assert restored is not None
    restored.vectors.adopt_segments(opened.vectors)
    segment = restored.vectors.spaces[NS].segments[1]
    assert segment.scrub and segment.index is None
    assert isinstance(segment.blob, bytes) and segment.blob == b"\x01exact"  # its own copy
    q = int_rows(12, 1)[0]
    assert restored.vectors.search(NS, q, 20, exact=False) == restored.vectors.search(NS, q, 20)
    assert fake_ann["loaded"] == 3  # it loads from the copy and serves


def test_an_index_from_a_snapshot_masks_rows_removed_before_its_first_use(fake_ann,
                                                                          monkeypatch):
    monkeypatch.setattr(ann, "LAYOUT", SMALL)  # the layout a restored projection takes
    views = _views(space_of(int_rows(11, 130)))
    views.vectors.build_indexes()
    restored = Projections.from_bytes(views.to_bytes())  # as when a reopen replays a purge
    assert restored is not None
    remove(restored.vectors, {"m0003", "m0044"})
    q = int_rows(12, 1)[0]
    assert restored.vectors.search(NS, q, 20, exact=False) == restored.vectors.search(NS, q, 20)
    assert restored.vectors.ann_status(NS) == {"rows": 128, "seals": 3, "segments": 3,
                                               "covered": 118, "dirty": 2, "broken": 0}
    assert fake_ann["loaded"] == 3 and fake_ann["built"] == 3


def test_too_few_allowed_near_the_query_falls_back_to_exact(fake_ann):
    vectors = space_of(int_rows(5, 400), ann.Layout(base_rows=100, min_index_rows=100))
    vectors.build_indexes()
    q = int_rows(6, 1)[0]
    far = [mid for mid, _ in vectors.search(NS, -q, 3)]  # the three least similar rows
    approx, exact = both(vectors, q, 5, set(far).__contains__)
    assert approx == exact  # (empty or few: they are positive only if anything is)
    assert vectors.search(NS, np.zeros(DIM, np.float32), 5, exact=False) == []


def test_an_index_that_does_not_fit_its_rows_is_searched_exactly_then_rebuilt(fake_ann):
    vectors = space_of(int_rows(9, 90))  # seals of 40 and 40, and 10 exact rows
    space = vectors.spaces[NS]
    fp = ann.fingerprint(space.ids[:40])
    vectors.attach_ann(AnnDump(format=ann.FORMAT, spaces={NS: (
        SegmentDump(start=0, size=40, fingerprint=fp, blob=b"damaged"),
        SegmentDump(start=40, size=40, fingerprint=fp, blob=b"\x01exact"),  # other rows' ids
        SegmentDump(start=70, size=40, fingerprint=fp, blob=b"\x01exact"),  # past the rows
        SegmentDump(start=80, size=9, fingerprint=fp, blob=b"\x01exact", removed=b"\x01"),
    )}))
    assert [s.start for s in space.segments] == [0, 40]
    q = int_rows(10, 1)[0]
    approx, exact = both(vectors, q, 20)
    assert approx == exact
    assert vectors.ann_status(NS)["broken"] == 2
    assert vectors.build_indexes() == 2
    assert vectors.ann_status(NS) == {"rows": 90, "seals": 2, "segments": 2, "covered": 80,
                                      "dirty": 0, "broken": 0}
    vectors.attach_ann(AnnDump(format=ann.FORMAT + 1, spaces={}))  # another format: ignored
    assert vectors.ann_status(NS)["segments"] == 2


TEXTS = [f"note {i}: {w} met {v} at the {u}" for i, (w, v, u) in enumerate(
    (w, v, u) for w in ("Alice", "Bob", "Carol") for v in ("Dan", "Eve", "Finn", "Gus")
    for u in ("park", "cafe", "gym", "lake", "office", "museum", "beach", "library"))]


def test_consolidate_builds_persists_and_a_purge_masks_without_a_rebuild(
        fake_ann, monkeypatch, store_path, clock):
    monkeypatch.setattr(ann, "LAYOUT", ann.Layout(base_rows=20, fan_in=2, min_index_rows=40))
    with eventmem.open(store_path, clock=clock) as mem:
        ids = [r.memory_id for r in mem.remember_many(TEXTS, namespace="a")]
        assert mem._views.vectors.ann_status("a")["segments"] == 0  # never on ingest
        assert mem._views.vectors.spaces["a"].seal_rows(ann.LAYOUT) == [(0, 80)]
        mem.consolidate()
        assert mem._views.vectors.ann_status("a")["segments"] == 1
    built = fake_ann["built"]
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem._views.vectors.ann_status("a")["segments"] == 1  # from the snapshot
        hits = mem._views.vectors.search("a", mem.embedder.embed(["Alice at the park"])[0], 5,
                                         exact=False)
        assert len(hits) == 5 and fake_ann["built"] == built
        for mid in ids[:3]:
            mem.forget(mid)
        clock.advance(timedelta(days=200))
        mem.consolidate()  # the forgotten ones are purged: masked, not rebuilt
        status = mem._views.vectors.ann_status("a")
        assert status["dirty"] == 1 and status["segments"] == 1
        assert fake_ann["built"] == built
        # The three are gone; the dream cycle may have added summaries of its own.
        held = [m for m in mem.memories(namespace="a") if m.status not in ("purged", "erased")]
        assert status["rows"] == len(held) and not {m.memory_id for m in held} & set(ids[:3])
        assert mem.verify().ok  # the seals, part of the state, equal a rebuild's
        runs = mem._views.vectors.spaces["a"].seal_rows(ann.LAYOUT)
        assert runs == [(0, 77)]  # the same slots, three fewer rows
        mem.snapshot()
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem._views.vectors.spaces["a"].seal_rows(ann.LAYOUT) == runs
        assert mem._views.vectors.ann_status("a")["dirty"] == 1  # the mask came back
        q = mem.embedder.embed(["Alice at the park"])[0]
        assert mem._views.vectors.search("a", q, 5, exact=False) == \
            mem._views.vectors.search("a", q, 5)


def test_an_erasure_masks_its_rows_and_keeps_their_index_out_of_every_snapshot(
        fake_ann, monkeypatch, store_path, clock):
    monkeypatch.setattr(ann, "LAYOUT", ann.Layout(base_rows=20, fan_in=2, min_index_rows=40))
    with eventmem.open(store_path, clock=clock) as mem:
        ids = [r.memory_id for r in mem.remember_many(TEXTS, namespace="a")]
        mem.consolidate()
        built = fake_ann["built"]
        mem.erase(ids[5])
        segment = mem._views.vectors.spaces["a"].segments[0]
        assert segment.scrub and segment.rows == 79  # masked, serving, not rebuilt
        assert fake_ann["built"] == built
        q = mem.embedder.embed(["Alice at the park"])[0]
        assert ids[5] not in dict(mem._views.vectors.search("a", q, 96, exact=False))
        assert mem.verify().ok
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.opened_from.startswith("snapshot")
        assert mem._views.vectors.ann_status("a")["segments"] == 0  # not persisted
        assert mem._views.vectors.search("a", q, 5, exact=False) == \
            mem._views.vectors.search("a", q, 5)
        mem.consolidate()  # maintenance rebuilds it over the rows that remain
        assert mem._views.vectors.ann_status("a")["segments"] == 1
        assert fake_ann["built"] == built + 1
        assert mem.verify().ok


def test_an_erase_keeps_the_live_segments_and_lets_go_of_the_snapshot_file(
        fake_ann, monkeypatch, store_path, clock):
    """An engine opened from a snapshot holds its indexes as views of the mapped file, not yet
    loaded; an erase removes the file: the engine lets go of it, and the segment masking the
    erased row keeps serving (from a copy of its blob) until maintenance rebuilds it."""
    monkeypatch.setattr(ann, "LAYOUT", ann.Layout(base_rows=20, fan_in=2, min_index_rows=40))
    with eventmem.open(store_path, clock=clock) as mem:
        ids = [r.memory_id for r in mem.remember_many(TEXTS, namespace="a")]
        mem.consolidate()
    built = fake_ann["built"]
    with eventmem.open(store_path, clock=clock) as mem:
        (segment,) = mem._views.vectors.spaces["a"].segments
        assert segment.index is None and isinstance(segment.blob, memoryview)
        mem.erase(ids[5])
        assert held_snapshot_files(store_path) == [
            str(store_path / "snapshots" / f"{mem.head().seq:020d}.emsnap")]
        assert mem._views.vectors.spaces["a"].segments == [segment]  # the same, masked
        assert segment.scrub and segment.rows == 79 and isinstance(segment.blob, bytes)
        q = mem.embedder.embed(["Alice at the park"])[0]
        found = mem._views.vectors.search("a", q, 96, exact=False)
        assert ids[5] not in dict(found) and found == mem._views.vectors.search("a", q, 96)
        assert segment.index is not None and fake_ann["built"] == built  # served, not rebuilt
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
    layout = ann.Layout(base_rows=100, fan_in=2, min_index_rows=400)
    views.vectors = vectors = Vectors(dim, layout)
    vectors.spaces[NS] = Space(dim)
    vectors.spaces[NS].add([f"m{i:04d}" for i in range(len(rows))], rows)
    assert vectors.build_indexes() == 2  # runs of 800 and 400 rows, and 100 searched exactly
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
    assert restored.vectors.warm() == 2
    assert [restored.vectors.search(NS, q, 50, exact=False) for q in queries] == found
    # rows removed: masked; the masked index survives a snapshot and answers the same
    vectors.spaces[NS].remove({f"m{i:04d}" for i in range(0, 1300, 9)})
    masked = [vectors.search(NS, q, 50, exact=False) for q in queries]
    overlap = [len({m for m, _ in f[:10]} & {m for m, _ in vectors.search(NS, q, 10)}) / 10
               for f, q in zip(masked, queries, strict=True)]
    assert np.mean(overlap) >= 0.9
    restored = Projections.from_bytes(views.to_bytes())
    assert restored is not None and restored.vectors.ann_status(NS)["dirty"] == 2
    assert [restored.vectors.search(NS, q, 50, exact=False) for q in queries] == masked


def test_a_rebuild_past_an_older_snapshot_keeps_its_indexes(fake_ann, monkeypatch, store_path,
                                                            clock):
    """A new projection version ignores the old snapshot's views, not its ANN indexes: they
    are checked against the rows and serve again, nothing is rebuilt."""
    monkeypatch.setattr(ann, "LAYOUT", ann.Layout(base_rows=20, fan_in=4, min_index_rows=40))
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember_many(TEXTS, namespace="a")
        mem.consolidate()
        assert mem._views.vectors.ann_status("a")["segments"] == 1
    built = fake_ann["built"]
    monkeypatch.setattr(projections, "PROJECTION_VERSION", projections.PROJECTION_VERSION + 1)
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.opened_from.startswith("rebuild")
        status = mem._views.vectors.ann_status("a")
        assert status["segments"] == 1 and status["broken"] == 0
        q = mem.embedder.embed(["Alice at the park"])[0]
        assert mem._views.vectors.search("a", q, 5, exact=False) == \
            mem._views.vectors.search("a", q, 5, exact=True)
        assert fake_ann["built"] == built and fake_ann["loaded"] == 1
        assert mem.verify().ok


def test_a_damaged_snapshot_gives_no_indexes(fake_ann) -> None:
    views = Projections()
    views.vectors = space_of(int_rows(7, 120))
    assert Projections.ann_of(views.to_bytes()) is None  # none were built yet
    views.vectors.build_indexes()
    data = bytearray(views.to_bytes())
    kept = Projections.ann_of(bytes(data))
    assert kept is not None and [d.start for d in kept.spaces[NS]] == [0, 40, 80]
    data[40] ^= 1  # in the head, which holds the indexes (the columns follow it)
    assert Projections.ann_of(bytes(data)) is None
    assert Projections.ann_of(b"EMSNAP") is None

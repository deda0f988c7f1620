"""Cold vectors: int8 codes with a per-row scale (projections.quantize) for the rows of memories
gone cold (archived, dormant), kept by the vector view (projections.vectors).

The codes are checked on their own (range, unit rows, error bounds, purity); the space under
random adds, quantizations and removals against a plain model of its rows; the fold through a
real store on disk (ManualClock, default embedder): which memories go cold, that a rebuild and
a reopen give the same bytes, that the write gate compares new input with the int8 row and the
audit re-derives it, and that a log written before (its store records no ``cold_vectors``)
replays and audits with float32 rows as it was decided. The ANN side (indexes over cold rows)
is in test_ann.py.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
import replay
from eventmem import engine as engine_module
from eventmem.config import Config
from eventmem.events import EmbedderRegistered, LifecycleTransitioned, MemoryReinforced
from eventmem.policies.dream.params import DreamParams
from projections import Projections, ann, quantize
from projections import vectors as vector_view
from projections.vectors import Space, Vectors
from tests.strategies import HIKES, OTHERS

DIM = 16
NS = "ns"
DAY = timedelta(days=1)
FAR = 2000 * DAY  # an identity memory's retention is under the archive floor by then


def unit_rows(seed: int, n: int, dim: int = DIM) -> np.ndarray:
    rows = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


# -- the codes --------------------------------------------------------------------------------


def test_codes_use_the_int8_range_and_stand_for_unit_rows():
    rows = unit_rows(1, 50, 256)
    codes, scales = quantize.quantize(rows)
    assert codes.dtype == np.int8 and scales.dtype == np.float32
    assert (np.abs(codes).max(axis=1) == quantize.CODE_MAX).all()  # the peak spans the range
    assert codes.min() >= -quantize.CODE_MAX  # symmetric: -128 is never used
    back = quantize.dequantize(codes, scales)
    assert np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=1e-6)
    # Within half a code step of the row (the step is peak / 127), and cosines within 0.01.
    step = np.abs(rows).max(axis=1) / quantize.CODE_MAX
    assert (np.abs(back - rows) <= step[:, None] * 0.5 + 2e-3).all()
    queries = unit_rows(2, 20, 256)
    assert np.abs(queries @ back.T - queries @ rows.T).max() < 0.01


def test_a_zero_row_has_zero_codes_and_scale():
    codes, scales = quantize.quantize(np.zeros((2, DIM), dtype=np.float32))
    assert not codes.any() and not scales.any()
    assert not quantize.dequantize(codes, scales).any()


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 40), block=st.integers(1, 9))
def test_a_row_gets_the_same_bytes_alone_or_among_others_and_in_any_block(seed, n, block):
    """A pure function of the row: what replay, a reopen and an audit rely on."""
    rows = unit_rows(seed, n)
    codes, scales = quantize.quantize(rows)
    for i in (0, n // 2, n - 1):
        alone = quantize.quantize(rows[i : i + 1])
        assert alone[0].tobytes() == codes[i].tobytes()
        assert alone[1].tobytes() == scales[i : i + 1].tobytes()
    q = unit_rows(seed + 1, 1)[0]
    whole = quantize.similarities(codes, scales, q)
    saved = quantize.BLOCK_ROWS
    try:
        quantize.BLOCK_ROWS = block
        assert quantize.quantize(rows)[0].tobytes() == codes.tobytes()
        # The same values; the last bit may differ (BLAS sums one row and many differently).
        assert np.allclose(quantize.similarities(codes, scales, q), whole, atol=1e-6)
    finally:
        quantize.BLOCK_ROWS = saved
    assert np.allclose(whole, quantize.dequantize(codes, scales) @ q, atol=1e-6)


# -- the space --------------------------------------------------------------------------------

steps = st.lists(st.tuples(st.sampled_from(("add", "cold", "remove")), st.integers(0, 2**16),
                           st.integers(1, 30)), max_size=12)


@settings(max_examples=80, deadline=None)
@given(steps=steps, seed=st.integers(0, 2**16))
def test_a_space_holds_each_row_as_float32_or_as_its_codes(steps, seed):
    """Against a model (id -> the row it holds: the vector, or its dequantized codes once
    cold): every reader gives the model's rows, a search ranks by them, a snapshot round trip
    keeps the bytes, and a cold row costs ``dim`` bytes and a scale."""
    space, model, made = Space(DIM), {}, 0
    vectors = Vectors(DIM)
    vectors.spaces[NS] = space
    for op, op_seed, size in steps:
        rng = np.random.default_rng(op_seed)
        if op == "add":
            rows = unit_rows(op_seed, size)
            ids = [f"m{made + i:04d}" for i in range(size)]
            made += size
            space.add(ids, rows)
            model.update(zip(ids, rows, strict=True))
        elif model:
            chosen = {mid for mid in model if rng.random() < size / 30}
            if op == "cold":
                already = {mid for mid in chosen
                           if space.cold is not None and space.cold[space.ids.index(mid)]}
                assert space.quantize(chosen) == len(chosen - already)
                for mid in chosen - already:
                    codes, scales = quantize.quantize(model[mid][None, :])
                    model[mid] = quantize.dequantize(codes, scales)[0]
            else:
                space.remove(chosen)
                model = {mid: row for mid, row in model.items() if mid not in chosen}
    assert space.ids == list(model)  # in order
    expected = np.array([model[mid] for mid in space.ids], dtype=np.float32).reshape(-1, DIM)
    assert space.take(np.arange(space.count)).tobytes() == expected.tobytes()
    assert space.block(0, space.count).tobytes() == expected.tobytes()
    n_cold = 0 if space.cold is None else int(space.cold[: space.count].sum())
    assert len(space.codes) == n_cold and space.warm_rows == space.count - n_cold
    q = unit_rows(seed, 1)[0]
    assert np.allclose(space.similarities(q), expected @ q, atol=1e-6)
    lo, hi = sorted(np.random.default_rng(seed).integers(0, space.count + 1, size=2))
    assert np.allclose(space.similarities(q, lo, hi), space.similarities(q)[lo:hi], atol=1e-6)
    rows = np.arange(space.count)[::2]
    assert np.allclose(space.similarities_at(rows, q), space.similarities(q)[rows], atol=1e-6)
    found = vectors.search(NS, q, 5)
    # Ranked by the space's own scores (equal to the model's above, to the last bit or so:
    # BLAS sums a row alone and among others differently), ties by row: two equal rows rank
    # in the order they were added, whichever a one-bit difference would favour.
    truth = sorted(((float(s), i) for i, s in enumerate(space.similarities(q)) if s > 0),
                   key=lambda t: (-t[0], t[1]))[:5]
    assert [mid for mid, _ in found] == [space.ids[i] for _, i in truth]
    restored = Vectors.load(*vectors.dump())
    assert restored.digest_bytes() == vectors.digest_bytes()
    assert restored.spaces.get(NS, Space(DIM)).take(np.arange(space.count)).tobytes() == \
        expected.tobytes()
    _, raw = vectors.dump()
    assert len(raw) == (space.count - n_cold) * DIM * 4 + n_cold * DIM


def test_a_space_grows_after_rows_went_cold():
    space = Space(DIM)
    rows = unit_rows(3, 40)
    space.add([f"m{i}" for i in range(20)], rows[:20])
    space.quantize({f"m{i}" for i in range(0, 20, 2)})
    space.add([f"m{i}" for i in range(20, 40)], rows[20:])  # past the first capacity
    assert space.count == 40 and space.warm_rows == 30
    back = space.take(np.arange(40))
    assert back[21:].tobytes() == rows[21:].tobytes()  # warm rows untouched
    assert back[1].tobytes() == rows[1].tobytes()
    assert not np.array_equal(back[0], rows[0]) and np.allclose(back[0], rows[0], atol=0.02)


# -- the fold, through a store ----------------------------------------------------------------

IDENTITY = ["My middle name is Maria", "I was born in Lisbon in 1990",
            "My blood type is O negative", "My mother tongue is Portuguese"]


def open_at(path: Path, clock: eventmem.ManualClock, **dream: object) -> eventmem.Engine:
    dream = dream or {"enabled": False}
    return eventmem.open(path, clock=clock, config=Config(sync=False, dream=DreamParams(**dream)))


def cold_ids(mem: eventmem.Engine, namespace: str = "a") -> set[str]:
    space = mem._views.vectors.spaces[namespace]
    if space.cold is None:
        return set()
    return {mid for mid, cold in zip(space.ids, space.cold.tolist(), strict=False) if cold}


def settled(mem: eventmem.Engine) -> None:
    """A rebuild from the log gives the same bytes, a reopen too; verify and audit agree."""
    assert mem._views.digests() == replay.rebuild(mem.store).digests()
    data = mem._views.to_bytes()
    restored = Projections.from_bytes(data)
    assert restored is not None and restored.to_bytes() == data
    # As the engine writes it: the cold rows' codes in the snapshot, the warm rows named.
    named = b"".join(mem._views.to_parts(rows_by_key=True))
    restored = Projections.from_bytes(named, mem.store.vector_rows)
    assert restored is not None and restored.digests() == mem._views.digests()
    assert b"".join(restored.to_parts(rows_by_key=True)) == named
    assert mem.verify().ok
    report = mem.audit()
    assert report.ok, report.findings


def test_archived_memories_go_cold_and_stale_ones_stay_float32(store_path, clock, t0):
    with open_at(store_path, clock) as mem:
        kept = [mem.remember(t, kind="identity", namespace="a").memory_id for t in IDENTITY[:2]]
        brief = mem.remember("Gina walks the dog along the canal", kind="event",
                             namespace="a").memory_id
        assert mem._views.vectors.cold_vectors == quantize.CODES  # what a new store records
        mem.consolidate(now=clock.set(t0 + 200 * DAY))  # identity still >= 0.3; the event not
        assert mem.get(brief).status in ("stale", "archived", "deleted")
        assert cold_ids(mem) == ({brief} if mem.get(brief).status == "archived" else set())
        mem.consolidate(now=clock.set(t0 + FAR))
        assert {mem.get(mid).status for mid in kept} == {"archived"}
        assert set(kept) <= cold_ids(mem)
        space = mem._views.vectors.spaces["a"]
        assert len(space.codes) == len(cold_ids(mem))
        settled(mem)


def test_dormant_memories_go_cold(store_path, clock, t0):
    with open_at(store_path, clock, summaries=False) as mem:
        members = [mem.remember(text, kind="event", namespace="a").memory_id
                   for text in HIKES[:3]]
        other = mem.remember(OTHERS[0], kind="event", namespace="a").memory_id
        clock.advance(DAY)
        report = mem.consolidate()
        [made] = report.consolidated
        assert {mem.get(mid).tier for mid in members} == {"dormant"}
        assert cold_ids(mem) == set(members)  # the consolidated memory and the other stay warm
        assert other not in cold_ids(mem) and made.memory_id not in cold_ids(mem)
        settled(mem)


def test_the_gate_compares_new_input_with_the_int8_row_and_the_audit_re_derives_it(
        store_path, clock, t0):
    with open_at(store_path, clock) as mem:
        first = mem.remember(IDENTITY[0], kind="identity", namespace="a").memory_id
        fp32 = mem._views.vectors.spaces["a"].take([0])[0].copy()
        mem.consolidate(now=clock.set(t0 + FAR))
        assert cold_ids(mem) == {first}
        again = mem.remember(IDENTITY[0] + "!", kind="identity", namespace="a")
        assert (again.action, again.memory_id) == ("reinforced", first)
        [reinforced] = [e for _, e in mem.events() if isinstance(e, MemoryReinforced)]
        query = mem.embedder.embed([IDENTITY[0] + "!"])[0]
        cold = quantize.dequantize(*quantize.quantize(fp32[None, :]))[0]
        assert reinforced.similarity == pytest.approx(float(cold @ query), abs=1e-6)
        assert abs(reinforced.similarity - float(fp32 @ query)) > 1e-5  # not the float32 one
        settled(mem)


def test_an_audit_that_kept_cold_rows_float32_would_find_the_gate_decided_otherwise(
        store_path, clock, t0, monkeypatch):
    """The audit above passes because its fold quantizes as the live one did: one that does
    not sees another similarity for the decision taken against the cold row."""
    with open_at(store_path, clock) as mem:
        mem.remember(IDENTITY[0], kind="identity", namespace="a")
        mem.consolidate(now=clock.set(t0 + FAR))
        mem.remember(IDENTITY[0] + "!", kind="identity", namespace="a")
        assert mem.audit().ok
        monkeypatch.setattr(vector_view, "COLD_STATUSES", frozenset())
        report = mem.audit()
        assert not report.ok
        assert any("similarity" in str(finding) for finding in report.findings)


def test_a_revived_memory_keeps_its_int8_row(store_path, clock, t0):
    with open_at(store_path, clock) as mem:
        mid = mem.remember(IDENTITY[1], kind="identity", namespace="a").memory_id
        mem.consolidate(now=clock.set(t0 + FAR))
        assert mem.get(mid).status == "archived"
        hits = mem.recall("where was I born", namespace="a", include_hidden=True)
        assert [h.memory_id for h in hits][:1] == [mid]
        assert mem.get(mid).status == "active"  # the access brought it back
        assert cold_ids(mem) == {mid}
        settled(mem)
    with open_at(store_path, clock) as mem:
        assert mem.opened_from.startswith("snapshot") and cold_ids(mem) == {mid}


def test_a_log_from_before_cold_vectors_replays_and_audits_with_float32_rows(
        store_path, clock, t0, monkeypatch):
    """Its store recorded no ``cold_vectors``: every decision was made against float32 rows,
    so its replay keeps them, however many memories it archived."""
    monkeypatch.setattr(engine_module, "quantize", SimpleNamespace(CODES=""))
    with open_at(store_path, clock) as mem:
        first = mem.remember(IDENTITY[0], kind="identity", namespace="a").memory_id
        mem.consolidate(now=clock.set(t0 + FAR))
        mem.remember(IDENTITY[0] + "!", kind="identity", namespace="a")
    monkeypatch.undo()
    with open_at(store_path, clock) as mem:
        [registered] = [e for _, e in mem.events() if isinstance(e, EmbedderRegistered)]
        assert registered.cold_vectors == ""
        archived = [c.memory_id for _, e in mem.events() if isinstance(e, LifecycleTransitioned)
                    for c in e.changes if c.to_status == "archived"]
        assert archived == [first] and cold_ids(mem) == set()
        mem.remember(IDENTITY[0] + "?", kind="identity", namespace="a")
        assert cold_ids(mem) == set()
        settled(mem)


@settings(max_examples=6, deadline=None)
@given(picks=st.lists(st.integers(0, len(IDENTITY) - 1), min_size=1, max_size=4),
       suffixes=st.lists(st.sampled_from(["!", ".", "?", " indeed", " really"]), min_size=1,
                         max_size=4),
       days=st.integers(1_500, 4_000))
def test_gate_decisions_against_cold_rows_replay_and_audit(tmp_path_factory, picks, suffixes,
                                                           days):
    """Whatever was archived and then restated, the store rebuilds to the same bytes and the
    audit re-derives every decision (made against int8 rows)."""
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    clock = eventmem.ManualClock(start=t0)
    path = tmp_path_factory.mktemp("store") / "s"
    with open_at(path, clock) as mem:
        mem.remember_many([{"text": t, "kind": "identity", "namespace": "a"} for t in IDENTITY])
        mem.consolidate(now=clock.set(t0 + timedelta(days=days)))
        assert cold_ids(mem)
        for pick, suffix in zip(picks, suffixes, strict=False):
            mem.remember(IDENTITY[pick] + suffix, kind="identity", namespace="a")
        settled(mem)


# -- recall against float32 -------------------------------------------------------------------

PEOPLE = ["Alice", "Bob", "Carol", "Dan", "Erin", "Finn", "Gina", "Hugo", "Ines", "Jon"]
DOINGS = ["is planning the Kubernetes migration", "booked a table at the Thai place",
          "wants to learn the cello", "is reviewing the quarterly budget",
          "moved the standup to Thursday", "is training for a half marathon",
          "adopted a grey kitten", "is repainting the kitchen", "lost the spare office key",
          "started a course on bookkeeping", "is fixing the staging database",
          "ordered new running shoes"]
WHEN = ["next Friday", "this weekend", "on Monday", "after lunch", "in March", "tomorrow"]


def corpus() -> list[str]:
    """Short notes sharing many words, like the recall benchmark's low-selectivity corpus."""
    return [f"{p} {d} {w} with {PEOPLE[(i + k + j) % 10]}" for i, p in enumerate(PEOPLE)
            for d in DOINGS for k, w in enumerate(WHEN) for j in (1, 2)]


def recall_at_10(found: list[list[str]], truth: list[list[str]]) -> float:
    return float(np.mean([len(set(f) & set(t)) / len(t) for f, t in zip(found, truth,
                                                                         strict=True)]))


def test_exact_search_over_cold_rows_finds_the_float32_top_ten():
    texts = corpus()
    embedder = eventmem.HashingEmbedder()
    vectors = Vectors(embedder.dim)
    vectors.spaces[NS] = space = Space(embedder.dim)
    space.add([f"m{i:05d}" for i in range(len(texts))], embedder.embed(texts))
    queries = embedder.embed([f"what is {p} doing {w}" for p in PEOPLE for w in WHEN[:3]])
    truth = [[mid for mid, _ in vectors.search(NS, q, 10)] for q in queries]
    space.quantize(set(space.ids))
    found = [[mid for mid, _ in vectors.search(NS, q, 10)] for q in queries]
    assert len(set(texts)) == 1440 and len(space.codes) == len(texts)
    assert recall_at_10(found, truth) >= 0.97


@pytest.mark.slow
def test_pynndescent_over_a_mix_of_cold_rows_finds_the_float32_top_ten():
    """Real indexes (compiles numba once), 30% of the rows made cold after the build, against
    exact search over the float32 rows. The notes share most words (the 10th and 11th nearest
    are a few thousandths apart), so an index over them misses a few even at float32: the cold
    rows may cost little more than that."""
    texts = [t + end for end in ("", " near the harbour", " per the email") for t in corpus()]
    embedder = eventmem.HashingEmbedder()
    layout = ann.Layout(base_rows=500, fan_in=4, min_index_rows=2_000)
    vectors = Vectors(embedder.dim, layout)
    vectors.spaces[NS] = space = Space(embedder.dim)
    space.add([f"m{i:05d}" for i in range(len(texts))], embedder.embed(texts))
    queries = embedder.embed([f"what is {p} doing {w}" for p in PEOPLE for w in WHEN])
    truth = [[mid for mid, _ in vectors.search(NS, q, 10)] for q in queries]
    assert vectors.build_indexes() == 2  # two runs of 2,000 rows; 320 searched exactly
    warm = recall_at_10([[mid for mid, _ in vectors.search(NS, q, 10, exact=False)]
                         for q in queries], truth)
    rng = np.random.default_rng(5)
    space.quantize({mid for mid in space.ids if rng.random() < 0.3})
    found = [[mid for mid, _ in vectors.search(NS, q, 10, exact=False)] for q in queries]
    exact = [[mid for mid, _ in vectors.search(NS, q, 10)] for q in queries]
    assert recall_at_10(exact, truth) >= 0.97
    assert recall_at_10(found, truth) >= min(0.95, warm - 0.02)
    restored = Projections.from_bytes(_views(vectors).to_bytes())
    assert restored is not None
    assert [[mid for mid, _ in restored.vectors.search(NS, q, 10, exact=False)]
            for q in queries] == found


def _views(vectors: Vectors) -> Projections:
    views = Projections()
    views.vectors = vectors
    return views

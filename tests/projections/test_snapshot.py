"""The snapshot (projections.Projections.to_parts / from_bytes) as an open reads it: columns read
in place and decoded on first use, a store opened from it answering as the live engine and as a
rebuild, and a damaged or missing one giving way to a rebuild."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.reader import Reader
from eventmem.storage import snapfiles
from projections import Projections
from projections.vectors import Space, Vectors

TEXTS = ["Alice moved to Berlin in March", "Bob prefers green tea over coffee",
         "The Kubernetes migration is planned for next Friday", "Carol's dog is called Rex",
         "I finished reading Dune on the train to Lisbon", "Dave is allergic to peanuts",
         "Emma will present the billing refactor on Monday", "We hiked up the hill last weekend"]
T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
QUERIES = ["where does alice live", "what does bob drink", "kubernetes migration",
           "dog name", "allergic"]


def answers(reader: Reader, ids: list[str]) -> dict[str, Any]:
    """What a reader says: every memory, recall (without recording it) and stats."""
    out: dict[str, Any] = {"get": [msgspec.structs.asdict(reader.get(mid)) for mid in ids]}
    out["recall"] = [[(h.memory_id, h.score, sorted(h.signals.items()))
                      for h in Reader.recall(reader, q, namespace=ns, k=4)]
                     for q in QUERIES for ns in ("a", "b")]
    out["stats"] = reader.stats()
    return out


# One step of a program: (action, text index, namespace, the clock's advance in hours).
steps = st.lists(st.tuples(st.sampled_from(["remember", "recall", "forget", "feedback", "pin"]),
                           st.integers(0, len(TEXTS) - 1), st.sampled_from(["a", "b"]),
                           st.integers(0, 48)), min_size=1, max_size=10)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=steps, snapshot_at=st.integers(0, 10))
def test_a_store_opened_from_its_snapshot_answers_as_live_and_as_a_rebuild(
        tmp_path_factory: pytest.TempPathFactory, program: list[tuple[str, int, str, int]],
        snapshot_at: int) -> None:
    path = tmp_path_factory.mktemp("store")
    clock = eventmem.ManualClock(start=T0)
    config = eventmem.Config(sync=False)
    ids: list[str] = []
    with eventmem.open(path, clock=clock, config=config) as mem:
        for i, (action, which, ns, hours) in enumerate(program):
            if i == snapshot_at:
                mem.snapshot()  # a snapshot in the middle: the open folds the tail after it
            clock.advance(timedelta(hours=hours))
            if action == "remember" or not ids:
                r = mem.remember(TEXTS[which], namespace=ns)
                if r.memory_id is not None and r.memory_id not in ids:
                    ids.append(r.memory_id)
            elif action == "recall":
                mem.recall(TEXTS[which].split()[0], namespace=ns)
            else:
                mid = ids[which % len(ids)]
                if mem.get(mid).status in ("active", "stale"):
                    {"forget": mem.forget, "pin": mem.pin,
                     "feedback": lambda m: mem.feedback(m, useful=True)}[action](mid)
        live = answers(mem, ids)
        live_digests = mem._views.digests()
        mem.snapshot()
    with eventmem.open(path, clock=clock, config=config, readonly=True) as reopened:
        assert reopened.opened_from.startswith("snapshot")
        assert reopened._views.decoded() == 0  # nothing decoded by the open itself
        assert reopened._views.digests() == live_digests
        assert reopened._views.decoded() == 0  # nor by the digests
        assert answers(reopened, ids) == live
        assert reopened.verify().ok
    # The same store without its snapshot: opened by folding the whole log.
    shutil.copytree(path, path.with_name(path.name + "-rebuilt"))
    shutil.rmtree(path.with_name(path.name + "-rebuilt") / snapfiles.DIRECTORY)
    with eventmem.open(path.with_name(path.name + "-rebuilt"), clock=clock, config=config,
                       readonly=True) as rebuilt:
        assert rebuilt.opened_from.startswith("rebuild")
        assert rebuilt._views.digests() == live_digests
        assert answers(rebuilt, ids) == live


def _store(path: Path, n: int = 40) -> eventmem.Engine:
    clock = eventmem.ManualClock(start=T0)
    mem = eventmem.open(path, clock=clock, config=eventmem.Config(sync=False))
    mem.remember_many([f"{TEXTS[i % len(TEXTS)]} (note {i})" for i in range(n)], namespace="a")
    return mem


def test_an_open_decodes_no_record_and_a_get_decodes_one(tmp_path: Path) -> None:
    with _store(tmp_path / "s") as mem:
        some = mem.recall("alice berlin", namespace="a", k=1)[0].memory_id
    with eventmem.open(tmp_path / "s") as mem:
        state = mem._views.state
        assert mem.opened_from.startswith("snapshot") and mem._views.decoded() == 0
        assert len(state.memories) == 40 and some in state.memories
        assert mem._views.decoded() == 0  # counting and membership read the keys only
        assert mem.get(some).memory_id == some
        assert mem._views.decoded() == 1  # its record


def _damage(path: Path, at: int) -> None:
    """Flip one byte of the newest snapshot file, ``at`` bytes from its start (negative: from
    its end)."""
    files = sorted((path / snapfiles.DIRECTORY).iterdir())
    data = bytearray(files[-1].read_bytes())
    data[at] ^= 0x40
    files[-1].write_bytes(data)


def _columns_at(path: Path) -> dict[str, tuple[int, int]]:
    """Where each column of the newest snapshot file lies: name -> (start, length)."""
    files = sorted((path / snapfiles.DIRECTORY).iterdir())
    data = files[-1].read_bytes()
    size = int.from_bytes(data[26:34], "big")
    head = msgspec.msgpack.decode(data[34:34 + size])
    start = 34 + size + (-(34 + size) % 16)
    return {s[0]: (start + s[1], s[2]) for s in head["sections"]}


@pytest.mark.parametrize("where", ["head", "memories.values", "memories.keys",
                                   "by_dedup.values", "intervals.value_at", "vectors.keys",
                                   "missing file"])
def test_a_damaged_or_missing_snapshot_gives_a_rebuild(tmp_path: Path, where: str) -> None:
    path = tmp_path / "s"
    with _store(path) as mem:
        expected = mem._views.digests()
    if where == "missing file":
        for f in (path / snapfiles.DIRECTORY).iterdir():
            f.unlink()
    elif where == "head":
        _damage(path, 40)
    else:
        start, length = _columns_at(path)[where]
        assert length > 0
        _damage(path, start + length // 2)
    with eventmem.open(path) as mem:
        assert mem.opened_from.startswith("rebuild")
        assert mem._views.digests() == expected
        assert mem.verify().ok


def test_a_snapshot_round_trips_through_its_bytes() -> None:
    views = Projections()
    assert Projections.from_bytes(views.to_bytes()) is not None
    assert Projections.from_bytes(b"EMSNAP") is None
    assert Projections.from_bytes(views.to_bytes()[:-1]) is None


def _sections(data: bytes) -> dict[str, tuple[int, int]]:
    """Where each column of a snapshot's bytes lies: name -> (start, length)."""
    size = int.from_bytes(data[26:34], "big")
    head = msgspec.msgpack.decode(data[34:34 + size])
    start = 34 + size + (-(34 + size) % 16)
    return {s[0]: (start + s[1], s[2]) for s in head["sections"]}


def test_a_snapshot_names_its_vector_rows_and_reads_them_from_the_store(tmp_path: Path) -> None:
    """The store's vector table holds every row: the engine's snapshot keeps each row's
    content key instead of a second copy of its float32 bytes, and reads the rows back from
    the store (none there, or no store to ask: no snapshot, the caller rebuilds)."""
    with _store(tmp_path / "s") as mem:
        views, expected = mem._views, mem._views.digests()
        named = b"".join(views.to_parts(rows_by_key=True))
        whole = views.to_bytes()
        rows = sum(space.count for space in views.vectors.spaces.values())
        assert rows == 40 and _sections(named)["vectors"][1] == 0
        assert abs(len(whole) - len(named) - rows * mem.embedder.dim * 4) < 64
        assert Projections.from_bytes(named) is None
        assert Projections.from_bytes(named, lambda keys: None) is None
        restored = Projections.from_bytes(named, mem.store.vector_rows)
        assert restored is not None and restored.digests() == expected
        restored = Projections.from_bytes(whole)  # holding its rows, it needs no store
        assert restored is not None and restored.digests() == expected


def test_rows_without_a_content_key_stay_in_the_snapshot() -> None:
    """Rows added with no key (never by a fold) cannot be named: the snapshot holds them."""
    views = Projections()
    views.vectors = Vectors(4)
    views.vectors.spaces["a"] = space = Space(4)
    space.add(["m1", "m2"], np.full((2, 4), 0.5, dtype=np.float32))
    data = b"".join(views.to_parts(rows_by_key=True))
    assert _sections(data)["vectors"][1] == 2 * 4 * 4
    restored = Projections.from_bytes(data)
    assert restored is not None and restored.digests() == views.digests()


def test_columns_of_the_same_bytes_are_stored_once(tmp_path: Path) -> None:
    """The memories' and the intervals' keys are the same strings, and so are the text index's
    and the vector rows' ids: each is stored once, and every column reads back its bytes."""
    with _store(tmp_path / "s") as mem:
        data, expected = mem._views.to_bytes(), mem._views.digests()
    sections = _sections(data)
    assert sections["memories.keys"] == sections["intervals.keys"]
    assert sections["text\x00a\x00ids"] == sections["vectors\x00a\x00ids"]
    assert sections["memories.key_at"] == sections["text\x00a\x00ids_at"]
    first = min(at for at, _ in sections.values())
    assert len(data) - first < sum(length for _, length in sections.values())
    restored = Projections.from_bytes(data)
    assert restored is not None and restored.digests() == expected


@pytest.mark.parametrize("repeats", [3, 300])
def test_term_counts_take_a_byte_unless_one_is_256_or_more(tmp_path: Path, repeats: int) -> None:
    """Term counts are kept a byte each, or as the fold holds them (uint32) when one does not
    fit; either way the store opened from the snapshot scores as the live one."""
    with _store(tmp_path / "s") as mem:
        text = " ".join(f"tea {i}" for i in range(repeats))  # (a word alone repeated is refused)
        assert mem.remember(text, namespace="a").action == "created"
        hits = [(h.memory_id, h.score) for h in
                mem.as_of(seq=mem.seq).recall("tea", namespace="a", k=3)]
        expected, data = mem._views.digests(), mem._views.to_bytes()
    assert ("text\x00a\x00tf8" in _sections(data)) == (repeats < 256)
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        assert mem.opened_from.startswith("snapshot")
        assert mem._views.digests() == expected
        assert [(h.memory_id, h.score) for h in
                mem.as_of(seq=mem.seq).recall("tea", namespace="a", k=3)] == hits


def test_a_store_whose_snapshots_name_their_rows_opens_to_the_same_answers(tmp_path: Path) -> None:
    """Config.snapshot_rows False: the snapshot names each vector row instead of holding it (a
    third less disk); a reopen reads the rows from the store, folds the same state and answers
    as before."""
    import eventmem

    for kept in (True, False):
        path = tmp_path / f"kept-{kept}"
        config = eventmem.Config(snapshot_rows=kept)
        with eventmem.open(path, config=config) as mem:
            for i in range(40):
                mem.remember(f"note {i} about the garden and the river {i % 7}", namespace="n")
            expected = [h.memory_id for h in mem.recall("river garden", namespace="n")]
            digests = mem._views.digests()
        with eventmem.open(path, config=config) as mem:
            assert mem.opened_from.startswith("snapshot")
            assert mem._views.digests() == digests
            assert [h.memory_id for h in mem.recall("river garden", namespace="n")] == expected

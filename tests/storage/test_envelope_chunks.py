"""The log read in chunks (EventLog.envelope_chunks, the rebuild's reader): the same envelopes as
reading one at a time, for any range and chunk size, each content event with its own content
(newest slots scanned, older ones read by key), and damaged or old records handled per record."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem.storage.log as log_module
from eventmem import codec
from eventmem.errors import CorruptRecordError
from eventmem.events import CONTENT_EVENTS, Event, MemoryIngested, MemoryPinned, MemoryReinforced
from eventmem.storage.envelope import Content
from eventmem.storage.log import EventLog, seq_key
from projections import Projections

N = 80
HASHES = [f"{i:032x}" for i in range(N)]


def _content(i: int) -> Content:
    return Content(f"text {i}", bytes([i]) * 16, bytes([i, 0, 0, 0]),
                   bytes([0x92, 0x90, 0x90]) if i % 3 else None)  # an empty Extraction


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EventLog]:
    """Pins, ingests of fresh content, and ingests of much older content (the sparse slots a
    chunk must read by key) beside reinforcements (which join no content), in one log."""
    log = EventLog.open(tmp_path_factory.mktemp("chunks") / "store")
    rnd = random.Random(5)
    for i in range(N):
        events: list[Event] = [MemoryIngested(at=i, namespace="a", memory_id=f"m{i}",
                                               content_hash=HASHES[i], dedup_key="k",
                                               kind="event")]
        if i % 7 == 6:
            old = rnd.randrange(i)
            events.append(MemoryIngested(at=i, namespace="a", memory_id=f"again{i}",
                                         content_hash=HASHES[old], dedup_key="k", kind="event"))
            events.append(MemoryReinforced(at=i, namespace="a", memory_id=f"m{old}",
                                           content_hash=HASHES[old], similarity=1.0, rule="r"))
        if i % 5 == 0:
            events.append(MemoryPinned(at=i, namespace="a", memory_id=f"m{i}"))
        log.append(events, contents={HASHES[i]: _content(i)})
    yield log
    log.close()


def one_at_a_time(log: EventLog, start: int, stop: int | None) -> list[tuple[object, ...]]:
    """What each record should come out as, read record by record."""
    out: list[tuple[object, ...]] = []
    for seq, event in log.read(start, stop):
        content = None
        if isinstance(event, CONTENT_EVENTS):
            content = _content(HASHES.index(event.content_hash))  # type: ignore[attr-defined]
        out.append((seq, event) if content is None else
                   (seq, event, None, content.vector, content.terms, content.extraction))
    return out


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.integers(0, 140), stop=st.one_of(st.none(), st.integers(-2, 140)),
       size=st.integers(1, 40))
def test_chunks_are_the_envelopes_one_at_a_time(store: EventLog, start: int, stop: int | None,
                                               size: int, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    monkeypatch.setattr(log_module, "_READ_CHUNK", size)
    chunks = list(store.envelope_chunks(start, stop))
    assert all(0 < len(chunk) <= size for chunk in chunks)
    flat = [env for chunk in chunks for env in chunk]
    expected = one_at_a_time(store, start, stop)
    assert [tuple(env)[:len(want)] for env, want in zip(flat, expected, strict=True)] == expected
    assert all(env.text is None for env in flat)  # not asked for; the terms are cached
    assert list(store.envelopes(start, stop)) == flat


def test_with_text_joins_each_text(store: EventLog) -> None:
    texts = [env.text for env in store.envelopes(1, with_text=True)
             if isinstance(env.event, MemoryIngested)]
    assert texts[:8] == [f"text {i}" for i in range(7)] + [texts[7]]
    assert texts[7] in {f"text {i}" for i in range(6)}  # an earlier text, ingested again


def test_folding_chunks_equals_folding_one_at_a_time(store: EventLog) -> None:
    chunked = Projections().apply_chunks(store.envelope_chunks())
    single = Projections()
    for env in store.envelopes():
        single.apply(env)
    assert chunked.digests() == single.digests()


def _damage(path: Path, seq: int, payload: bytes) -> None:
    log = EventLog.open(path)
    try:
        # Bypass the chain: only the decode is tested.
        with log.environment.env.begin(write=True) as txn:
            value = txn.get(seq_key(seq), db=log._log)
            assert value is not None
            txn.put(seq_key(seq), value[:log_module.HASH_SIZE] + payload, db=log._log)
    finally:
        log.close()


def _small_log(path: Path) -> None:
    log = EventLog.open(path)
    try:
        log.append([MemoryPinned(at=i, namespace="a", memory_id=f"m{i}") for i in range(6)])
    finally:
        log.close()


def test_a_record_that_does_not_decode_is_named_by_its_seq(tmp_path: Path) -> None:
    _small_log(tmp_path / "s")
    _damage(tmp_path / "s", 4, b"\xc1garbage")
    log = EventLog.open(tmp_path / "s", readonly=True)
    try:
        with pytest.raises(CorruptRecordError) as err:
            list(log.envelope_chunks())
        assert err.value.seq == 4
    finally:
        log.close()


def test_an_old_tag_in_a_chunk_goes_through_its_upcaster(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _small_log(tmp_path / "s")
    old = {"type": "memory.pinned_v0", "at": 3, "namespace": "a", "mid": "m3"}
    _damage(tmp_path / "s", 4, codec.encode_value(old))
    monkeypatch.setitem(codec.UPCASTERS, "memory.pinned_v0", lambda raw: {
        "type": "memory.pinned", "at": raw["at"], "namespace": raw["namespace"],
        "memory_id": raw["mid"]})
    log = EventLog.open(tmp_path / "s", readonly=True)
    try:
        events = [env.event for chunk in log.envelope_chunks() for env in chunk]
    finally:
        log.close()
    assert events[3] == MemoryPinned(at=3, namespace="a", memory_id="m3")
    assert [e.memory_id for e in events] == [f"m{i}" for i in range(6)]  # type: ignore[attr-defined]

"""The store's format on disk: a new store (format 3) packs its records (eventmem.codec.pack) and
compresses its vector rows, handing back the very events and float32 bytes it was given; a store
of format 2 keeps plain records and raw rows, and still reads, replays, verifies and audits as it
was written (issue 17, item 2)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import lmdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import eventmem
import eventmem.storage.log as log_module
from eventmem import codec
from eventmem.errors import CorruptRecordError, IncompatibleStoreError
from eventmem.events import MemoryIngested
from eventmem.storage.content import ContentTables
from eventmem.storage.envelope import Content
from eventmem.storage.log import HASH_SIZE, EventLog, seq_key
from eventmem.text.embedders import default_embedder

TEXTS = ["Alice moved to Berlin in March", "Bob prefers tea over coffee",
         "the quarterly report is due next Friday", "Carol's dog is called Biscuit"]


def _table(store: Path, name: bytes) -> dict[bytes, bytes]:
    """A table as stored: key -> the stored bytes."""
    env = lmdb.open(str(store), readonly=True, lock=False, max_dbs=16, subdir=True)
    try:
        with env.begin() as txn:
            return {bytes(k): bytes(v) for k, v in txn.cursor(db=env.open_db(name, txn=txn))}
    finally:
        env.close()


def _rows(store: Path) -> dict[bytes, bytes]:
    """The vectors table as stored: slot -> the stored bytes."""
    return _table(store, b"vectors")


def _payloads(store: Path) -> list[bytes]:
    """Every log record's bytes after its chain hash, as stored."""
    return [value[HASH_SIZE:] for value in _table(store, b"log").values()]


@contextmanager
def _format_2(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Within it a new store is made in format 2, as an eventmem before format 3 made it."""
    with monkeypatch.context() as patch:
        patch.setattr(log_module, "FORMAT_VERSION", b"2")
        yield


def _write(store: Path, clock: eventmem.ManualClock, texts: list[str]) -> None:
    with eventmem.open(store, clock=clock) as mem:
        mem.remember_many(texts, namespace="n")


def _embedded(texts: list[str]) -> set[bytes]:
    return {row.tobytes() for row in default_embedder().embed(texts)}


def test_a_new_store_keeps_its_rows_compressed_and_reads_the_embedders_bytes(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    _write(store_path, clock, TEXTS)
    stored = _rows(store_path)
    assert len(stored) == len(TEXTS)
    dim = default_embedder().dim
    assert all(len(row) < dim * 4 for row in stored.values())  # smaller than raw float32
    log = EventLog.open(store_path, readonly=True)
    try:
        assert log.format == b"3"
        read = {env.vector for env in log.envelopes() if env.vector is not None}
    finally:
        log.close()
    assert read == _embedded(TEXTS)  # exactly, bit for bit


def test_a_new_store_packs_its_records_and_reads_the_events_written(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    _write(store_path, clock, TEXTS)
    payloads = _payloads(store_path)
    assert payloads and all(p[0] == codec.PACKED for p in payloads)
    log = EventLog.open(store_path, readonly=True)
    try:
        events = [event for _, event in log.read()]
        # Every read path gives the same events: the chunked reader, one record, the raw bytes.
        assert [env.event for env in log.envelopes()] == events
        assert [codec.decode(raw.payload) for raw in log.iter_raw()] == events
        assert sum(map(len, payloads)) < sum(len(codec.encode(e)) for e in events) / 2
    finally:
        log.close()


def test_a_scan_for_a_tag_finds_packed_records(store_path: Path,
                                               clock: eventmem.ManualClock) -> None:
    """A namespace erase finds the namespace's recall queries by such a scan: one that looked
    at the stored bytes would miss them all, and leave the queries' text in the store."""
    _write(store_path, clock, TEXTS)
    with eventmem.open(store_path, clock=clock) as mem:
        mem.recall("where did alice move", namespace="n", k=1)
        mem.recall("tea", namespace="other", k=1)
    log = EventLog.open(store_path, readonly=True)
    try:
        found = list(log.events_tagged(b"memory.recalled", log.head().seq))
    finally:
        log.close()
    assert sorted(event.namespace for event in found) == ["n", "other"]


def test_a_format_2_store_keeps_raw_rows_and_replays_verifies_and_audits(
        store_path: Path, clock: eventmem.ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    with _format_2(monkeypatch):
        _write(store_path, clock, TEXTS[:2])
    # Reopened by this eventmem: it stays format 2, and rows written now stay raw too (an
    # older eventmem can still read the store).
    _write(store_path, clock, TEXTS[2:])
    dim = default_embedder().dim
    assert {len(row) for row in _rows(store_path).values()} == {dim * 4}
    assert all(p[0] != codec.PACKED for p in _payloads(store_path))
    assert set(_rows(store_path).values()) == _embedded(TEXTS)
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.stats()["store_format"] == "2"
        assert mem.verify().ok
        assert mem.audit().ok
        assert mem.recall("where did alice move", namespace="n", k=1)[0].text == TEXTS[0]


def test_live_and_rebuilt_projections_agree_on_a_compressed_store(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    _write(store_path, clock, TEXTS)
    for snapshot in sorted((store_path / "snapshots").iterdir()):
        snapshot.unlink()  # the open folds the whole log, reading every row back
    with eventmem.open(store_path, clock=clock) as mem:
        report = mem.verify()
        assert report.ok, report.findings
        assert mem.audit().ok
        assert mem.recall("tea or coffee", namespace="n", k=1)[0].text == TEXTS[1]


def test_a_store_of_an_unknown_format_is_refused(store_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(log_module, "FORMAT_VERSION", b"9")
        EventLog.open(store_path).close()
    with pytest.raises(IncompatibleStoreError, match="format 9"):
        EventLog.open(store_path)


@contextmanager
def _writing(store_path: Path, name: bytes) -> Iterator[tuple[lmdb.Transaction, Any]]:
    """A write transaction on one of the store's LMDB tables, bypassing the engine."""
    env = lmdb.open(str(store_path), max_dbs=16, subdir=True)
    try:
        with env.begin(write=True) as txn:
            yield txn, env.open_db(name, txn=txn)
    finally:
        env.close()


def _read_error(store_path: Path) -> CorruptRecordError:
    """The error reading every record of the store raises (the test fails if none does)."""
    log = EventLog.open(store_path, readonly=True)
    try:
        with pytest.raises(CorruptRecordError) as info:
            list(log.envelopes())
        return info.value
    finally:
        log.close()


def test_a_damaged_compressed_row_is_a_corrupt_record(store_path: Path,
                                                      clock: eventmem.ManualClock) -> None:
    _write(store_path, clock, TEXTS[:1])
    with _writing(store_path, b"vectors") as (txn, db):
        (slot, row), = txn.cursor(db=db)
        txn.put(slot, bytes(row)[:-5] + b"junk!", db=db)
    assert "vector row" in str(_read_error(store_path))


def test_a_damaged_packed_record_is_reported_with_its_seq(store_path: Path,
                                                          clock: eventmem.ManualClock) -> None:
    _write(store_path, clock, TEXTS[:2])
    with _writing(store_path, b"log") as (txn, db):
        value = bytes(txn.get(seq_key(2), db=db))
        txn.put(seq_key(2), value[:-3], db=db)  # cut short: no longer inflates
    assert _read_error(store_path).seq == 2
    with eventmem.open(store_path, readonly=True) as mem:
        report = mem.verify()
    assert not report.ok and any(f.seq == 2 for f in report.findings)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(hnp.arrays(np.float32, st.integers(0, 64),
                                elements=st.floats(width=32, allow_nan=False)),
                     min_size=1, max_size=8),
       packed=st.booleans())
def test_any_row_reads_back_as_the_bytes_written(tmp_path: Path, rows: list[np.ndarray],
                                                 packed: bool) -> None:
    """Compression is lossless for any float32 row (negative zeros, subnormals, extremes)."""
    env = lmdb.open(str(tmp_path / f"rows-{len(list(tmp_path.iterdir()))}"), max_dbs=16,
                    map_size=1 << 24)
    try:
        log_tables = ContentTables(env, readonly=False, packed=packed)
        meta = env.open_db(b"meta")
        contents = {f"{i:032x}": Content(f"text {i}", row.tobytes()) for i, row in enumerate(rows)}
        with env.begin(write=True) as txn:
            log_tables.put(txn, contents, meta)
        with env.begin() as txn:
            for content_hash, content in contents.items():
                got = log_tables.get(txn, content_hash)
                assert got is not None and got.vector == content.vector
        events = [MemoryIngested(at=1, namespace="n", memory_id=f"m{i}", content_hash=h,
                                 dedup_key="k", kind="event") for i, h in enumerate(contents)]
        with env.begin() as txn:
            joined = log_tables.join(txn, list(enumerate(events, 1)), with_text=True)
        assert [e.vector for e in joined] == [c.vector for c in contents.values()]
    finally:
        env.close()

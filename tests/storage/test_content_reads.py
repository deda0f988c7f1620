"""The two ways the log reader finds content give the same envelopes: the whole content table read
in one scan (a read of most of the log, :meth:`ContentTables.records`) and each chunk's hashes
looked up by key. Both against the content the store holds for each event, read one at a time,
over a log with slots out of event order, content without vector, terms or extraction, conflict
evidence (text joined, no terms), references to content never stored, purges and an erasure. A
damaged cached extraction is a finding with its seq, not a crash. Terms read alone are the
contents' terms."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
import eventmem.storage.log as log_module
from eventmem.events import (
    CONTENT_EVENTS,
    ConflictFlagged,
    Event,
    MemoryErased,
    MemoryIngested,
    MemoryPinned,
)
from eventmem.storage.content import ContentTables
from eventmem.storage.envelope import Content, Envelope
from eventmem.storage.log import EventLog

N = 150


def _hash(i: int) -> str:
    return f"{i:032x}"


def _content(i: int) -> Content:
    """Content i: every fifth has no vector, every seventh no terms, every third an extraction."""
    return Content(f"text {i}", None if i % 5 == 4 else bytes([i % 256]) * 16,
                   None if i % 7 == 6 else bytes([i % 256, 1, 0, 0]),
                   bytes([0x92, 0x90, 0x90]) if i % 3 == 0 else None)


def _ingest(i: int, memory_id: str) -> MemoryIngested:
    return MemoryIngested(at=i, namespace="a", memory_id=memory_id, content_hash=_hash(i),
                          dedup_key="k", kind="event")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EventLog]:
    log = EventLog.open(tmp_path_factory.mktemp("paths") / "store", sync=False)
    rnd = random.Random(11)
    for lo in range(0, N, 10):
        batch = list(range(lo, lo + 10))
        events: list[Event] = [_ingest(i, f"m{i}") for i in batch]
        # Slots in another order than the events name them (a batch's contents come as a map).
        contents = {_hash(i): _content(i) for i in reversed(batch) if i % 11 != 10}
        old = rnd.randrange(lo + 1)
        events.append(_ingest(old, f"again{lo}"))  # an older slot, far from the chunk's others
        events.append(ConflictFlagged(at=lo, namespace="a", conflict_id=f"c{lo}",
                                      memory_id=f"m{old}", other_id=f"m{lo}",
                                      content_hash=_hash(10_000 + lo), rule="r",
                                      similarity=0.9, strategy="ask"))
        contents[_hash(10_000 + lo)] = Content(f"evidence {lo}")  # joined as text: no terms
        events.append(MemoryPinned(at=lo, namespace="a", memory_id=f"m{lo}"))
        # A purge removes content earlier records referenced.
        log.append(events, contents=contents,
                   drop_contents=[_hash(lo - 3)] if lo % 30 == 20 else ())
    log.erase([MemoryErased(at=N, namespace="a", memory_ids=("m17", "m18"))],
              drop_contents=[_hash(17), _hash(18)])
    log.append([_ingest(17, "m17-again"), MemoryPinned(at=N, namespace="a", memory_id="m1")])
    yield log
    log.close()


def _expected(log: EventLog, start: int, stop: int | None, with_text: bool) -> list[Envelope]:
    """Each record with the content the store holds for it, read one at a time."""
    out = []
    for seq, event in log.read(start, stop):
        found = log.contents([getattr(event, "content_hash", "")])[0] \
            if isinstance(event, CONTENT_EVENTS) else None
        if found is None:
            out.append(Envelope(seq, event))
        else:
            text = found.text if with_text or found.terms is None else None
            out.append(Envelope(seq, event, text, found.vector, found.terms, found.extraction))
    return out


def _read(log: EventLog, start: int, stop: int | None, with_text: bool, *, whole_table: bool,
          size: int, monkeypatch: pytest.MonkeyPatch) -> list[list[Envelope]]:
    with monkeypatch.context() as patch:
        patch.setattr(log_module, "_READ_CHUNK", size)
        # The reader scans the whole table when the read spans at least half the contents.
        patch.setattr(ContentTables, "count", lambda self, txn: 0 if whole_table else 10**9)
        return list(log.envelope_chunks(start, stop, with_text=with_text))


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(start=st.integers(0, 220), stop=st.one_of(st.none(), st.integers(-1, 220)),
       size=st.integers(1, 50), with_text=st.booleans())
def test_whole_table_and_per_chunk_lookups_give_the_stored_content(
        store: EventLog, start: int, stop: int | None, size: int, with_text: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    expected = _expected(store, start, stop, with_text)
    for whole_table in (True, False):
        chunks = _read(store, start, stop, with_text, whole_table=whole_table, size=size,
                       monkeypatch=monkeypatch)
        assert all(0 < len(chunk) <= size for chunk in chunks)
        flat = [env for chunk in chunks for env in chunk]
        assert flat == expected
        assert all(type(env) is Envelope for env in flat)


def test_the_log_holds_every_case_the_property_relies_on(store: EventLog) -> None:
    envs = _expected(store, 1, None, True)
    ingests = [env for env in envs if isinstance(env.event, MemoryIngested)]
    assert any(env.text is None for env in ingests)  # purged, erased or never stored
    assert any(env.text is not None and env.vector is None for env in ingests)
    assert any(env.text is not None and env.terms is None for env in ingests)
    assert any(env.extraction is not None for env in ingests)
    assert any(isinstance(env.event, ConflictFlagged) and env.text for env in envs)
    # the erased text of m17 stays gone for the ingest of the same content after the erasure
    assert [env.text for env in ingests
            if getattr(env.event, "memory_id", "") in {"m17", "m17-again"}] \
        == [None, None]


def test_a_read_of_most_of_the_log_scans_the_whole_table_once(
        store: EventLog, monkeypatch: pytest.MonkeyPatch) -> None:
    scanned: list[int] = []
    real = ContentTables.records

    def spy(self: ContentTables, txn: object) -> dict[bytes, bytes]:
        table = real(self, txn)
        scanned.append(len(table))
        return table

    monkeypatch.setattr(ContentTables, "records", spy)
    assert [env for chunk in store.envelope_chunks() for env in chunk] \
        == _expected(store, 1, None, False)
    assert scanned == [store.stats()["blobs"]]
    scanned.clear()
    list(store.envelope_chunks(5, 8))  # a few records: looked up by key
    assert scanned == []


def test_a_damaged_extraction_is_a_finding_with_its_seq(tmp_path: Path) -> None:
    import lmdb

    from eventmem.errors import CorruptRecordError
    from replay import rebuild

    store = tmp_path / "store"
    with eventmem.open(store) as mem:
        made = mem.remember("Alice works at Acme in Berlin", namespace="a")
        mem.remember("Bob lives in Oslo", namespace="a")
    env = lmdb.open(str(store), max_dbs=16)
    with env.begin(write=True) as txn:
        table = env.open_db(b"extractions", txn=txn, create=False)
        key, _ = next(iter(txn.cursor(db=table)))
        txn.put(key, b"\xa2\xff\xfe", db=table)  # a map whose first key is not UTF-8
    env.close()
    with eventmem.open(store) as mem:  # opens from the snapshot: nothing refolds it yet
        assert mem.get(made.memory_id).text == "Alice works at Acme in Berlin"
        with pytest.raises(CorruptRecordError, match=f"seq {made.seq}"):
            rebuild(mem.store)
        report = mem.verify()
    assert not report.ok
    # Re-derived from the text it differs, and a rebuild cannot fold it.
    assert [(f.check, f.seq) for f in report.findings] == [("derived", made.seq),
                                                           ("content", made.seq)]


def test_terms_read_alone_are_the_contents_terms(store: EventLog) -> None:
    # Every kind of content the fixture holds: with and without terms, evidence (no terms),
    # purged, erased and re-stored, and hashes never stored.
    hashes = [_hash(i) for i in range(N)] + [_hash(10_000 + lo) for lo in range(0, N, 10)] \
        + [_hash(99_999)]
    expected = [None if c is None else c.terms for c in store.contents(hashes)]
    assert store.terms(hashes) == expected
    assert None in expected and any(t is not None for t in expected)


def test_vector_rows_come_in_the_order_asked_and_none_when_one_is_gone(store: EventLog) -> None:
    """What a snapshot that names its rows is read back with: the stored rows of the keys asked
    (a key asked twice gives its row twice), or None when any of them is not stored."""
    held = [i for i in range(N) if (c := store.contents([_hash(i)])[0]) is not None
            and c.vector is not None]
    asked = [held[5], held[0], held[-1], held[5], *held[10:40:3]]
    rows = store.vector_rows(b"".join(bytes.fromhex(_hash(i)) for i in asked))
    assert rows == b"".join(bytes([i % 256]) * 16 for i in asked)
    without_vector = next(i for i in range(N) if i % 5 == 4 and i % 11 != 10)
    purged = 17  # erased above
    for missing in (without_vector, purged, 10**9):
        assert store.vector_rows(bytes.fromhex(_hash(held[0])) +
                                 bytes.fromhex(_hash(missing))) is None
    assert store.vector_rows(b"") == b""

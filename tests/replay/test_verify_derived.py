"""Verify re-derives what is stored beside each text (issue 15, item 6): an altered vector, BM25
terms or extraction is reported with the content hash and the seq of the ingest that stored it,
whether the store opens from a snapshot or rebuilds from the log (where live and rebuilt
projections fold the same altered bytes and cannot tell)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import lmdb
import numpy as np
import pytest

import eventmem
from eventmem.events import MemoryIngested
from eventmem.storage.content import content_key
from eventmem.text.normalize import packed_terms

TEXTS = [
    "Alice moved to Berlin in March",
    "Bob works at Acme Corp in Paris",
    "the cat is called Tom",
    "Carol likes green tea and chess",
]


def _raw_env(path: Path) -> lmdb.Environment:
    return lmdb.open(str(path), max_dbs=8, subdir=True)


def _store(path: Path, clock: eventmem.ManualClock) -> dict[str, tuple[int, str]]:
    """A store holding TEXTS; returns text -> (ingest seq, content hash)."""
    with eventmem.open(path, clock=clock) as mem:
        for text in TEXTS:
            clock.advance(timedelta(minutes=1))
            mem.remember(text, namespace="a")
        mem.recall("Berlin", namespace="a")
        out = {}
        for seq, event in mem.events():
            if isinstance(event, MemoryIngested):
                out[mem.get(event.memory_id).text] = (seq, event.content_hash)
        return out


def _drop_snapshots(path: Path) -> None:
    env = _raw_env(path)
    try:
        with env.begin(write=True) as txn:
            txn.drop(env.open_db(b"snapshots", txn=txn), delete=False)
    finally:
        env.close()


def _alter(path: Path, chash: str, table: bytes, change: Callable[[bytes], bytes]) -> None:
    """Rewrite one derived row of a content (``table`` ``terms``: the terms in its content
    record)."""
    env = _raw_env(path)
    try:
        with env.begin(write=True) as txn:
            content = env.open_db(b"content", txn=txn, create=False)
            record = bytes(txn.get(content_key(chash), db=content))
            if table == b"terms":
                txn.put(content_key(chash), record[:8] + change(record[8:]), db=content)
                return
            db = env.open_db(table, txn=txn, create=False)
            txn.put(record[:8], change(bytes(txn.get(record[:8], db=db))), db=db)
    finally:
        env.close()


def _other_term(terms: bytes) -> bytes:
    """The same packed terms with one term id replaced by another word's."""
    other = packed_terms("zebra")
    return terms[:4] + other[4:8] + terms[8:]


def _nudge_vector(stored: bytes) -> bytes:
    # A store of this format keeps its rows compressed (eventmem.storage.content).
    row = np.frombuffer(zlib.decompress(stored), dtype=np.float32).copy()
    row[[0, 1]] = row[[1, 0]]  # still unit length: only a re-derivation can tell
    return zlib.compress(row.tobytes())


def _other_extraction(_: bytes) -> bytes:
    from eventmem.policies.extract import relations as extract

    other = extract.encoded("Dave moved to Oslo")
    assert other is not None
    return other


ALTERATIONS: dict[str, tuple[bytes, Callable[[bytes], bytes]]] = {
    "terms": (b"terms", _other_term),
    "vector": (b"vectors", _nudge_vector),
    "extraction": (b"extractions", _other_extraction),
}


def _verify(path: Path) -> Any:
    with eventmem.open(path, readonly=True) as mem:
        return mem.verify()


def test_an_untouched_store_verifies(store_path: Path, clock: eventmem.ManualClock) -> None:
    _store(store_path, clock)
    assert _verify(store_path).ok
    _drop_snapshots(store_path)
    report = _verify(store_path)
    assert report.ok, report.findings


@pytest.mark.parametrize("snapshot", [True, False], ids=["snapshot", "no-snapshot"])
@pytest.mark.parametrize("kind", sorted(ALTERATIONS))
def test_altered_derived_content_is_reported(
    store_path: Path, clock: eventmem.ManualClock, kind: str, snapshot: bool
) -> None:
    held = _store(store_path, clock)
    # An extraction exists only for a text that names something: Alice, Berlin.
    seq, chash = held["Alice moved to Berlin in March"]
    if not snapshot:
        _drop_snapshots(store_path)
    table, change = ALTERATIONS[kind]
    _alter(store_path, chash, table, change)
    report = _verify(store_path)
    assert not report.ok
    derived = [f for f in report.findings if f.check == "derived"]
    assert len(derived) == 1, report.findings
    assert derived[0].seq == seq
    assert chash in derived[0].message and kind in derived[0].message


def test_a_missing_extraction_is_reported(store_path: Path, clock: eventmem.ManualClock) -> None:
    held = _store(store_path, clock)
    seq, chash = held["Alice moved to Berlin in March"]
    _drop_snapshots(store_path)
    env = _raw_env(store_path)
    try:
        with env.begin(write=True) as txn:
            record = bytes(txn.get(content_key(chash),
                                   db=env.open_db(b"content", txn=txn, create=False)))
            txn.delete(record[:8], db=env.open_db(b"extractions", txn=txn, create=False))
    finally:
        env.close()
    report = _verify(store_path)
    assert [(f.check, f.seq) for f in report.findings] == [("derived", seq)]


def test_a_memorys_missing_labels_are_reported(store_path: Path,
                                                clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        mid = mem.remember("the red kite nests by the mill", namespace="a", tags=("birds",),
                           session="walk").memory_id
        [(seq, ingest)] = [(s, e) for s, e in mem.events() if isinstance(e, MemoryIngested)]
    assert ingest.caller_hash is not None and mid is not None
    env = _raw_env(store_path)
    try:
        with env.begin(write=True) as txn:
            record = bytes(txn.get(content_key(ingest.caller_hash),
                                   db=env.open_db(b"content", txn=txn, create=False)))
            txn.delete(record[:8], db=env.open_db(b"blobs", txn=txn, create=False))
    finally:
        env.close()
    report = _verify(store_path)
    assert (report.findings[0].check, report.findings[0].seq) == ("blob", seq)
    # (and the live projections, opened from the snapshot, still hold the labels)
    assert [f.check for f in report.findings] == ["blob", "projection"]
    assert ingest.caller_hash in report.findings[0].message

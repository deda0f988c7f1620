"""What an audit's re-runs read (replay.inputs): the stored texts, shared by the re-runs of one
audit, read from the log once each, and a text that is gone noted as missing by every re-run
that asks for it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

import eventmem
from eventmem.config import Config
from replay.inputs import Lookups, Texts

T0 = datetime(2025, 3, 1, tzinfo=UTC)


@pytest.fixture
def mem(tmp_path: Path):
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0),
                       config=Config(sync=False)) as engine:
        yield engine


def content_hashes(mem: eventmem.Engine, ids: list[str | None]) -> list[str]:
    return [mem._views.state.memories[str(i)].content_hash for i in ids]


def counted_reads(mem: eventmem.Engine, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The content hashes the log is asked for, in order (its own reads, spied on)."""
    asked: list[str] = []
    read = mem.store.blob

    def blob(chash: str) -> str | None:
        asked.append(chash)
        return read(chash)

    monkeypatch.setattr(mem.store, "blob", blob)
    return asked


def test_each_stored_text_is_read_from_the_log_once_for_all_re_runs(mem, monkeypatch):
    ids = [r.memory_id for r in mem.remember_many(["Alice lives in Berlin",
                                                   "Bob plays the cello on Sundays"])]
    chashes = content_hashes(mem, ids)
    asked = counted_reads(mem, monkeypatch)
    texts = Texts(mem.store)
    for _ in range(3):  # one Lookups per re-run, as the audit makes them
        tracker = Lookups(mem.store, mem._views, mem.embedder, texts)
        assert [tracker.blob(h) for h in chashes] == ["Alice lives in Berlin",
                                                     "Bob plays the cello on Sundays"]
        assert not tracker.missing
    assert asked == chashes


def test_a_text_gone_is_missing_for_every_re_run_that_asks(mem, monkeypatch):
    kept = mem.remember("The spare key is under the blue flowerpot")
    gone = mem.remember("The wifi password is on the fridge")
    chashes = content_hashes(mem, [kept.memory_id, gone.memory_id])
    mem.erase(memory_id=str(gone.memory_id))
    asked = counted_reads(mem, monkeypatch)
    texts = Texts(mem.store)
    for _ in range(2):
        tracker = Lookups(mem.store, mem._views, mem.embedder, texts)
        assert tracker.blob(chashes[0]) == "The spare key is under the blue flowerpot"
        assert not tracker.missing
        assert tracker.blob(chashes[1]) is None
        assert tracker.missing
    # The text there was read once; the one gone was asked of the log each time.
    assert asked == [chashes[0], chashes[1], chashes[1]]


def test_at_most_maxsize_texts_are_kept_the_oldest_read_going_first(mem, monkeypatch):
    chashes = content_hashes(mem, [r.memory_id for r in mem.remember_many(
        ["Carol runs on Tuesdays", "Dan collects stamps", "Erin learns Portuguese"])])
    asked = counted_reads(mem, monkeypatch)
    texts = Texts(mem.store, maxsize=2)
    for chash in chashes:
        texts.get(chash)
    assert list(texts.kept) == chashes[1:]
    assert texts.get(chashes[0]) == "Carol runs on Tuesdays"  # read again: it was dropped
    assert texts.get(chashes[2]) == "Erin learns Portuguese"  # still kept
    assert asked == [*chashes, chashes[0]]

"""Snapshot files (eventmem.storage.snapfiles): one per snapshot entry, removed with it, a stray
one swept by the next writer, and a file mapped by a reader stays readable when the writer
replaces it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import eventmem
from eventmem.storage import snapfiles
from tests.maps import held_snapshot_files

T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)


def _store(path: Path, n: int = 20) -> eventmem.Engine:
    mem = eventmem.open(path, clock=eventmem.ManualClock(start=T0),
                        config=eventmem.Config(sync=False))
    mem.remember_many([f"note number {i} about the garden" for i in range(n)], namespace="a")
    return mem


def test_the_snapshot_file_goes_with_its_entry(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with _store(path) as mem:
        mem.remember("one more", namespace="a")
        mem.snapshot()
        mem.remember("and another", namespace="a")
        mem.snapshot()  # keeps one (the default): the older file is removed
        assert mem.store.snapshot_seqs() == [mem.head().seq]
        assert [f.name for f in (path / snapfiles.DIRECTORY).iterdir()] == [
            snapfiles.name_of(mem.head().seq)]
    # A file no entry names (a crash between writing it and committing its entry) is removed
    # by the next writer.
    stray = path / snapfiles.DIRECTORY / snapfiles.name_of(1)
    stray.write_bytes(b"partial")
    with eventmem.open(path) as mem:
        assert not stray.exists() and mem.opened_from.startswith("snapshot")


def test_a_mapped_snapshot_stays_readable_when_replaced(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with _store(path) as mem:
        seq = mem.snapshot()
        mapped = mem.store.latest_snapshot()
        assert mapped is not None and isinstance(mapped.data, memoryview)
        before = bytes(mapped.data)
        mem.remember("one more", namespace="a")
        mem.snapshot()  # writes the next file and removes the one mapped above
        assert not (path / snapfiles.DIRECTORY / snapfiles.name_of(seq)).exists()
        assert bytes(mapped.data) == before  # the map still reads the removed file


def test_an_engine_reads_back_the_snapshot_it_writes_and_holds_no_removed_one(
        tmp_path: Path) -> None:
    """Writing a snapshot removes the older file, which an engine opened from it maps (a
    removed file stays on disk while mapped, holding whatever was purged or erased since): the
    engine reads its projections back from the new file, so it holds only the file the store
    names, and answers as before."""
    path = tmp_path / "s"
    _store(path).close()
    with eventmem.open(path, clock=eventmem.ManualClock(start=T0),
                       config=eventmem.Config(sync=False)) as mem:
        (opened,) = held_snapshot_files(path)
        mem.remember("one more note about the garden shed", namespace="a")
        before = mem._views.digests()
        seq = mem.snapshot()
        assert held_snapshot_files(path) == [str(path / snapfiles.DIRECTORY /
                                                  snapfiles.name_of(seq))]
        assert opened not in held_snapshot_files(path)
        assert mem._views.decoded() == 0 and mem._views.digests() == before  # read back
        assert [h.text for h in mem.recall("garden shed", namespace="a", k=1)] == [
            "one more note about the garden shed"]

"""Snapshot files (eventmem.storage.snapfiles): one per snapshot entry, removed with it, a stray
one swept by the next writer, and a file mapped by a reader stays readable when the writer
replaces it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import eventmem
from eventmem.storage import snapfiles

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

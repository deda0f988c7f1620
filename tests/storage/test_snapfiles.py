"""Snapshot files (eventmem.storage.snapfiles): one per snapshot entry, removed with it, a stray
one swept by the next writer, and a file mapped by a reader stays readable when the writer
replaces it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

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


def _mapped_snapshots() -> list[str]:
    """The snapshot files this process maps, from /proc/self/maps ("(deleted)" once unlinked)."""
    maps = Path("/proc/self/maps").read_text()
    return [line for line in maps.splitlines() if snapfiles.SUFFIX in line]


def test_an_erase_lets_go_of_the_snapshot_it_removed(tmp_path: Path) -> None:
    """An engine opened from a snapshot reads its columns from the mapped file; an erase
    removes that file, and the engine reads its projections again from the fresh one, so the
    erased vectors and terms do not stay on disk in an unlinked file the engine still maps."""
    if not Path("/proc/self/maps").exists():
        pytest.skip("needs /proc/self/maps (Linux)")
    path = tmp_path / "s"
    _store(path).close()  # close writes the snapshot the next open maps
    with eventmem.open(path, clock=eventmem.ManualClock(start=T0),
                       config=eventmem.Config(sync=False)) as mem:
        assert mem.opened_from.startswith("snapshot")
        assert _mapped_snapshots()
        gone = mem.remember("the secret word is marmalade", namespace="a").memory_id
        mem.erase(gone)
        assert not [line for line in _mapped_snapshots() if "(deleted)" in line]
        assert not mem.recall("marmalade", namespace="a")
        assert mem.verify().ok

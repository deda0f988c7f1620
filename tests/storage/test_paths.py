"""The store's path and the files in it: a path that cannot name a store directory is refused
with an eventmem error (never a raw OSError or ValueError, never the current directory taken
over), and a store with a symbolic link in it is refused at open, before anything follows the
link: the file it points at stays as it was and nothing is created where it leads."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import eventmem
from eventmem import InvalidInputError, StoreError

# Every file a store holds, and what an open would do through a link there.
STORE_FILES = ["data.mdb", "lock.mdb", "writer.lock", "ops.log", "ops.log.1", "data.mdb.compact"]


def _make_store(path: Path, clock: eventmem.ManualClock) -> eventmem.Head:
    with eventmem.open(path, clock=clock) as mem:
        mem.remember("Alice lives in Berlin", namespace="alice")
        return mem.head()


@pytest.mark.parametrize("readonly", [False, True])
def test_an_empty_path_is_refused_and_the_current_directory_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, readonly: bool
) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir(mode=0o755)
    monkeypatch.chdir(cwd)
    with pytest.raises(InvalidInputError, match="path is empty"):
        eventmem.open("", readonly=readonly)
    assert os.listdir(cwd) == []
    assert stat.S_IMODE(cwd.stat().st_mode) == 0o755


@pytest.mark.parametrize("readonly", [False, True])
def test_a_nul_in_the_path_is_refused(tmp_path: Path, readonly: bool) -> None:
    with pytest.raises(InvalidInputError, match="NUL"):
        eventmem.open(f"{tmp_path}/st\x00ore", readonly=readonly)


@pytest.mark.parametrize("path", [None, 3, b"/tmp/store", ["store"]])
def test_a_path_that_is_not_text_is_refused(path: object) -> None:
    with pytest.raises(InvalidInputError, match="path must be"):
        eventmem.open(path)  # type: ignore[arg-type]


@pytest.mark.parametrize("readonly", [False, True])
def test_a_file_or_a_path_under_a_file_is_a_store_error(tmp_path: Path, readonly: bool) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    with pytest.raises(StoreError, match="is a file, not a store directory"):
        eventmem.open(a_file, readonly=readonly)
    with pytest.raises(StoreError, match="Not a directory" if not readonly else "no store"):
        eventmem.open(a_file / "store", readonly=readonly)
    assert a_file.read_text() == "mine"


@pytest.mark.parametrize("readonly", [False, True])
@pytest.mark.parametrize("name", STORE_FILES)
def test_a_link_to_an_existing_file_is_refused_and_the_file_unchanged(
    tmp_path: Path, clock: eventmem.ManualClock, name: str, readonly: bool
) -> None:
    store = tmp_path / "store"
    head = _make_store(store, clock)
    # The link points at the store's own file moved out (or, for a file the store has not made
    # yet, at someone else's): either way, a file outside the store.
    outside = tmp_path / "outside.bin"
    if (store / name).exists():
        os.replace(store / name, outside)
    else:
        outside.write_bytes(b"precious bytes\n" * 100)
    before = outside.read_bytes(), outside.stat().st_mtime_ns
    (store / name).symlink_to(outside)
    with pytest.raises(StoreError, match=f"{name} is a symbolic link"):
        eventmem.open(store, clock=clock, readonly=readonly)
    assert (outside.read_bytes(), outside.stat().st_mtime_ns) == before
    # The refused open released the store: with the file back, it opens (in this process too).
    (store / name).unlink()
    if name not in ("ops.log.1", "data.mdb.compact"):
        os.replace(outside, store / name)
    with eventmem.open(store, clock=clock) as mem:
        assert mem.head() == head
        assert mem.verify().ok


@pytest.mark.parametrize("name", ["data.mdb", "lock.mdb", "writer.lock", "ops.log"])
def test_a_dangling_link_in_a_new_store_creates_nothing_where_it_points(
    tmp_path: Path, clock: eventmem.ManualClock, name: str
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    target = tmp_path / "elsewhere" / name
    target.parent.mkdir()
    (store / name).symlink_to(target)
    with pytest.raises(StoreError, match="symbolic link"):
        eventmem.open(store, clock=clock)
    assert os.listdir(target.parent) == []
    assert sorted(os.listdir(store)) == [name]


def test_the_store_directory_itself_may_be_a_link(tmp_path: Path,
                                                  clock: eventmem.ManualClock) -> None:
    real = tmp_path / "real"
    head = _make_store(real, clock)
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    with eventmem.open(tmp_path / "alias", clock=clock) as mem:
        assert mem.head() == head

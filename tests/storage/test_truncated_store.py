"""A damaged data file is refused at open (issue 15, item 4): ``data.mdb`` cut short of the
pages its meta names used to kill the process with SIGBUS (read-only too), and one cut to
0 bytes (or deleted) opened as a new, empty store with every memory silently gone. Each must be
a CorruptStoreError, writable and read-only, and the file left as it was.

Every open runs in a child process: a SIGBUS would kill the test runner.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

import eventmem
from tests import ROOT

OPEN = textwrap.dedent("""
    import sys
    import eventmem
    try:
        with eventmem.open(sys.argv[1], readonly=sys.argv[2] == "ro") as mem:
            print("OPENED", len(list(mem.memories())), mem.verify().ok)
    except eventmem.EventmemError as exc:
        print("ERROR", type(exc).__name__, exc)
""")

MEMORIES = 200  # enough pages for every cut, with vector rows compressed


def open_in_child(store: Path, mode: str) -> str:
    """Open ``store`` (``rw`` or ``ro``) in a child process; what it printed. A crash fails."""
    done = subprocess.run([sys.executable, "-c", OPEN, str(store), mode], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, f"the open crashed ({done.returncode}): {done.stderr[-2000:]}"
    return done.stdout.strip()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed store holding MEMORIES memories (its data.mdb several hundred KiB)."""
    store = tmp_path_factory.mktemp("truncate") / "store"
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    with eventmem.open(store, clock=clock) as mem:
        mem.remember_many([f"note {i}: the parcel for order {i * 31} went to depot {i % 9}"
                           for i in range(MEMORIES)], namespace="t")
    return store


def damaged(written: Path, tmp_path: Path, cut: int | None) -> tuple[Path, int]:
    """A copy of the store with data.mdb cut to ``cut`` bytes (None: deleted, negative: that
    many bytes off its end); returns it and the size left."""
    store = tmp_path / "copy"
    shutil.copytree(written, store)
    data = store / "data.mdb"
    if cut is None:
        data.unlink()
        return store, -1
    size = data.stat().st_size
    with open(data, "r+b") as f:
        f.truncate(cut if cut >= 0 else size + cut)
    return store, data.stat().st_size


CUTS = {
    "zero": 0,
    "inside_first_meta": 100,
    "between_metas": 4096 + 50,
    "after_metas": 2 * 4096 + 10,
    "half": 200_000,
    "last_byte": -1,
    "last_page": -4096,
    "deleted": None,
}


@pytest.mark.parametrize("mode", ["rw", "ro"])
@pytest.mark.parametrize("cut", sorted(CUTS))
def test_a_cut_data_file_is_a_clear_error(written: Path, tmp_path: Path, cut: str,
                                          mode: str) -> None:
    full = (written / "data.mdb").stat().st_size
    assert full > 250_000, "the fixture store should span many pages"
    store, left = damaged(written, tmp_path, CUTS[cut])
    out = open_in_child(store, mode)
    assert out.startswith("ERROR CorruptStoreError"), out
    if left >= 0:  # refused before anything touched it
        assert (store / "data.mdb").stat().st_size == left


def test_the_intact_copy_opens(written: Path, tmp_path: Path) -> None:
    store, _ = damaged(written, tmp_path, (written / "data.mdb").stat().st_size)
    assert open_in_child(store, "ro") == f"OPENED {MEMORIES} True"
    assert open_in_child(store, "rw") == f"OPENED {MEMORIES} True"


def test_a_file_grown_past_its_pages_is_no_damage(written: Path, tmp_path: Path) -> None:
    """Bytes past the last page the meta names are free space, not missing pages."""
    store, _ = damaged(written, tmp_path, (written / "data.mdb").stat().st_size + 3 * 4096)
    assert open_in_child(store, "rw") == f"OPENED {MEMORIES} True"


def test_a_new_store_whose_creation_died_before_its_first_page_opens(tmp_path: Path) -> None:
    """An empty data.mdb and no marker: a store whose creation was cut off before anything was
    written to it; it opens as the new store it was about to be."""
    store = tmp_path / "new"
    store.mkdir(mode=0o700)
    (store / "data.mdb").touch(mode=0o600)
    assert open_in_child(store, "rw") == "OPENED 0 True"
    assert open_in_child(store, "rw") == "OPENED 0 True"  # and is a store now
    (store / "data.mdb").write_bytes(b"")
    assert open_in_child(store, "rw").startswith("ERROR CorruptStoreError")


def test_an_older_store_is_marked_on_its_next_writable_open(written: Path,
                                                           tmp_path: Path) -> None:
    store, _ = damaged(written, tmp_path, (written / "data.mdb").stat().st_size)
    (store / "eventmem.store").unlink()  # as an eventmem before the marker left it
    assert open_in_child(store, "rw") == f"OPENED {MEMORIES} True"
    assert (store / "eventmem.store").exists()


def test_the_meta_pages_read_as_lmdb_reads_them(written: Path) -> None:
    """The check's own reading of the meta pages agrees with LMDB's (its last page and page
    size): a change of LMDB's layout fails here, not silently in the check."""
    import lmdb

    from eventmem.storage.datafile import read_meta

    raw = (written / "data.mdb").read_bytes()
    env = lmdb.open(str(written), max_dbs=8, readonly=True, lock=False)
    try:
        info, page_size = env.info(), env.stat()["psize"]
    finally:
        env.close()
    metas = [m for m in (read_meta(raw), read_meta(raw[page_size:])) if m is not None]
    newest = max(metas, key=lambda m: m.txnid)
    assert (newest.page_size, newest.last_page, newest.txnid) == (
        page_size, info["last_pgno"], info["last_txnid"])
    assert len(raw) >= (newest.last_page + 1) * page_size

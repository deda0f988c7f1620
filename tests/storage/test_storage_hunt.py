"""Storage bugs found by hunting, each pinned by the test that failed before its fix (real LMDB
stores, real processes, a real full tmpfs; nothing mocked):

- growing the map (this process's writer, or a reader catching up with another process's) ends
  every read transaction open in the process, so a reader iterating the log (``events()``,
  ``store.read()``, ``store.envelopes()``, audit's walk) died with a raw ``lmdb.Error``;
- on a full disk LMDB's first touch of a fresh ``lock.mdb`` page killed the process with SIGBUS
  (creating a store, compacting one) instead of raising StorageFullError;
- a compaction killed mid-copy left a full copy of the store (``data.mdb.compact.d``) that no
  later open removed;
- a damaged cached extraction made a rebuild (and so ``verify``, ``replay``, ``audit``) crash
  with ``UnicodeDecodeError`` instead of naming the record.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import eventmem
from eventmem.storage.environment import COMPACT_TMP
from tests import ROOT
from tests.disk import small_tmpfs

WAIT = 60.0


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _run(code: str, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, timeout=WAIT, env=_child_env(), cwd=ROOT)


SMALL_MAP = eventmem.Config(map_size=64 * 1024, sync=False)


def _big_batches(mem: eventmem.Engine, rounds: int, tag: str) -> None:
    """Enough text to double a small map several times."""
    for r in range(rounds):
        mem.remember_many([f"{tag} round {r} note {i} " + f"w{r}x{i} " * 800 for i in range(20)],
                          namespace="a")


# -- reads that outlive a map growth -------------------------------------------------------------


def test_an_open_iteration_survives_the_writer_growing_the_map(store_path: Path) -> None:
    with eventmem.open(store_path, config=SMALL_MAP) as mem:
        mem.remember_many([f"note {i} about the harbour" for i in range(30)], namespace="a")
        end = mem.seq
        events = mem.events()
        first = next(events)
        before = mem.store.stats()["map_size"]
        _big_batches(mem, 4, "grow")
        assert mem.store.stats()["map_size"] > before  # the map grew under the iteration
        seqs = [first[0], *(seq for seq, _ in events)]
        assert seqs == list(range(1, end + 1))
        assert mem.verify().ok


_GROW = r"""
import sys
import eventmem
with eventmem.open(sys.argv[1], config=eventmem.Config(map_size=64 * 1024, sync=False)) as mem:
    for r in range(5):
        mem.remember_many([f"other round {r} note {i} " + f"o{r}x{i} " * 800 for i in range(20)],
                          namespace="a")
    print(mem.seq)
"""


def test_a_reader_iterating_while_another_process_grows_the_map_catches_up(
    store_path: Path,
) -> None:
    with eventmem.open(store_path, config=SMALL_MAP) as mem:
        mem.remember_many([f"note {i} about the harbour" for i in range(30)], namespace="a")
        end = mem.seq
    with eventmem.open(store_path, readonly=True) as ro:
        mapped = ro.store.stats()["map_size"]
        events, envelopes = ro.events(), ro.store.envelopes(1, end)
        first, first_env = next(events), next(envelopes)
        grown = _run(_GROW, store_path)
        assert grown.returncode == 0, grown.stderr
        head = int(grown.stdout)
        # Catching up remaps the grown file in this process...
        assert ro.refresh() == head and ro.store.stats()["map_size"] > mapped
        # ...and the iterations begun before it carry on over the records they promised.
        assert [first[0], *(seq for seq, _ in events)] == list(range(1, end + 1))
        assert [first_env.seq, *(env.seq for env in envelopes)] == list(range(1, end + 1))
        assert ro.verify().ok


# -- a full disk -----------------------------------------------------------------------------


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs; the test fills it."""
    with small_tmpfs(tmp_path, 2) as mount_point:
        yield mount_point


# Opens (creating) the store and, with "compact", fills the disk and compacts; prints the error.
_ON_FULL_DISK = r"""
import os, sys
import eventmem
store, filler, step = sys.argv[1:4]


def fill():
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while True:
            os.write(fd, bytes(4096))
    except OSError:
        pass
    finally:
        os.close(fd)


if step == "create":
    fill()
try:
    mem = eventmem.open(store, config=eventmem.Config(map_size=256 * 1024))
except eventmem.StoreError as exc:
    print(type(exc).__name__)
    sys.exit(0)
if step.startswith("compact"):
    mem.remember_many([f"kept note {i}: " + f"k{i} " * 40 for i in range(20)], namespace="a")
    fill()
    if step == "compact-some-room":  # room for the lock file, not for the copy
        os.truncate(filler, os.path.getsize(filler) - 3 * 4096)
    try:
        mem.compact()
        print("compacted")
    except eventmem.StoreError as exc:
        print(type(exc).__name__)
    os.remove(filler)
    assert mem.verify().ok
    assert len(list(mem.memories(namespace="a"))) == 20
    mem.compact()  # with room again, it works
    mem.close()
    with eventmem.open(store, readonly=True) as ro:
        print("reopened", len(list(ro.memories(namespace="a"))))
"""


@pytest.mark.parametrize("step", ["create", "compact", "compact-some-room"])
def test_a_full_disk_is_a_clear_error_not_a_dead_process(full_disk: Path, step: str) -> None:
    done = _run(_ON_FULL_DISK, full_disk / "store", full_disk / "filler", step)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # -7: SIGBUS
    if step == "create":
        assert done.stdout.split() == ["StorageFullError"]
    else:
        assert done.stdout.split() == ["StorageFullError", "reopened", "20"]
        assert not (full_disk / "store" / (COMPACT_TMP + ".d")).exists()


# -- a compaction killed mid-copy ------------------------------------------------------------

_COMPACT_HELD = r"""
import sys, time
import eventmem
from eventmem.storage import environment

real = environment.os.replace


def replace(src, dst):  # the copy is written; the kill lands before it is moved into place
    print("copied", flush=True)
    time.sleep(600)


environment.os.replace = replace
with eventmem.open(sys.argv[1]) as mem:
    mem.compact()
"""


def test_a_compaction_killed_mid_copy_leaves_no_copy_behind(store_path: Path) -> None:
    with eventmem.open(store_path) as mem:
        mem.remember_many([f"note {i} about the harbour" for i in range(30)], namespace="a")
    proc = subprocess.Popen([sys.executable, "-c", _COMPACT_HELD, str(store_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_child_env(), cwd=ROOT)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "copied", proc.communicate()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=WAIT)
    assert (store_path / (COMPACT_TMP + ".d")).exists()  # what the kill left
    with eventmem.open(store_path) as mem:
        assert mem.verify().ok
        assert sorted(p.name for p in store_path.iterdir()) == [
            "data.mdb", "lock.mdb", "ops.log", "writer.lock"]


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
    assert [(f.check, f.seq) for f in report.findings] == [("content", made.seq)]

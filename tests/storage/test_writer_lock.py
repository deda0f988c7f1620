"""The writer lock holds against tampering (issue 15, item 3): with ``writer.lock`` (and LMDB's
``lock.mdb``) deleted under a running writer, a second writer process is still refused, and
should one ever get past the locks, the first writer's next append is refused rather than
chained onto a log it did not write. Real processes: flock and LMDB locks are per process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import eventmem
from tests import ROOT

SECOND_WRITER = textwrap.dedent("""
    import sys
    import eventmem
    try:
        with eventmem.open(sys.argv[1]) as mem:
            r = mem.remember("the second writer got in", namespace="b")
            print("ACK", r.memory_id, flush=True)
    except eventmem.StoreLockedError as exc:
        print("LOCKED", exc, flush=True)
""")


def second_writer(store: Path) -> str:
    """Run a second writer process on ``store``; what it printed (ACK ... or LOCKED ...)."""
    done = subprocess.run([sys.executable, "-c", SECOND_WRITER, str(store)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("deleted", [("writer.lock",), ("writer.lock", "lock.mdb")])
def test_deleting_the_lock_files_lets_no_second_writer_in(
    store_path: Path, clock: eventmem.ManualClock, deleted: tuple[str, ...]
) -> None:
    acknowledged = []
    with eventmem.open(store_path, clock=clock) as mem:
        acknowledged += [mem.remember(f"first writer note {i}", namespace="a").memory_id
                         for i in range(5)]
        for name in deleted:
            (store_path / name).unlink()
        assert second_writer(store_path).startswith("LOCKED")
        acknowledged += [mem.remember(f"first writer note after {i}", namespace="a").memory_id
                         for i in range(5)]
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.verify().ok
        assert all(mem.get(mid).text is not None for mid in acknowledged)
        assert {m.namespace for m in mem.memories()} == {"a"}  # nothing of the second


def test_the_lock_survives_a_compaction(store_path: Path, clock: eventmem.ManualClock) -> None:
    """compact() replaces data.mdb with a new file: the writer's lock moves with it."""
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember("kept through the compaction", namespace="a")
        mem.compact()
        (store_path / "writer.lock").unlink()
        assert second_writer(store_path).startswith("LOCKED")
        mem.remember("written after it", namespace="a")
    assert second_writer(store_path).startswith("ACK")  # released on close


MOVE_HEAD = textwrap.dedent("""
    import sys
    import lmdb
    from eventmem.storage.log import record_hash, seq_key
    env = lmdb.open(sys.argv[1], max_dbs=8)
    log, meta = env.open_db(b"log"), env.open_db(b"meta")
    with env.begin(write=True) as txn:
        head = txn.get(b"head", db=meta)
        seq, prev = int.from_bytes(head[:8], "big") + 1, head[8:]
        value = prev + b"\\x80"  # a record the other writer's projections never saw
        txn.put(seq_key(seq), value, db=log)
        txn.put(b"head", seq_key(seq) + record_hash(seq, value), db=meta)
    env.close()
""")


def test_an_append_never_lands_on_a_log_another_writer_moved(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """A writer that ignores every lock (raw LMDB, in another process) appends a record; the
    engine's next append finds the head moved and is refused, writing nothing."""
    with eventmem.open(store_path, clock=clock) as mem:
        r = mem.remember("written by the rightful writer", namespace="a")
        subprocess.run([sys.executable, "-c", MOVE_HEAD, str(store_path)], cwd=ROOT, check=True,
                       timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        moved = mem.store.head()
        assert moved.seq == r.seq + 1
        for write in (lambda: mem.remember("must not chain onto it", namespace="a"),
                      lambda: mem.forget(r.memory_id),
                      lambda: mem.erase(r.memory_id)):
            with pytest.raises(eventmem.StoreLockedError, match="moved under this writer"):
                write()
        assert mem.store.head() == moved  # nothing was written after it

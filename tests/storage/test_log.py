"""The log contract on real LMDB stores: gapless seqs, atomic batches, a hash chain that catches
edits and truncation, reads by seq, time and memory, a growing map (an iteration begun before the
map grew, here or in another process, carries on), owner-only files, one writer and readers in
other processes, and snapshots that are only ever a cache."""

from __future__ import annotations

import json
import os
import select
import stat
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import lmdb
import pytest

import eventmem
import eventmem.storage.log as log_module
import projections
from eventmem.clock import to_micros
from eventmem.events import (
    MemoryForgotten,
    MemoryIngested,
    MemoryPinned,
    MemoryRecalled,
    memory_ids_of,
)
from eventmem.storage import snapfiles
from eventmem.storage.content import content_key
from eventmem.storage.envelope import Content
from eventmem.storage.log import EventLog, Head, seq_key
from replay import VerifyReport, rebuild, verify
from tests import ROOT

# -- helpers ----------------------------------------------------------------------------------


def _pin(at: int, n: int) -> MemoryPinned:
    return MemoryPinned(at=at, namespace="ns", memory_id=f"mem_{n}")


def _raw_env(path: Path) -> lmdb.Environment:
    """The store's LMDB environment opened directly, bypassing eventmem (to damage it)."""
    return lmdb.open(str(path), max_dbs=8, subdir=True)


def _edit(path: Path, db: bytes, body: Callable[[lmdb.Transaction, Any], None]) -> None:
    env = _raw_env(path)
    try:
        handle = env.open_db(db, create=False)
        with env.begin(write=True) as txn:
            body(txn, handle)
    finally:
        env.close()


def _flip(data: bytes, index: int, mask: int = 0x01) -> bytes:
    out = bytearray(data)
    out[index] ^= mask
    return bytes(out)


def _populate(store: Path, clock: eventmem.ManualClock, n: int = 6,
              config: eventmem.Config | None = None) -> dict[str, Any]:
    """A store with a few memories, a recall and a pin, closed. Returns what it held."""
    with eventmem.open(store, clock=clock, config=config) as mem:
        ids = []
        for i in range(n):
            clock.advance(timedelta(minutes=1))
            ids.append(mem.remember(f"fact number {i} about the Berlin office", namespace="a")
                       .memory_id)
        mem.remember_many(["the cat is called Tom", "the dog is called Rex"], namespace="b")
        mem.recall("Berlin office", namespace="a", k=3)
        mem.pin(ids[0])
        hits = mem.as_of(seq=mem.seq).recall("cat", namespace="b")
        return {"ids": ids, "head": mem.head(), "digests": mem.verify().digests,
                "recall": [h.memory_id for h in hits]}


def _verify_store(store: Path, **kwargs: Any) -> VerifyReport:
    log = EventLog.open(store, readonly=True)
    try:
        return verify(log, **kwargs)
    finally:
        log.close()


# -- appending ---------------------------------------------------------------------------------


def test_seqs_are_gapless_across_single_and_batch_appends(store_path: Path) -> None:
    log = EventLog.open(store_path)
    try:
        assert log.head() == Head(0, log_module.GENESIS)
        assigned: list[int] = []
        n = 0
        for size in (1, 3, 1, 1, 7, 2):
            events = [_pin(1_000 + n + i, n + i) for i in range(size)]
            n += size
            seqs = log.append(events)
            assert seqs == list(range(len(assigned) + 1, len(assigned) + size + 1))
            assigned += seqs
            assert log.head().seq == assigned[-1]
        assert [seq for seq, _ in log.read()] == list(range(1, n + 1))
        assert [e.memory_id for _, e in log.read()] == [f"mem_{i}" for i in range(n)]
        assert log.stats()["events"] == n
    finally:
        log.close()
    # Seqs continue after a reopen.
    log = EventLog.open(store_path)
    try:
        assert log.append([_pin(5_000, 99)]) == [n + 1]
    finally:
        log.close()


def _snapshot_of_log(log: EventLog) -> tuple[Head, list[tuple[int, bytes]], int, int, list[int]]:
    return (log.head(), [(r.seq, r.payload) for r in log.iter_raw()], log.stats()["blobs"],
            log.stats()["vectors"], log.seqs_for_memory("mem_2"))


def test_batch_failing_mid_transaction_writes_nothing(
    store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = EventLog.open(store_path)
    try:
        log.append([_pin(1, 0), _pin(2, 1)])
        before = _snapshot_of_log(log)
        calls = {"n": 0}

        def failing(event: Any) -> tuple[str, ...]:
            calls["n"] += 1
            if calls["n"] == 3:  # the third event of the batch, after two records were put
                raise RuntimeError("boom in the middle of the batch")
            return memory_ids_of(event)

        monkeypatch.setattr(log_module, "memory_ids_of", failing)
        with pytest.raises(RuntimeError, match="boom"):
            log.append([_pin(3, 2), _pin(4, 3), _pin(5, 4), _pin(6, 5)],
                       contents={"ab" * 16: Content("text of the batch", b"\x00" * 16)})
        assert calls["n"] == 3
        monkeypatch.undo()
        assert _snapshot_of_log(log) == before
        assert log.blob("ab" * 16) is None
        # The store still takes appends, at the next seq.
        assert log.append([_pin(7, 6)]) == [3]
        assert verify(log).ok
    finally:
        log.close()


def test_batch_with_an_unencodable_event_writes_nothing(store_path: Path) -> None:
    log = EventLog.open(store_path)
    try:
        log.append([_pin(1, 0)])
        before = _snapshot_of_log(log)
        bad = MemoryPinned(at=3, namespace="ns", memory_id="\ud800")  # not UTF-8 encodable
        with pytest.raises(Exception):  # noqa: B017 - any error, as long as nothing is written
            log.append([_pin(2, 1), bad, _pin(4, 2)])
        assert _snapshot_of_log(log) == before
    finally:
        log.close()


@pytest.mark.parametrize("reason", [1.5, None, ["a"], 2**70])
def test_an_event_that_would_not_read_back_is_refused_before_any_write(
    store_path: Path, reason: Any
) -> None:
    # The one guard every event passes (eventmem.codec.encode): a value that would be stored but
    # never decode again (the forget(reason=1.5) of issue 15) is refused, appends and erasures
    # alike, and the log stays readable from its first record.
    log = EventLog.open(store_path)
    try:
        log.append([_pin(1, 0)])
        before = _snapshot_of_log(log)
        bad = MemoryForgotten(at=2, namespace="ns", memory_id="mem_0", reason=reason)
        with pytest.raises(eventmem.InvalidInputError, match="would not read back"):
            log.append([_pin(2, 1), bad])
        with pytest.raises(eventmem.InvalidInputError, match="would not read back"):
            log.erase([bad], drop_contents=())
        assert _snapshot_of_log(log) == before
        assert [seq for seq, _ in log.read()] == [1]
    finally:
        log.close()


def test_engine_batch_failing_during_append_leaves_store_and_state_unchanged(
    store_path: Path, clock: eventmem.ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember("first memory", namespace="a")
        head, digests = mem.head(), mem.verify().digests
        count = {"n": 0}  # records put into the log db

        # lmdb.Transaction is a C type: wrap the environment's begin instead.
        env = mem.store.environment.env
        real_begin = env.begin

        class FailingTxn:
            def __init__(self, txn: lmdb.Transaction) -> None:
                self._txn = txn

            def put(self, key: bytes, value: bytes, **kw: Any) -> bool:
                if kw.get("db") is mem.store._log:
                    count["n"] += 1
                    if count["n"] == 2:
                        raise lmdb.BadValsizeError("injected failure on the second record")
                return self._txn.put(key, value, **kw)

            def __getattr__(self, name: str) -> Any:
                return getattr(self._txn, name)

            def __enter__(self) -> FailingTxn:
                self._txn.__enter__()
                return self

            def __exit__(self, *exc: Any) -> Any:
                return self._txn.__exit__(*exc)

        class EnvProxy:
            def __getattr__(self, name: str) -> Any:
                return getattr(env, name)

            def begin(self, *args: Any, **kw: Any) -> Any:
                txn = real_begin(*args, **kw)
                return FailingTxn(txn) if kw.get("write") else txn

        monkeypatch.setattr(mem.store.environment, "env", EnvProxy())
        with pytest.raises(eventmem.StoreError):
            mem.remember_many(["second", "third", "fourth"], namespace="a")
        monkeypatch.undo()
        assert count["n"] == 2
        assert mem.head() == head
        assert mem.verify().ok
        assert mem.verify().digests == digests
        assert len(list(mem.memories())) == 1
        assert mem.store.stats()["blobs"] == 1
        # The same texts can be remembered afterwards: nothing of the failed batch lingers.
        assert [r.action for r in mem.remember_many(["second", "third"], namespace="a")] == [
            "created", "created"]


# -- the hash chain ----------------------------------------------------------------------------


def test_fresh_store_verifies(store_path: Path, clock: eventmem.ManualClock) -> None:
    info = _populate(store_path, clock)
    report = _verify_store(store_path)
    assert report.ok, report.findings
    assert report.events_checked == info["head"].seq
    assert report.head_seq == info["head"].seq
    assert report.blobs_checked == 9  # 8 texts and the recall's query
    with eventmem.open(store_path, clock=clock) as mem:
        report = mem.verify()
        assert report.ok, report.findings
        assert report.digests == info["digests"]


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("mask", [0x01, 0x80])
def test_flipped_byte_in_a_record_is_reported_with_its_seq(
    store_path: Path, clock: eventmem.ManualClock, where: str, mask: int
) -> None:
    info = _populate(store_path, clock)
    head = info["head"].seq
    target = {"first": 1, "middle": head // 2, "last": head}[where]

    def damage(txn: lmdb.Transaction, db: Any) -> None:
        value = txn.get(seq_key(target), db=db)
        payload_at = log_module.HASH_SIZE + (len(value) - log_module.HASH_SIZE) // 2
        txn.put(seq_key(target), _flip(value, payload_at, mask), db=db)

    _edit(store_path, b"log", damage)
    report = _verify_store(store_path)
    assert not report.ok
    assert {f.seq for f in report.findings} == {target}, report.findings


def test_flipped_byte_in_a_blob_is_reported_with_the_seq_that_references_it(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    info = _populate(store_path, clock)
    victim = info["ids"][3]
    log = EventLog.open(store_path, readonly=True)
    try:
        ingest = [(s, e) for s, e in log.read()
                  if isinstance(e, MemoryIngested) and e.memory_id == victim]
        [(ingest_seq, event)] = ingest
    finally:
        log.close()

    slot: list[bytes] = []
    _edit(store_path, b"content",
          lambda txn, db: slot.append(bytes(txn.get(content_key(event.content_hash), db=db))[:8]))

    def damage(txn: lmdb.Transaction, db: Any) -> None:
        txn.put(slot[0], _flip(txn.get(slot[0], db=db), 2, 0x02), db=db)  # still valid UTF-8

    _edit(store_path, b"blobs", damage)
    report = _verify_store(store_path)
    assert not report.ok
    assert [(f.check, f.seq) for f in report.findings] == [("blob", ingest_seq)]
    # A blob that is not even UTF-8 is reported the same way.
    _edit(store_path, b"blobs", lambda txn, db: txn.put(slot[0], b"\xff\xfe", db=db))
    assert [(f.check, f.seq) for f in _verify_store(store_path).findings] == [("blob", ingest_seq)]


def test_truncated_tail_is_caught_by_the_head(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    info = _populate(store_path, clock)
    last = info["head"].seq
    _edit(store_path, b"log", lambda txn, db: txn.delete(seq_key(last), db=db))
    report = _verify_store(store_path)
    assert not report.ok
    assert [f.check for f in report.findings] == ["head"]
    assert report.findings[0].seq == last - 1


def test_truncation_that_also_rewrites_the_head_is_caught_by_a_saved_head(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    info = _populate(store_path, clock)
    saved: Head = info["head"]
    log = EventLog.open(store_path, readonly=True)
    try:
        prev = next(log.iter_raw(saved.seq - 1, saved.seq - 1))
    finally:
        log.close()
    env = _raw_env(store_path)
    try:
        log_db, meta_db = env.open_db(b"log", create=False), env.open_db(b"meta", create=False)
        with env.begin(write=True) as txn:
            txn.delete(seq_key(saved.seq), db=log_db)
            txn.put(b"head", seq_key(prev.seq) + prev.hash, db=meta_db)
    finally:
        env.close()
    assert _verify_store(store_path).ok  # consistent on its own...
    report = _verify_store(store_path, expected_head=saved)  # ...but not with the saved head
    assert [(f.check, f.seq) for f in report.findings] == [("head", saved.seq)]


# -- reads -------------------------------------------------------------------------------------


def test_reads_by_seq_range(store_path: Path, clock: eventmem.ManualClock) -> None:
    info = _populate(store_path, clock)
    head = info["head"].seq
    log = EventLog.open(store_path, readonly=True)
    try:
        everything = list(log.read())
        assert [s for s, _ in everything] == list(range(1, head + 1))
        for start, stop in [(1, 1), (2, 5), (head, head), (head - 2, None), (3, head + 10)]:
            got = list(log.read(start, stop))
            end = head if stop is None else min(stop, head)
            assert got == everything[start - 1:end]
        assert list(log.read(head + 1)) == []
        assert list(log.read(5, 4)) == []
        assert [r.seq for r in log.iter_raw(2, 4)] == [2, 3, 4]
    finally:
        log.close()


def test_reads_by_time_range_and_seq_at_time(store_path: Path, t0: datetime) -> None:
    clock = eventmem.ManualClock(start=t0)
    with eventmem.open(store_path, clock=clock) as mem:
        for i, minutes in enumerate([0, 5, 5, 0, 30, 1, 0, 120]):
            clock.advance(timedelta(minutes=minutes))
            if i % 3 == 2:
                mem.remember_many([f"batch item {i} a", f"batch item {i} b"])  # one time, 2 seqs
            else:
                mem.remember(f"single item {i}")
        log = mem.store
        events = list(log.read())
        times = [e.at for _, e in events]
        assert times == sorted(times)
        probes = sorted({t + d for t in times for d in (-1, 0, 1)} | {0, times[-1] + 10**9})
        for at in probes:
            expected = max((s for s, e in events if e.at <= at), default=0)
            assert log.seq_at_time(at) == expected, at
        for start in probes[::3]:
            for end in probes[::4]:
                expected_seqs = [s for s, e in events if start <= e.at < end]
                assert [s for s, _ in log.read_time_range(start, end)] == expected_seqs


def test_reads_by_memory(store_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        a = mem.remember("alice likes tea", namespace="n").memory_id
        b = mem.remember("bob likes coffee", namespace="n").memory_id
        mem.remember("Alice likes  TEA", namespace="n")  # reinforces a
        mem.recall("likes", namespace="n", k=5)  # touches both
        mem.pin(b)
        mem.forget(a)
        log = mem.store
        for mid in (a, b):
            expected = [s for s, e in log.read() if mid in memory_ids_of(e)]
            assert log.seqs_for_memory(mid) == expected
            assert len(expected) >= 3
        assert log.seqs_for_memory("mem_nope") == []
        recalled = [s for s, e in log.read() if isinstance(e, MemoryRecalled)]
        assert set(recalled) <= set(log.seqs_for_memory(a)) & set(log.seqs_for_memory(b))


# -- the map, the files, the lock --------------------------------------------------------------


def test_map_grows_instead_of_failing(store_path: Path) -> None:
    small = 64 * 1024
    log = EventLog.open(store_path, map_size=small)
    try:
        chunk = "x" * 200_000
        for i in range(20):  # about 4 MB of blobs, in 20 transactions
            log.append([_pin(i, i)], contents={f"{i:032x}": Content(chunk + str(i))})
        assert log.stats()["map_size"] >= 4_000_000
        assert log.head().seq == 20
        assert log.blob(f"{7:032x}") == chunk + "7"
        # Many texts in one read: each as blob reads it, a missing one None, in the order asked.
        asked = [f"{i:032x}" for i in (3, 99, 0)]
        assert log.blobs(asked) == [log.blob(h) for h in asked] == [chunk + "3", None, chunk + "0"]
    finally:
        log.close()


@pytest.mark.slow
def test_engine_with_a_tiny_map_grows_too(store_path: Path, clock: eventmem.ManualClock) -> None:
    # Long (so the map fills fast) and unlike each other (so the gate creates every one).
    texts = [f"memory {i}: " + " ".join(f"w{i}x{j}" for j in range(700)) for i in range(120)]
    with eventmem.open(store_path, clock=clock,
                       config=eventmem.Config(map_size=64 * 1024, sync=False)) as mem:
        results = mem.remember_many(texts[:60])
        results += mem.remember_many(texts[60:])
        assert [r.action for r in results] == ["created"] * 120
        assert mem.store.stats()["map_size"] > 2_000_000
        assert mem.get(results[99].memory_id).text == texts[99]
        assert mem.verify().ok


def test_store_is_owner_only(store_path: Path, clock: eventmem.ManualClock) -> None:
    old = os.umask(0o002)  # a permissive umask must not leak into the store
    try:
        with eventmem.open(store_path, clock=clock) as mem:
            mem.remember("a secret")
    finally:
        os.umask(old)
    assert stat.S_IMODE(store_path.stat().st_mode) == 0o700
    files = list(store_path.rglob("*"))
    assert {"data.mdb", "lock.mdb"} <= {f.name for f in files}
    assert any(f.parent.name == "snapshots" for f in files)  # the close wrote one
    for f in files:
        assert stat.S_IMODE(f.stat().st_mode) == (0o700 if f.is_dir() else 0o600), f


def test_existing_directory_is_made_owner_only(store_path: Path) -> None:
    store_path.mkdir(mode=0o755)
    os.chmod(store_path, 0o755)
    EventLog.open(store_path).close()
    assert stat.S_IMODE(store_path.stat().st_mode) == 0o700


def test_second_writer_is_refused(store_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember("held by the first writer")
        with pytest.raises(eventmem.StoreLockedError, match="readonly=True"):
            eventmem.open(store_path, clock=clock)
        # ...also from another process.
        out = _run_child(
            "import sys, eventmem\n"
            "try:\n"
            "    eventmem.open(sys.argv[1])\n"
            "except eventmem.StoreLockedError:\n"
            "    print('locked')\n",
            store_path,
        )
        assert out.strip() == "locked"
        mem.remember("the first writer still writes")
    # Once closed, the next writer gets in.
    with eventmem.open(store_path, clock=clock) as mem:
        assert len(list(mem.memories())) == 2


# -- other processes read while one writes -----------------------------------------------------


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _run_child(code: str, store: Path) -> str:
    done = subprocess.run([sys.executable, "-c", code, str(store)], capture_output=True,
                          text=True, timeout=60, env=_child_env(), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


# A reader process: answers each command line on stdin with what it sees now (no waiting: a
# returned write is committed, so the reader must see it at once).
_READER = r"""
import json, sys
import eventmem
mem = eventmem.open(sys.argv[1], readonly=True)

def report():
    ids = [m.memory_id for m in mem.memories()]
    hits = [h.memory_id for h in mem.recall("office in Berlin", namespace="a", k=5)]
    texts = {i: mem.get(i).text for i in ids}
    v = mem.verify()
    return {"seq": mem.seq, "head": mem.store.head().seq, "ids": ids, "hits": hits,
            "texts": texts, "ok": v.ok, "digests": v.digests, "opened_from": mem.opened_from}

print(json.dumps(report()), flush=True)
for line in sys.stdin:
    if line.strip() == "quit":
        break
    print(json.dumps(report()), flush=True)
mem.close()
"""


def _ask(proc: subprocess.Popen[str], line: str | None = None) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    if line is not None:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    assert ready, "reader process did not answer"
    answer = proc.stdout.readline()
    assert answer, f"reader process died: {proc.stderr.read() if proc.stderr else ''}"
    return json.loads(answer)  # type: ignore[no-any-return]


def _writer_view(mem: eventmem.Engine) -> dict[str, Any]:
    ids = [m.memory_id for m in mem.memories()]
    view = mem.as_of(seq=mem.seq)  # same answers as mem.recall, without appending
    return {"seq": mem.seq, "ids": ids,
            "hits": [h.memory_id for h in view.recall("office in Berlin", namespace="a", k=5)],
            "texts": {i: mem.get(i).text for i in ids}, "digests": mem.verify().digests}


@pytest.mark.slow
def test_reader_process_follows_a_live_writer(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    # A small map, so the writer grows it while the reader has it mapped.
    config = eventmem.Config(map_size=64 * 1024, sync=False)
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        mem.remember("the office in Berlin opened in 2019", namespace="a")
        proc = subprocess.Popen([sys.executable, "-c", _READER, str(store_path)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=_child_env(), cwd=ROOT)
        try:
            first = _ask(proc)
            assert first["seq"] == mem.seq
            assert first["ids"] == _writer_view(mem)["ids"]

            for round_ in range(3):
                clock.advance(timedelta(hours=1))
                mem.remember_many(
                    [f"round {round_} note {i}: the office in Berlin " + "pad " * 2000
                     for i in range(15)], namespace="a")
                mem.remember(f"round {round_}: a note in namespace b", namespace="b")
                mem.recall("Berlin", namespace="a", k=2)
                seen = _ask(proc, "report")
                mine = _writer_view(mem)
                assert seen["head"] == seen["seq"] == mine["seq"]
                for key in ("ids", "hits", "texts", "digests"):
                    assert seen[key] == mine[key], key
                assert seen["ok"]
            assert mem.store.stats()["map_size"] > 64 * 1024  # it did grow under the reader
            # The reader's recalls appended nothing.
            assert mem.head().seq == mine["seq"]

            # A process started now, while the writer is still open, sees the same.
            answer_once = _READER.replace("for line in sys.stdin:", "for line in []:")
            late = json.loads(_run_child(answer_once, store_path))
            for key in ("seq", "ids", "hits", "texts", "digests"):
                assert late[key] == mine[key], key
            assert late["ok"]
        finally:
            if proc.poll() is None:
                proc.stdin.write("quit\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
                proc.wait(timeout=30)
        assert proc.returncode == 0, proc.stderr.read()  # type: ignore[union-attr]


def test_readonly_open_of_a_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(eventmem.StoreError, match="no store"):
        eventmem.open(tmp_path / "nothing-here", readonly=True)
    assert not (tmp_path / "nothing-here").exists()


# -- snapshots are a cache ---------------------------------------------------------------------


def _open_state(store: Path, clock: eventmem.ManualClock) -> tuple[str, dict[str, str], list[str]]:
    with eventmem.open(store, clock=clock) as mem:
        report = mem.verify()
        assert report.ok, report.findings
        hits = [h.memory_id for h in mem.as_of(seq=mem.seq).recall("cat", namespace="b")]
        return mem.opened_from, report.digests, hits


def test_reopen_uses_the_snapshot(store_path: Path, clock: eventmem.ManualClock) -> None:
    info = _populate(store_path, clock)
    origin, digests, hits = _open_state(store_path, clock)
    assert origin.startswith("snapshot"), origin
    assert origin == f"snapshot@{info['head'].seq}+0"
    assert (digests, hits) == (info["digests"], info["recall"])


def _rewrite_snapshot(store: Path, change: Callable[[bytes], bytes]) -> None:
    """Change the bytes of every snapshot file (the table names them)."""
    files = sorted((store / snapfiles.DIRECTORY).iterdir())
    assert files, "the store should hold a snapshot"
    for f in files:
        f.write_bytes(change(f.read_bytes()))


def _find(data: bytes, needle: bytes) -> int:
    at = data.find(needle)
    assert at >= 0
    return at


def _sections(data: bytes) -> dict[str, tuple[int, int]]:
    """Where each column of a snapshot file lies: name -> (start, length)."""
    import msgspec

    body_at = 10 + 16  # magic and version, then the checksum of the head
    size = int.from_bytes(data[body_at : body_at + 8], "big")
    head = msgspec.msgpack.decode(data[body_at + 8 : body_at + 8 + size])
    start = body_at + 8 + size + (-(body_at + 8 + size) % 16)
    return {name: (start + at, length) for name, at, length, _ in head["sections"]}


def _vector_rows_at(data: bytes) -> int:
    return _sections(data)["vectors"][0]


def _columns_end(data: bytes) -> int:
    """Where the last column before the vector rows ends (the padding after it is read by
    nothing)."""
    return max(at + length for name, (at, length) in _sections(data).items()
               if name != "vectors" and length)


def _edit_payload(data: bytes) -> bytes:
    """A snapshot whose columns still decode, with one memory's interval moved by a
    microsecond and the old checksums kept: only the checksum can tell. (An interval, not a
    record: the records are deflated, and an edited one packs to another length.)"""
    import msgspec

    sections = _sections(data)
    values_at, _ = sections["intervals.values"]
    offsets_at, _ = sections["intervals.value_at"]
    end = values_at + int.from_bytes(data[offsets_at + 4 : offsets_at + 8], "little")
    first = msgspec.msgpack.decode(data[values_at:end])
    first[2] += 1  # recorded_at (array-like), a uint64 of the same length
    edited = msgspec.msgpack.encode(first)
    assert len(edited) == end - values_at
    return data[:values_at] + edited + data[end:]


CORRUPTIONS: dict[str, Callable[[bytes], bytes]] = {
    "garbage": lambda data: b"\x00not a snapshot\xff",
    "empty": lambda data: b"",
    "truncated": lambda data: data[: len(data) // 2],
    # In the head and columns an open reads, before the float32 rows.
    "flipped_middle": lambda data: _flip(data, _vector_rows_at(data) // 2, 0x10),
    "flipped_last": lambda data: _flip(data, _columns_end(data) - 1, 0x01),
    "flipped_id": lambda data: _flip(data, _find(data, b"mem_") + 5, 0x01),
    "edited_valid_payload": lambda data: _edit_payload(data),
}


def test_a_snapshot_names_its_vector_rows_and_an_open_reads_them_from_the_store(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """The store's vector table holds every row already: with Config.snapshot_rows False a
    snapshot keeps each row's content key, not a second copy of its float32 bytes, and a store
    opened from it answers as before."""
    info = _populate(store_path, clock, config=eventmem.Config(snapshot_rows=False))
    data = sorted((store_path / snapfiles.DIRECTORY).iterdir())[-1].read_bytes()
    sections = _sections(data)
    assert sections["vectors"][1] == 0  # no cold rows, so no row bytes at all
    assert sections["vectors.keys"][1] == 16 * 8  # one content key per row
    origin, digests, hits = _open_state(store_path, clock)
    assert origin == f"snapshot@{info['head'].seq}+0"
    assert (digests, hits) == (info["digests"], info["recall"])


def test_a_snapshot_naming_a_row_the_store_lacks_means_a_rebuild(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """A row the snapshot names but the vector table no longer holds (as after a purge the
    snapshot predates) is never made up: the open rebuilds, folding what the log and the
    store hold."""
    _populate(store_path, clock, config=eventmem.Config(snapshot_rows=False))

    def drop_first(txn: lmdb.Transaction, db: Any) -> None:
        key = next(iter(txn.cursor(db=db)))[0]
        txn.delete(bytes(key), db=db)

    _edit(store_path, b"vectors", drop_first)
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.opened_from.startswith("rebuild"), mem.opened_from
        assert mem._views.digests() == rebuild(mem.store).digests()
        assert sum(s.count for s in mem._views.vectors.spaces.values()) == 7


def test_a_snapshot_entry_naming_no_file_means_a_rebuild(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    info = _populate(store_path, clock)

    def rename(txn: lmdb.Transaction, db: Any) -> None:
        for key, value in [(bytes(k), bytes(v)) for k, v in txn.cursor(db=db)]:
            txn.put(key, value[:-3] + b"xyz", db=db)

    _edit(store_path, b"snapshots", rename)
    origin, digests, hits = _open_state(store_path, clock)
    assert origin.startswith("rebuild"), origin
    assert (digests, hits) == (info["digests"], info["recall"])


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_unusable_snapshot_means_a_rebuild_with_identical_state(
    store_path: Path, clock: eventmem.ManualClock, corruption: str
) -> None:
    info = _populate(store_path, clock)
    _rewrite_snapshot(store_path, CORRUPTIONS[corruption])
    origin, digests, hits = _open_state(store_path, clock)
    assert origin.startswith("rebuild"), origin
    assert (digests, hits) == (info["digests"], info["recall"])
    # Closing wrote a good snapshot again, which the next open uses.
    origin, digests, _ = _open_state(store_path, clock)
    assert origin.startswith("snapshot"), origin
    assert digests == info["digests"]


def test_snapshot_key_that_disagrees_with_its_content_is_ignored(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    info = _populate(store_path, clock)

    def move(txn: lmdb.Transaction, db: Any) -> None:
        key, value = next(iter(txn.cursor(db=db)))
        key = bytes(key)
        txn.delete(key, db=db)
        txn.put(seq_key(int.from_bytes(key, "big") - 1), bytes(value), db=db)

    _edit(store_path, b"snapshots", move)
    origin, digests, hits = _open_state(store_path, clock)
    assert origin.startswith("rebuild"), origin
    assert (digests, hits) == (info["digests"], info["recall"])


def test_snapshot_of_an_older_projection_version_is_ignored(
    store_path: Path, clock: eventmem.ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _populate(store_path, clock)  # its snapshot has the current version
    monkeypatch.setattr(projections, "PROJECTION_VERSION", projections.PROJECTION_VERSION + 1)
    origin, digests, hits = _open_state(store_path, clock)
    assert origin.startswith("rebuild"), origin
    assert (digests, hits) == (info["digests"], info["recall"])


def test_snapshot_of_a_newer_projection_version_is_ignored(
    store_path: Path, clock: eventmem.ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:  # written by a later release of eventmem
        patch.setattr(projections, "PROJECTION_VERSION", projections.PROJECTION_VERSION + 1)
        info = _populate(store_path, clock)
    log = EventLog.open(store_path, readonly=True)
    try:
        assert log.snapshot_seqs() == [info["head"].seq]
    finally:
        log.close()
    origin, digests, hits = _open_state(store_path, clock)
    assert origin.startswith("rebuild"), origin
    assert (digests, hits) == (info["digests"], info["recall"])


def test_snapshot_plus_tail_equals_a_rebuild(store_path: Path, clock: eventmem.ManualClock) -> None:
    _populate(store_path, clock)
    with eventmem.open(store_path, clock=clock,
                       config=eventmem.Config(snapshot_every=10**9)) as mem:
        mem.remember("written after the snapshot", namespace="a")
        mem.snapshot()
        mem.remember("and one more after that", namespace="b")
        head = mem.head().seq
        crashed_digests = mem.verify().digests
        # Simulate a crash: close the log without the closing snapshot.
        mem._closed = True
        mem.store.close()
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.opened_from == f"snapshot@{head - 1}+1"
        assert mem.verify().digests == crashed_digests
        assert rebuild(mem.store).digests() == crashed_digests


def test_clean_close_after_a_crash_snapshots_the_replayed_tail(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    config = eventmem.Config(snapshot_every=3)
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        mem.remember_many(["one", "two"])  # seq 3: an automatic snapshot
        mem.remember("three")  # seq 4: only in the log
        head = mem.head()
        mem._closed = True  # crash: no closing snapshot
        mem.store.close()
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        assert mem.opened_from == "snapshot@3+1"
    # The clean close above snapshotted what the open replayed, so nothing is replayed now.
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        assert mem.opened_from == f"snapshot@{head.seq}+0"
        assert mem.head() == head


def test_only_the_newest_snapshot_is_kept_by_default_and_an_older_as_of_still_answers(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    # Each snapshot holds every vector row again: a second one was 29% of a compacted store.
    config = eventmem.Config(snapshot_every=10**9)
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        mem.remember_many([f"note {i} about the Lisbon trip" for i in range(4)], namespace="a")
        first = mem.snapshot()
        mem.remember("the flight moved to Friday", namespace="a")
        past = mem.as_of(seq=first)
        expected = [h.memory_id for h in past.recall("Lisbon trip", namespace="a", k=3)]
        second = mem.snapshot()
        assert mem.store.snapshot_seqs() == [second]
        # A view before the only snapshot folds the log from the start, to the same answer.
        again = mem.as_of(seq=first)
        assert again.seq == first
        assert [h.memory_id for h in again.recall("Lisbon trip", namespace="a", k=3)] == expected
        assert mem.verify().ok
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        assert mem.opened_from == f"snapshot@{second}+0"


def test_snapshots_kept_is_configurable_and_at_least_one(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    config = eventmem.Config(snapshot_every=10**9, snapshots_kept=2)
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        seqs = []
        for i in range(3):
            mem.remember(f"fact {i}", namespace="a")
            seqs.append(mem.snapshot())
        assert mem.store.snapshot_seqs() == seqs[-2:]
        with pytest.raises(ValueError, match="at least one"):
            mem.store.put_snapshot(mem.seq, b"x", keep=0)
        assert mem.store.snapshot_seqs() == seqs[-2:]  # refused before anything was written
    with pytest.raises(eventmem.InvalidInputError, match="snapshots_kept"):
        eventmem.Config(snapshots_kept=0)
    # A store written keeping two: compact() keeps what this engine's config says.
    with eventmem.open(store_path, clock=clock) as mem:
        mem.compact()
        assert mem.store.snapshot_seqs() == seqs[-1:]
        assert mem.verify().ok
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.opened_from == f"snapshot@{seqs[-1]}+0"


def test_compact_drops_the_pages_of_replaced_snapshots(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    config = eventmem.Config(snapshot_every=10**9)
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        mem.remember_many([f"memory {i} of a store snapshotted often" for i in range(300)],
                          namespace="a")
        for i in range(5):  # each replaces the one before: its pages are freed, not returned
            mem.remember(f"and one more, {i}", namespace="a")
            mem.snapshot()
        snapshot_bytes = len(mem.store.latest_snapshot().data)
        before, after = mem.compact()
        digests = mem.verify().digests
    assert after < before
    env = _raw_env(store_path)
    try:
        with env.begin() as txn:
            live = sum(txn.stat(env.open_db(bytes(name), txn=txn, create=False))[field]
                       for name, _ in list(txn.cursor())
                       for field in ("branch_pages", "leaf_pages", "overflow_pages"))
        psize, last = env.stat()["psize"], env.info()["last_pgno"]
    finally:
        env.close()
    # Only the live tables (one snapshot among them), the two meta pages, the table of names
    # and the free list's own page or two are left: no freed snapshot pages.
    assert (last + 1 - live) * psize <= 8 * psize < snapshot_bytes
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        assert mem.opened_from.startswith("snapshot")
        assert mem.verify().digests == digests


def test_times_in_the_log_are_monotone_even_if_the_clock_goes_back(
    store_path: Path, clock: eventmem.ManualClock, t0: datetime
) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        clock.advance(timedelta(days=2))
        mem.remember("later")
        clock.set(t0)
        mem.remember("clock went back")
        times = [e.at for _, e in mem.store.read()]
        assert times == sorted(times)
        assert times[-1] == to_micros(t0 + timedelta(days=2))


@pytest.mark.parametrize("picked", [range(0, 60), range(10, 20), [0, 59], [3, 30, 31, 58]])
def test_envelopes_join_each_event_with_its_own_content(store_path: Path, picked: Any) -> None:
    """Contiguous slots are read by a cursor scan, sparse ones key by key: both must hand every
    ingest exactly its own vector and terms."""
    log = EventLog.open(store_path)
    try:
        hashes = [f"{i:032x}" for i in range(60)]
        contents = {h: Content(f"text {i}", bytes([i]) * 16, bytes([i, 0, 0, 0]))
                    for i, h in enumerate(hashes)}
        log.append([_pin(0, 0)], contents=contents)  # slots 1..60 in this order
        events = [MemoryIngested(at=1, namespace="a", memory_id=f"m{i}", content_hash=hashes[i],
                                 dedup_key="k", kind="event") for i in picked]
        first = log.append(events)[0]
        joined = list(log.envelopes(first))
        assert [env.event.memory_id for env in joined] == [f"m{i}" for i in picked]
        for env, i in zip(joined, picked, strict=True):
            assert env.vector == bytes([i]) * 16 and env.terms == bytes([i, 0, 0, 0])
            assert env.text is None  # not asked for, and the cached terms make it unneeded
        assert [env.text for env in log.envelopes(first, with_text=True)] == [
            f"text {i}" for i in picked]
    finally:
        log.close()


def test_a_store_older_than_the_extractions_table_opens_read_only(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        mid = mem.remember("Alice works at Acme").memory_id
    env = lmdb.open(str(store_path), max_dbs=32, subdir=True)
    with env.begin(write=True) as txn:  # as a store written before the table existed
        txn.drop(env.open_db(b"extractions", txn=txn), delete=True)
    env.close()
    with eventmem.open(store_path, clock=clock, readonly=True) as old:
        assert old.get(mid).text == "Alice works at Acme"
        assert [h.memory_id for h in old.recall("where does Alice work")] == [mid]


SMALL_MAP = eventmem.Config(map_size=64 * 1024, sync=False)


def _big_batches(mem: eventmem.Engine, rounds: int, tag: str) -> None:
    """Enough text to double a small map several times."""
    for r in range(rounds):
        mem.remember_many([f"{tag} round {r} note {i} "
                           + " ".join(f"w{r}x{i}y{j}" for j in range(800)) for i in range(20)],
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
        mem.remember_many([f"other round {r} note {i} "
                           + " ".join(f"o{r}x{i}y{j}" for j in range(800)) for i in range(20)],
                          namespace="a")
    print(mem.seq)
"""


@pytest.mark.slow
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
        head = int(_run_child(_GROW, store_path))
        # Catching up remaps the grown file in this process...
        assert ro.refresh() == head and ro.store.stats()["map_size"] > mapped
        # ...and the iterations begun before it carry on over the records they promised.
        assert [first[0], *(seq for seq, _ in events)] == list(range(1, end + 1))
        assert [first_env.seq, *(env.seq for env in envelopes)] == list(range(1, end + 1))
        assert ro.verify().ok


# -- damaged records that still decode: an eventmem error, never a raw one -----------------------


def _store_with_a_tail(store: Path, clock: eventmem.ManualClock, *tail: Any) -> int:
    """A store with one memory, then ``tail`` appended straight to the log (valid chain, bad
    content: what a damaged record that still decodes looks like) and no snapshot, so an open
    folds the tail. Returns the tail's first seq."""
    with eventmem.open(store, clock=clock) as mem:
        mem.remember("Alice lives in Berlin", namespace="alice")
    log = EventLog.open(store)
    try:
        first = log.append(list(tail))[0]
        _drop_snapshots(log)
    finally:
        log.close()
    return first


def _drop_snapshots(log: EventLog) -> None:
    env = log.environment.env
    snapshots = env.open_db(b"snapshots", create=False)
    with env.begin(write=True) as txn:
        txn.drop(snapshots, delete=False)


@pytest.mark.parametrize("readonly", [False, True])
def test_an_event_for_a_memory_never_ingested_is_a_corrupt_record_at_open(
    store_path: Path, clock: eventmem.ManualClock, readonly: bool
) -> None:
    seq = _store_with_a_tail(store_path, clock,
                             MemoryPinned(at=to_micros(clock.now()), namespace="alice",
                                          memory_id="mem_never_was"))
    with pytest.raises(eventmem.CorruptRecordError, match="does not fit") as caught:
        eventmem.open(store_path, clock=clock, readonly=readonly)
    assert caught.value.seq == seq


def test_a_content_hash_that_is_not_hex_is_a_corrupt_record(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    seq = _store_with_a_tail(store_path, clock, MemoryIngested(
        at=to_micros(clock.now()), namespace="alice", memory_id="mem_bad_hash",
        content_hash="zz" * 16, dedup_key="x", kind="event"))
    with pytest.raises(eventmem.CorruptRecordError, match="not hex") as caught:
        eventmem.open(store_path, clock=clock)
    assert caught.value.seq == seq


def test_a_stored_time_outside_the_years_is_a_corrupt_record(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        mid = mem.remember("Alice lives in Berlin", namespace="alice").memory_id
    log = EventLog.open(store_path)
    try:
        log.append([MemoryPinned(at=2**62, namespace="alice", memory_id=mid)])
    finally:
        log.close()
    with eventmem.open(store_path, clock=clock) as mem:
        for read in (lambda: mem.history(mid), mem.now):
            with pytest.raises(eventmem.CorruptRecordError, match="outside the years"):
                read()


def test_a_record_the_index_names_but_the_log_lost_is_a_corrupt_record(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        result = mem.remember("Alice lives in Berlin", namespace="alice")
        mem.remember("Bob likes tea", namespace="bob")
    _edit(store_path, b"log", lambda txn, db: txn.delete(seq_key(result.seq), db=db))
    with eventmem.open(store_path, clock=clock) as mem:  # from the snapshot: no fold of the gap
        with pytest.raises(eventmem.CorruptRecordError, match="record missing") as caught:
            mem.history(result.memory_id)
        assert caught.value.seq == result.seq


def _stored_snapshots(store: Path) -> list[tuple[bytes, bytes]]:
    env = _raw_env(store)
    try:
        with env.begin() as txn:
            return [(bytes(k), bytes(v))
                    for k, v in txn.cursor(db=env.open_db(b"snapshots", txn=txn, create=False))]
    finally:
        env.close()


def test_another_stores_snapshot_at_the_same_seq_is_not_used(
    tmp_path: Path, clock: eventmem.ManualClock
) -> None:
    """Issue 15, item 5: store B's snapshot copied into store A at the same seq (same number of
    events, other texts) names B's chain hash, not A's: A rebuilds, says so in its ops log, and
    answers from its own log; the closing snapshot is A's own again."""
    a, b = tmp_path / "a", tmp_path / "b"
    # Two snapshots kept: the one the view of the past starts from, and the closing one.
    config = eventmem.Config(snapshots_kept=2)
    for store, animal in ((a, "cat"), (b, "dog")):
        with eventmem.open(store, clock=eventmem.ManualClock(start=clock.now()),
                           config=config) as mem:
            for i in range(5):
                mem.remember(f"the {animal} number {i} sleeps on the sofa", namespace="n")
    foreign = _stored_snapshots(b)
    assert [k for k, _ in foreign] == [k for k, _ in _stored_snapshots(a)]  # the same seq

    def replace(txn: lmdb.Transaction, db: Any) -> None:
        for key, value in foreign:
            txn.put(key, value, db=db)

    _edit(a, b"snapshots", replace)
    with eventmem.open(a, clock=clock) as mem:
        assert mem.opened_from.startswith("rebuild"), mem.opened_from
        hits = mem.recall("which cat sleeps on the sofa", namespace="n", k=5)
        assert hits and all(h.text is not None and "cat" in h.text for h in hits)
        assert mem.verify().ok
    ops = (a / "ops.log").read_text()
    assert "snapshot_rejected" in ops and "another log" in ops
    with eventmem.open(a, clock=clock) as mem:  # the closing snapshot was A's own
        assert mem.opened_from.startswith("snapshot"), mem.opened_from


def test_as_of_views_skip_a_foreign_snapshot(tmp_path: Path, clock: eventmem.ManualClock) -> None:
    """A view of the past starts from a snapshot only if it is tied to this log, too."""
    a, b = tmp_path / "a", tmp_path / "b"
    # Two snapshots kept: the one the view of the past starts from, and the closing one.
    config = eventmem.Config(snapshots_kept=2)
    for store, animal in ((a, "cat"), (b, "dog")):
        with eventmem.open(store, clock=eventmem.ManualClock(start=clock.now()),
                           config=config) as mem:
            for i in range(4):
                mem.remember(f"the {animal} number {i} sleeps on the sofa", namespace="n")
            mem.snapshot()
            mem.remember(f"one more {animal}", namespace="n")
            seq = mem.seq - 1
    foreign = dict(_stored_snapshots(b))

    def replace(txn: lmdb.Transaction, db: Any) -> None:
        txn.put(seq_key(seq), foreign[seq_key(seq)], db=db)

    _edit(a, b"snapshots", replace)
    with eventmem.open(a, clock=clock) as mem:
        texts = [m.text for m in mem.as_of(seq=seq).memories()]
        assert texts and all(t is not None and "cat" in t for t in texts)

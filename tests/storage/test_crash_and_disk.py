"""Crashes and full disks on real stores: a writer process killed with SIGKILL at many points
(between calls, inside an uncommitted batch, inside a snapshot write, in the middle of a
compaction's copy) and a store on a tmpfs that runs out of space (when writing, creating the
store, compacting). After each, the store must reopen (the writer lock is free again), verify
(chain, blobs, projections == rebuild), hold every call that returned and no part of one that did
not, and keep taking writes; a full disk is a clear StorageFullError, never a dead process."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import eventmem
from eventmem.events import (
    MemoriesStrengthened,
    MemoryForgotten,
    MemoryIngested,
    MemoryRecalled,
)
from eventmem.storage.environment import COMPACT_TMP
from eventmem.storage.log import EventLog
from projections import Projections
from replay import rebuild
from tests import ROOT
from tests.disk import fill_disk, small_tmpfs

pytestmark = pytest.mark.slow  # writer processes killed over and over, disks filled

BATCH = 7  # memories per remember_many call of the writer process

WAIT = 30.0  # seconds: the longest any marker, kill or child run may take


# -- processes ---------------------------------------------------------------------------------


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _run_child(code: str, *args: object) -> str:
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, timeout=WAIT * 2, env=_child_env(), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


# The writer: remembers batches, single texts, recalls and forgets in a loop, printing
# "call <kind> <name>" before each call and "done <seq> <kind> <name> [...]" after it returned.
# Test hooks (in this process only, the engine is untouched): "snapshot <seq>" is printed when a
# snapshot write starts, and a write transaction can be held open ("holding ...") until the
# parent kills the process inside it.
_WRITER = r"""
import hashlib, sys, time
import eventmem
from eventmem.storage.environment import Environment
from eventmem.storage.log import EventLog

store, tag, mode, arm_after, batch, snapshot_every = sys.argv[1:7]
arm_after, batch, snapshot_every = int(arm_after), int(batch), int(snapshot_every)
returned = 0
hold = []  # what the next write transaction is: held open (uncommitted) until the kill


def say(*parts):
    print(*parts, flush=True)


def words(*key):
    # Distinct made-up words per text, so no gate sees two texts of the run as near duplicates.
    digest = hashlib.sha256(repr(key).encode()).hexdigest()
    return " ".join("q" + digest[i:i + 6] for i in range(0, 60, 6))


real_write = Environment.write


def write(self, body):
    if not hold:
        return real_write(self, body)
    what = hold.pop()

    def held(txn):
        result = body(txn)
        say("holding", what)
        time.sleep(600)  # SIGKILL lands here, inside the open write transaction
        return result

    return real_write(self, held)


real_put_snapshot = EventLog.put_snapshot
snapshot_held = False


def put_snapshot(self, seq, data, **kw):
    global snapshot_held
    if mode == "hold-snapshot" and returned >= arm_after and not snapshot_held:
        snapshot_held = True
        hold.append(f"snapshot {seq}")
    say("snapshot", seq)
    return real_put_snapshot(self, seq, data, **kw)


real_read_txn = Environment.read_txn
hold_read = []


def read_txn(self):
    txn = real_read_txn(self)
    if hold_read:
        hold_read.pop()
        say("holding read")
        time.sleep(600)  # SIGKILL lands here, with the LMDB read transaction open
    return txn


Environment.write = write
EventLog.put_snapshot = put_snapshot
Environment.read_txn = read_txn

mem = eventmem.open(store, config=eventmem.Config(snapshot_every=snapshot_every))
say("open", mem.seq, mem.opened_from)
singles = []
for i in range(10_000):
    name = f"{tag}-{i}"
    if mode == "hold-batch" and returned >= arm_after:
        hold.append(f"batch {name}")
        mode = "free"
    if mode == "hold-read" and returned >= arm_after:
        hold_read.append(name)
        mode = "free"
    say("call batch", name)
    results = mem.remember_many(
        [f"crash batch {name} item {j}: {words(name, j)}" for j in range(batch)],
        namespace="crash")
    returned += 1
    say("done", results[-1].seq, "batch", name, results[0].seq,
        ",".join(r.action for r in results))

    say("call single", name)
    r = mem.remember(f"crash single {name}: {words(name, 'single')}", namespace="crash")
    returned += 1
    say("done", r.seq, "single", name, r.memory_id, r.action)

    say("call recall", name)
    mem.recall(f"crash batch {name} item 3", namespace="crash", k=3)
    returned += 1
    say("done", mem.seq, "recall", name)

    singles.append(r.memory_id)
    if i % 2 == 1:
        victim = singles.pop(0)
        say("call forget", name)
        seq = mem.forget(victim)
        returned += 1
        say("done", seq, "forget", name, victim)
"""


class Writer:
    """A writer process and everything it printed, read without blocking past a deadline."""

    def __init__(self, store: Path, tag: str, *, mode: str = "free", arm_after: int = 0,
                 snapshot_every: int = 4, stderr: Path) -> None:
        self._stderr_path = stderr
        self._stderr = stderr.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(store), tag, mode, str(arm_after), str(BATCH),
             str(snapshot_every)],
            stdout=subprocess.PIPE, stderr=self._stderr, env=_child_env(), cwd=ROOT, bufsize=0)
        self.lines: list[str] = []
        self._partial = b""

    def _read(self, timeout: float) -> bool:
        """Read what is there (waiting up to ``timeout``); False at end of output."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return True
        chunk = os.read(fd, 65536)
        if not chunk:
            return False
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        self.lines += [line.decode() for line in complete]
        return True

    def wait_for(self, predicate: Any) -> str:
        """Read until a line satisfies ``predicate``; return that line."""
        deadline = time.monotonic() + WAIT
        seen = 0
        while True:
            for line in self.lines[seen:]:
                if predicate(line):
                    return line
            seen = len(self.lines)
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 1.0)):  # out of time, or the writer died
                self.kill(expect_sigkill=False)
                raise AssertionError(f"writer gave no such line; it printed {self.lines[-5:]}, "
                                     f"stderr: {self._stderr_path.read_text()[-2000:]}")

    def wait_returned(self, n: int) -> str:
        """Wait until the writer reported ``n`` returned calls (in this run)."""
        count = 0

        def nth_done(line: str) -> bool:
            nonlocal count
            count += line.startswith("done ")
            return count >= n

        return self.wait_for(nth_done)

    def close(self) -> None:
        self._stderr.close()
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def kill(self, *, expect_sigkill: bool = True) -> None:
        """SIGKILL the writer, reap it, and collect everything it printed before it died."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=WAIT)
        while self._read(WAIT):
            pass
        self.close()
        assert not expect_sigkill or self.proc.returncode == -signal.SIGKILL, (
            self.proc.returncode, self._stderr_path.read_text()[-2000:])


@pytest.fixture
def writers() -> Iterator[list[Writer]]:
    """Every writer a test starts; any still running at the end is killed."""
    started: list[Writer] = []
    yield started
    for writer in started:
        if writer.proc.poll() is None:
            writer.proc.kill()
            writer.proc.wait(timeout=WAIT)
        writer.close()


# -- what must hold after a kill ---------------------------------------------------------------

# A fresh process must get the writer lock (the kernel dropped the dead writer's flock) and write;
# LMDB's own writer mutex must be recovered too, or this would hang (hence a process, with a
# timeout, before the test opens the store itself).
_REOPEN_AND_WRITE = r"""
import json, sys
import eventmem
from projections import Projections
from replay import rebuild

with eventmem.open(sys.argv[1]) as mem:
    head, origin = mem.head().seq, mem.opened_from
    snapshots = mem.store.snapshot_seqs()
    for seq in snapshots:  # as the killed writer left them: whole, or not there
        views = Projections.from_bytes(mem.store.latest_snapshot(seq)[1], mem.store.vector_rows)
        assert views is not None, f"snapshot at {seq} is torn"
        assert views.seq == seq and views.digests() == rebuild(mem.store, until=seq).digests()
    r = mem.remember(f"written by the next writer after kill {sys.argv[2]}", namespace="after")
    print(json.dumps({"head": head, "origin": origin, "snapshots": snapshots, "seq": r.seq,
                      "action": r.action}))
"""


def _batch_name(text: str | None) -> str | None:
    if text is None or not text.startswith("crash batch "):
        return None
    return text.split()[2]


def _check_snapshots(log: EventLog) -> None:
    """Every stored snapshot is whole: it loads, and equals a rebuild to its seq."""
    for seq in log.snapshot_seqs():
        found = log.latest_snapshot(seq)
        assert found is not None and found[0] == seq
        views = Projections.from_bytes(found[1], log.vector_rows)
        assert views is not None, f"snapshot at {seq} is torn"
        assert views.seq == seq
        assert views.digests() == rebuild(log, until=seq).digests(), seq


def _check_after_kill(store: Path, runs: list[Writer], kill_no: int) -> dict[str, Any]:
    """Everything the crash guarantees, over every run so far. Returns facts for more checks."""
    after = json.loads(_run_child(_REOPEN_AND_WRITE, store, kill_no))
    assert after["action"] == "created" and after["seq"] == after["head"] + 1
    head = after["head"]  # as the killed writer left it

    last = runs[-1].lines
    done = [line.split() for run in runs for line in run.lines if line.startswith("done ")]
    opened = [int(line.split()[1]) for line in last if line.startswith("open ")]
    assert opened, "the writer was killed before it opened the store"
    last_done = max([int(line.split()[1]) for line in last if line.startswith("done ")]
                    or opened)
    steps = [line.split() for line in last if line.startswith(("call ", "done "))]
    in_flight_kind, in_flight = (steps[-1][1:3] if steps and steps[-1][0] == "call"
                                 else (None, None))

    with eventmem.open(store) as mem:  # writable: the lock is free in this process too
        report = mem.verify()
        assert report.ok, report.findings
        assert mem.head().seq == after["seq"]
        assert report.events_checked == report.head_seq == after["seq"] == mem.seq
        assert mem.store.stats()["events"] == after["seq"]
        events = dict(mem.store.read())
        assert sorted(events) == list(range(1, after["seq"] + 1))

        memories = {m.memory_id: m for m in mem.memories()}
        by_batch = Counter(_batch_name(m.text) for m in memories.values())
        by_batch.pop(None, None)
        # All or nothing: a batch is there whole, or not at all.
        assert {name: n for name, n in by_batch.items() if n != BATCH} == {}

        # Every call that returned is there, as it returned.
        for _, seq_text, kind, name, *rest in done:
            seq = int(seq_text)
            assert seq <= head, (kind, name, seq, head)
            event = events[seq]
            if kind == "batch":
                first, actions = int(rest[0]), rest[1].split(",")
                assert actions == ["created"] * BATCH
                batch = [events[s] for s in range(first, seq + 1)]
                ingested = [e for e in batch if isinstance(e, MemoryIngested)]
                assert [_batch_name(memories[e.memory_id].text) for e in ingested] == (
                    [name] * BATCH)
                assert by_batch[name] == BATCH
            elif kind == "single":
                assert rest[1] == "created"
                assert isinstance(event, MemoryIngested) and event.memory_id == rest[0]
                assert (memories[rest[0]].text or "").startswith(f"crash single {name}: ")
            elif kind == "recall":
                # Co-activation may follow the recall (eventmem.policies.plasticity).
                while isinstance(event, MemoriesStrengthened):
                    seq -= 1
                    event = events[seq]
                assert isinstance(event, MemoryRecalled)
                # The query is erasable content beside the event, not in it.
                assert event.query == "" and event.query_hash is not None
                assert f"crash batch {name} item 3" in (mem.store.blob(event.query_hash) or "")
            else:
                assert kind == "forget"
                assert isinstance(event, MemoryForgotten) and event.memory_id == rest[0]
                assert memories[rest[0]].status == "deleted"

        # After the last returned call, nothing but (at most) the call in flight at the kill.
        assert head >= last_done
        for seq in range(last_done + 1, head + 1):
            event = events[seq]
            assert in_flight is not None, (seq, event)
            if isinstance(event, MemoryIngested):
                text = memories[event.memory_id].text or ""
                assert (_batch_name(text) == in_flight
                        or text.startswith(f"crash single {in_flight}: ")), (seq, text)

        _check_snapshots(mem.store)

        # The store keeps taking writes, and they verify.
        texts = [f"after kill {kill_no}: a note on the {w} table" for w in ("oak", "pine", "elm")]
        results = mem.remember_many(texts, namespace="after")
        assert [r.action for r in results] == ["created"] * 3
        assert mem.recall(texts[1], namespace="after", k=1)[0].memory_id == results[1].memory_id
        assert mem.verify().ok
        return {"head": head, "last_done": last_done, "in_flight": in_flight,
                "in_flight_kind": in_flight_kind,
                "by_batch": by_batch, "snapshots": after["snapshots"],
                "opened_from": after["origin"]}


# -- crash tests -------------------------------------------------------------------------------


def test_sigkill_between_and_during_calls_loses_no_returned_call(
    store_path: Path, tmp_path: Path, writers: list[Writer]
) -> None:
    """Kill a free-running writer at several points; each run continues the same store, so the
    later checks also cover every earlier run's returned calls."""
    # (calls returned, then a pause): the pause only moves the kill point further into the next
    # calls; nothing waits on it, and every landing point must pass the same checks.
    plan = [(1, 0.0), (2, 0.004), (6, 0.012), (11, 0.002), (19, 0.025), (23, 0.007)]
    for kill_no, (returned, pause) in enumerate(plan):
        writer = Writer(store_path, f"r{kill_no}", stderr=tmp_path / f"stderr{kill_no}")
        writers.append(writer)
        writer.wait_returned(returned)
        time.sleep(pause)
        writer.kill()  # wherever it is now: in a call, a commit, a snapshot, between calls
        facts = _check_after_kill(store_path, writers, kill_no)
        assert facts["head"] >= facts["last_done"] > 0


def test_sigkill_inside_an_uncommitted_batch_writes_none_of_it(
    store_path: Path, tmp_path: Path, writers: list[Writer]
) -> None:
    writer = Writer(store_path, "hb", mode="hold-batch", arm_after=6,
                    stderr=tmp_path / "stderr")
    writers.append(writer)
    held = writer.wait_for(lambda line: line.startswith("holding batch "))
    name = held.split()[2]
    writer.kill()  # every record of the batch was put in the transaction; none was committed
    facts = _check_after_kill(store_path, writers, 0)
    assert facts["in_flight"] == name
    assert facts["by_batch"][name] == 0
    assert facts["head"] == facts["last_done"]  # nothing after the last returned call


def test_sigkill_inside_a_snapshot_write(
    store_path: Path, tmp_path: Path, writers: list[Writer]
) -> None:
    """The snapshot after an append is held open and the writer killed inside it: the append
    (committed before) stays, the snapshot is not there, and the store opens from an older one
    plus the log's tail."""
    writer = Writer(store_path, "hs", mode="hold-snapshot", arm_after=5,
                    stderr=tmp_path / "stderr")
    writers.append(writer)
    held = writer.wait_for(lambda line: line.startswith("holding snapshot "))
    snapshot_seq = int(held.split()[2])
    earlier = [int(line.split()[1]) for line in writer.lines
               if line.startswith("snapshot ") and int(line.split()[1]) < snapshot_seq]
    assert earlier, "the writer should have snapshotted before"
    writer.kill()
    facts = _check_after_kill(store_path, writers, 0)
    # The call that triggered the snapshot committed its events but never returned.
    assert facts["head"] == snapshot_seq > facts["last_done"]
    assert snapshot_seq not in facts["snapshots"]
    assert facts["opened_from"] == f"snapshot@{max(earlier)}+{snapshot_seq - max(earlier)}"
    if facts["in_flight_kind"] == "batch":
        assert facts["by_batch"][facts["in_flight"]] == BATCH


def test_sigkill_racing_snapshot_writes(
    store_path: Path, tmp_path: Path, writers: list[Writer]
) -> None:
    """Kill the moment a snapshot write starts (it lands in the serialization, the write, the
    commit or just after): the snapshot is whole or absent, never torn, and all else holds."""
    for kill_no, nth in enumerate([1, 2, 3]):
        writer = Writer(store_path, f"sr{kill_no}", snapshot_every=2,
                        stderr=tmp_path / f"stderr{kill_no}")
        writers.append(writer)
        count = 0

        def nth_snapshot(line: str, nth: int = nth) -> bool:
            nonlocal count
            count += line.startswith("snapshot ")
            return count >= nth

        writer.wait_for(nth_snapshot)
        writer.kill()
        _check_after_kill(store_path, writers, kill_no)  # includes: every snapshot is whole


# A reader that stays open across the writers' deaths: it answers each line on stdin.
_READER = r"""
import json, sys
import eventmem
with eventmem.open(sys.argv[1], readonly=True) as mem:
    print(json.dumps({"seq": mem.seq}), flush=True)
    for line in sys.stdin:
        report = mem.verify()
        print(json.dumps({"seq": mem.seq, "ok": report.ok}), flush=True)
"""

_READER_SLOTS = r"""
import json, sys
import eventmem
with eventmem.open(sys.argv[1]) as mem:
    mem.remember("written after the killed readers", namespace="after")
    # LMDB's reader table, one row per slot: pid thread txnid
    table = mem.store.environment.env.readers().splitlines()[1:]
    print(json.dumps(sorted({int(row.split()[0]) for row in table if row.strip()})))
"""


def _ask(proc: subprocess.Popen[str], *, send: bool = True) -> dict[str, Any]:
    """The reader's next answer (to a request, when ``send``): one line per request."""
    assert proc.stdin is not None and proc.stdout is not None
    if send:
        proc.stdin.write("report\n")
        proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], WAIT)
    assert ready, "the reader process did not answer"
    return json.loads(proc.stdout.readline())  # type: ignore[no-any-return]


def test_readers_killed_mid_read_leave_no_stale_reader_slots(
    store_path: Path, tmp_path: Path, writers: list[Writer]
) -> None:
    with eventmem.open(store_path) as mem:
        mem.remember("the store exists before the reader starts", namespace="after")
    reader = subprocess.Popen([sys.executable, "-c", _READER, str(store_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, env=_child_env(), cwd=ROOT)
    try:
        assert _ask(reader, send=False)["seq"] == 2  # what it saw on opening
        killed = set()
        for kill_no in range(2):
            writer = Writer(store_path, f"rd{kill_no}", mode="hold-read", arm_after=3,
                            stderr=tmp_path / f"stderr{kill_no}")
            writers.append(writer)
            writer.wait_for(lambda line: line == "holding read")
            killed.add(writer.proc.pid)
            writer.kill()
            _check_after_kill(store_path, writers, kill_no)
            with eventmem.open(store_path, readonly=True) as now:
                head = now.seq
            seen = _ask(reader)  # the reader that outlived them still reads, and catches up
            assert seen == {"seq": head, "ok": True}
        slots = set(json.loads(_run_child(_READER_SLOTS, store_path)))
        assert not slots & killed, f"stale reader slots of killed processes: {slots & killed}"
    finally:
        assert reader.stdin is not None
        reader.stdin.close()
        reader.wait(timeout=WAIT)


# -- full disk ---------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 4 MB tmpfs."""
    with small_tmpfs(tmp_path, 4) as mount_point:
        yield mount_point


def _filler(path: Path, size: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.write(fd, bytes(size))
    finally:
        os.close(fd)


def _batch_texts(i: int, n: int, words: int) -> list[str]:
    return [f"disk batch {i} item {j}: " + " ".join(f"w{i}x{j}x{k}" for k in range(words))
            for j in range(n)]


def _write_until_full(
    mem: eventmem.Engine, n: int, words: int
) -> tuple[Exception, list[str], list[str]]:
    """remember_many batches until one fails: its error, its texts, and the texts written."""
    written: list[str] = []
    for i in range(10_000):
        texts = _batch_texts(i, n, words)
        try:
            mem.remember_many(texts, namespace="disk")
        except Exception as exc:
            return exc, texts, written
        written += texts
    raise AssertionError("the disk never filled")


# A reader in another process, while the writer still has the store open.
_READ_ONLY = r"""
import json, sys
import eventmem
with eventmem.open(sys.argv[1], readonly=True) as mem:
    report = mem.verify()
    hits = mem.recall(sys.argv[2], namespace="disk", k=1)
    print(json.dumps({"ok": report.ok, "findings": [f.message for f in report.findings],
                      "head": mem.seq, "hit": hits[0].text if hits else None,
                      "texts": [m.text for m in mem.memories()]}))
"""


def test_full_disk_rejects_the_write_and_loses_nothing(small_disk: Path) -> None:
    # Made first, on the same disk, to free later: enough for the closing snapshot then.
    filler = small_disk / "filler"
    _filler(filler, 5 << 19)
    store = small_disk / "store"
    mem = eventmem.open(store, config=eventmem.Config(map_size=256 * 1024))
    try:
        error, failed, written = _write_until_full(mem, 5, 40)
        # The precise type: see test_full_disk_error_is_storage_full_error.
        assert isinstance(error, eventmem.StoreError), repr(error)
        assert os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize < 300_000
        head = mem.head()
        assert mem.verify().ok
        texts = {m.text for m in mem.memories()}
        assert len(written) >= 5
        assert texts == set(written)  # every returned batch, nothing of the failed one

        # Another process reads the store as it stands, while the writer still holds it.
        seen = json.loads(_run_child(_READ_ONLY, store, "disk batch 3 item 2 w3x2x7"))
        assert seen["ok"], seen["findings"]
        assert seen["head"] == head.seq
        assert set(seen["texts"]) == texts
        assert seen["hit"] == _batch_texts(3, 5, 40)[2]

        # Space freed: the same batch goes in now, whole.
        filler.unlink()
        results = mem.remember_many(failed, namespace="disk")
        assert [r.action for r in results] == ["created"] * 5
        assert results[0].seq == head.seq + 1
        assert mem.get(results[4].memory_id).text == failed[4]
        assert mem.verify().ok
    finally:
        filler.unlink(missing_ok=True)
        mem.close()
    with eventmem.open(store, readonly=True) as ro:
        report = ro.verify()
        assert report.ok, report.findings
        assert ro.seq == head.seq + 5
        assert ro.recall(failed[1], namespace="disk", k=1)[0].text == failed[1]


def test_full_disk_error_is_storage_full_error(small_disk: Path) -> None:
    """A big batch against a disk with no room, or a few pages of room (a short write)."""
    filler = small_disk / "filler"
    mem = eventmem.open(small_disk / "store", config=eventmem.Config(map_size=256 * 1024))
    try:
        for i in range(10):
            mem.remember_many(_batch_texts(i, 5, 40), namespace="disk")
        head = mem.head()
        fill_disk(filler)
        errors = []
        for attempt in range(8):
            if attempt:  # a little room, less than the batch needs
                os.truncate(filler, filler.stat().st_size - 3 * 4096)
            with pytest.raises(eventmem.StoreError) as failed:
                mem.remember_many(_batch_texts(100 + attempt, 40, 40), namespace="disk")
            errors.append(failed.value)
            assert mem.head() == head
        assert [type(e).__name__ for e in errors] == ["StorageFullError"] * len(errors), [
            str(e) for e in errors]
        assert all("full" in str(e) for e in errors)
    finally:
        filler.unlink()
        mem.close()


def test_full_disk_write_either_returns_or_raises_storage_full(small_disk: Path) -> None:
    """Small writes on a full disk: LMDB may still commit them into pages it frees and reuses,
    while the ops log (on the same disk) has no room for its line. A call that committed must
    return; one that did not must raise StorageFullError (never a raw OSError)."""
    config = eventmem.Config(map_size=256 * 1024, snapshots_kept=1)
    mem = eventmem.open(small_disk / "store", config=config)
    try:
        for i in range(20):
            mem.remember_many(_batch_texts(i, 5, 40), namespace="disk")
        mem.snapshot()
        mem.remember("one more", namespace="disk")
        mem.snapshot()  # frees the first snapshot's pages: small commits reuse them
        fill_disk(small_disk / "filler")
        outcomes = []
        for i in range(120):
            before = mem.head().seq
            try:
                mem.remember(f"small note {i}", namespace="disk")
                outcomes.append("returned")
            except Exception as exc:
                committed = mem.head().seq != before
                outcomes.append(f"{type(exc).__name__}{' after commit' if committed else ''}")
        assert set(outcomes) <= {"returned", "StorageFullError"}, Counter(outcomes)
    finally:
        os.remove(small_disk / "filler")
        mem.close()


_OPEN_WRITER = r"""
import sys
import eventmem
try:
    mem = eventmem.open(sys.argv[1])
except eventmem.StoreLockedError:
    print("locked")
else:
    print("opened")
    try:
        mem.close()
    except eventmem.StoreError:
        pass  # the disk is still full: not what this checks
"""


def test_close_on_a_full_disk_releases_the_store(small_disk: Path) -> None:
    store = small_disk / "store"
    mem = eventmem.open(store, config=eventmem.Config(map_size=256 * 1024))
    try:
        for i in range(10):
            mem.remember_many(_batch_texts(i, 5, 40), namespace="disk")
        fill_disk(small_disk / "filler")
        with contextlib.suppress(eventmem.StoreError):
            mem.close()  # a clear error is fine, as long as the store ends up closed
        assert _run_child(_OPEN_WRITER, store).strip() == "opened"
    finally:
        os.remove(small_disk / "filler")
        mem.close()


def _run(code: str, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                          text=True, timeout=WAIT * 2, env=_child_env(), cwd=ROOT)


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
    mem.remember_many([f"kept note {i}: " + " ".join(f"k{i}w{j}" for j in range(40))
                       for i in range(20)], namespace="a")
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
            "data.mdb", "eventmem.store", "lock.mdb", "ops.log", "snapshots", "writer.lock"]

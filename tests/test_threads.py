"""One engine shared between threads (issue 15, item 2; issue 16: reads run concurrently):
writes are serialized, reads run side by side on whole folds, and a snapshot never captures a
half-folded state. So whatever the interleaving, the store ends with verify() and audit() ok,
every acknowledged write present, and a reopen that changes nothing.

Real threads, with the interpreter's switch interval cut to a microsecond so that they
interleave inside the engine's calls (the default 5 ms lets most calls finish alone).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.events import MemoryErased, MemoryRecalled
from eventmem.reader import ReadWriteLock


@contextmanager
def busy_switching() -> Iterator[None]:
    """Threads switch every microsecond inside this block."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def run_threads(workers: list[Callable[[], None]]) -> list[BaseException]:
    """Run each worker in its own thread, all released at once; the exceptions they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(len(workers))

    def run(work: Callable[[], None]) -> None:
        start.wait()
        try:
            work()
        except BaseException as exc:  # reported to the test, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    with busy_switching():
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung (a deadlock?)"
    return errors


def check_store(mem: eventmem.Engine, acknowledged: set[str]) -> None:
    """verify and audit ok, and every acknowledged memory present."""
    report = mem.verify()
    assert report.ok, report.findings
    audit = mem.audit()
    assert audit.ok, audit.findings[:5]
    missing = [mid for mid in acknowledged if mem.get(mid).text is None]
    assert missing == []


def test_four_threads_remember_and_recall_on_one_engine(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """The issue's reproduction: four threads, 60 remember + recall each, one engine (it
    raised IndexError in the BM25 projection's seal, and the store no longer verified)."""
    acknowledged: set[str] = set()
    with eventmem.open(store_path, clock=clock, config=eventmem.Config(sync=False,
                                                                      snapshot_every=50)) as mem:
        def worker(t: int) -> Callable[[], None]:
            def work() -> None:
                for i in range(60):
                    r = mem.remember(f"thread {t} learned fact number {i} about topic {i % 7}",
                                     namespace=f"ns{t % 2}")
                    acknowledged.add(r.memory_id)
                    mem.recall(f"fact {i} topic {i % 7}", namespace=f"ns{t % 2}", k=3)
            return work

        assert run_threads([worker(t) for t in range(4)]) == []
        check_store(mem, acknowledged)
        head = mem.head()
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.head() == head
        check_store(mem, acknowledged)


def test_readers_see_whole_folds_while_a_writer_appends(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """Readers (get, memories, stats, graph, hot) running beside a writer never fail, and
    every memory they list is one the projections know in full."""
    with eventmem.open(store_path, clock=clock, config=eventmem.Config(sync=False)) as mem:
        done = threading.Event()

        def writer() -> None:
            try:
                for i in range(80):
                    r = mem.remember(f"Alice met Bob in Paris, meeting {i}", namespace="a")
                    if i % 10 == 0:
                        mem.pin(r.memory_id)
                        mem.feedback(r.memory_id, useful=True)
            finally:
                done.set()

        def reader() -> None:
            while not done.is_set():
                listed = list(mem.memories(namespace="a"))
                for m in listed[-3:]:
                    assert mem.get(m.memory_id).memory_id == m.memory_id
                stats = mem.stats()
                assert stats["memories"] >= len(listed)
                mem.hot(namespace="a")
                mem.graph.entities(namespace="a")

        assert run_threads([writer, reader, reader]) == []
        check_store(mem, {m.memory_id for m in mem.memories()})


def test_snapshots_taken_while_threads_write_are_whole(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """Threads that snapshot while others write: every snapshot is of a whole fold, so the
    reopened store (which starts from the newest) equals a rebuild."""
    with eventmem.open(store_path, clock=clock, config=eventmem.Config(sync=False)) as mem:
        def writer(t: int) -> Callable[[], None]:
            def work() -> None:
                for i in range(40):
                    mem.remember(f"writer {t} item {i}", namespace="s")
            return work

        def snapshotter() -> None:
            for _ in range(20):
                mem.snapshot()

        assert run_threads([writer(0), writer(1), snapshotter]) == []
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem.opened_from.startswith("snapshot")
        report = mem.verify()
        assert report.ok, report.findings


def test_a_closed_engine_refuses_other_threads_cleanly(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """A thread that closes the engine while others write: the others get ClosedError (never
    an LMDB error or a crash), and what was acknowledged is in the store."""
    acknowledged: set[str] = set()
    mem = eventmem.open(store_path, clock=clock, config=eventmem.Config(sync=False))
    refused = []

    def writer() -> None:
        for i in range(200):
            try:
                acknowledged.add(mem.remember(f"note {i}", namespace="c").memory_id)
            except eventmem.ClosedError:
                refused.append(i)
                return

    def closer() -> None:
        while len(acknowledged) < 5:
            threading.Event().wait(0.001)
        mem.close()

    assert run_threads([writer, closer]) == []
    with eventmem.open(store_path, clock=clock) as reopened:
        check_store(reopened, acknowledged)


# -- the lock: many readers or one writer ---------------------------------------------------------


def test_two_readers_hold_the_lock_at_once_and_a_writer_waits_for_both() -> None:
    lock = ReadWriteLock()
    inside = threading.Barrier(3, timeout=10)  # two readers and the test, all inside at once
    leave = threading.Event()
    order: list[str] = []

    def reader() -> None:
        with lock.shared():
            inside.wait()
            leave.wait(10)
            order.append("read")

    def writer() -> None:
        with lock.exclusive():
            order.append("write")

    readers = [threading.Thread(target=reader) for _ in range(2)]
    for t in readers:
        t.start()
    inside.wait()  # both readers are in: a second reader did not wait for the first
    w = threading.Thread(target=writer)
    w.start()
    w.join(0.2)
    assert w.is_alive() and order == []  # the writer waits for the readers to leave
    leave.set()
    for t in [*readers, w]:
        t.join(10)
    assert order == ["read", "read", "write"]


def test_a_waiting_writer_goes_before_new_readers_but_not_before_a_reader_inside() -> None:
    """Writers first (recalls cannot starve writes), except for a thread already reading: it
    must be able to read again (a nested read) or it could never leave."""
    lock = ReadWriteLock()
    entered, waiting, order = threading.Event(), threading.Event(), []

    def first_reader() -> None:
        with lock.shared():
            entered.set()
            waiting.wait(10)
            with lock.shared():  # nested, while a writer waits: must not block
                order.append("nested read")

    def writer() -> None:
        waiting.set()
        with lock.exclusive():
            order.append("write")

    def late_reader() -> None:
        with lock.shared():
            order.append("late read")

    first = threading.Thread(target=first_reader)
    first.start()
    entered.wait(10)
    w = threading.Thread(target=writer)
    w.start()
    while not lock._writers:  # the writer is queued
        threading.Event().wait(0.001)
    late = threading.Thread(target=late_reader)
    late.start()
    for t in (first, w, late):
        t.join(10)
    assert order == ["nested read", "write", "late read"]


def test_writers_take_the_lock_in_the_order_they_asked() -> None:
    """First come, first served among writers: a thread that releases and asks again queues
    behind those already waiting (the server's clients each get their turn)."""
    lock = ReadWriteLock()
    order: list[int] = []
    queued = threading.Semaphore(0)

    def writer(n: int) -> None:
        queued.release()
        with lock.exclusive():
            order.append(n)

    with lock.exclusive():
        threads = []
        for n in range(5):
            t = threading.Thread(target=writer, args=(n,))
            t.start()
            queued.acquire()
            while len(lock._writers) < n + 1:  # queued in this order
                threading.Event().wait(0.001)
            threads.append(t)
    with lock.exclusive():  # asks again at once: behind the five
        order.append(-1)
    for t in threads:
        t.join(10)
    assert order == [0, 1, 2, 3, 4, -1]


def test_the_lock_is_reentrant_and_refuses_an_upgrade() -> None:
    lock = ReadWriteLock()
    with lock.exclusive():
        # A writer may read (remember -> a query inside), and write again (one that snapshots).
        with lock.shared(), lock.exclusive():
            assert lock.holds()
        assert not lock.holds_shared()
    with lock.shared():
        with lock.shared():
            assert lock.holds_shared()
        with pytest.raises(RuntimeError, match="upgrade"):
            lock.acquire_exclusive()
    assert not lock.holds()
    with lock.exclusive():  # nothing was left held
        pass


def test_two_recalls_search_inside_the_engine_at_once(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """Reads run concurrently: two recalls are inside their searches at the same time (a
    channel that waits for the other recall would time out if they were serialized), then
    each records its access alone."""
    with eventmem.open(store_path, clock=clock, config=eventmem.Config(sync=False)) as mem:
        made = [mem.remember(f"the blue box holds item {i}", namespace="r").memory_id
                for i in range(3)]
        both = threading.Barrier(2, timeout=10)

        def meet(views: object, ns: str, query: str, n: int, allowed: object
                 ) -> list[tuple[str, float]]:
            both.wait()  # BrokenBarrierError unless the other recall is searching too
            return [(made[0], 1.0)]

        mem.extra_channels = {"meet": meet}
        before = mem.seq
        errors = run_threads([lambda: mem.recall("where is item 1", namespace="r"),
                              lambda: mem.recall("which box holds items", namespace="r")])
        assert errors == []
        assert mem.seq == before + 2  # both recorded
        check_store(mem, set(made))


def test_every_pure_read_shares_the_lock(store_path: Path, clock: eventmem.ManualClock) -> None:
    """Two threads inside a read at once, each calling every pure read of the engine and of a
    view: all of them take the lock shared (one taking it alone would refuse, as an upgrade)."""
    with eventmem.open(store_path, clock=clock, config=eventmem.Config(sync=False)) as mem:
        mid = mem.remember("Alice keeps the keys in the red drawer in Paris",
                           namespace="g").memory_id
        view = mem.as_of(seq=mem.seq)
        both = threading.Barrier(2, timeout=10)

        def reads(reader: eventmem.Engine | eventmem.View) -> Callable[[], None]:
            def work() -> None:
                with reader._reading():  # what every read method runs in
                    both.wait()  # the other thread is inside too
                    assert reader.get(mid).text is not None
                    assert [m.memory_id for m in reader.memories(namespace="g")] == [mid]
                    assert reader.namespaces() == ["g"]
                    assert reader.stats()["memories"] == 1
                    assert [v.memory_id for v in reader.timeline(mid)] == [mid]
                    assert len(reader.history(mid)) >= 1
                    reader.conflicts(namespace="g")
                    reader.hot(namespace="g")
                    reader.graph.entities(namespace="g")
                    reader.graph.links(mid, namespace="g")
                    list(reader.events())
                    assert reader.seq >= 1
                    if reader is view:
                        assert [h.memory_id for h in view.recall("keys", namespace="g")] == [mid]
                        view.context("keys", namespace="g")
                    else:
                        mem.head()
                        mem.as_of(seq=1)
                        assert mem.verify().ok
            return work

        assert run_threads([reads(mem), reads(mem)]) == []
        both.reset()
        assert run_threads([reads(view), reads(view)]) == []


def test_a_recall_racing_an_erase_never_records_what_was_erased_after_it(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    """A recall searches shared and records alone; an erase landing in between makes it search
    again, so no recorded recall names a memory erased (or forgotten) before it."""
    with eventmem.open(store_path, clock=clock, config=eventmem.Config(sync=False)) as mem:
        made = [mem.remember(f"note {i}: the spare key is under pot {i}",
                             namespace="e").memory_id for i in range(40)]

        def eraser() -> None:
            for i, mid in enumerate(made[:30]):
                if i % 2:
                    mem.erase(mid)
                else:
                    mem.forget(mid)

        def recaller(t: int) -> Callable[[], None]:
            def work() -> None:
                for i in range(40):
                    mem.recall(f"where is the spare key {(i + t) % 40}", namespace="e", k=5)
            return work

        assert run_threads([eraser, recaller(0), recaller(1), recaller(2)]) == []
        assert_recalls_named_only_visible_memories(mem)
        check_store(mem, set(made[30:]))


def assert_recalls_named_only_visible_memories(mem: eventmem.Engine) -> None:
    """Every recorded recall names memories a recall could return just before it (a default
    recall: none deleted, erased or otherwise hidden)."""
    events = list(mem.events())
    erased = {mid: seq for seq, event in events if isinstance(event, MemoryErased)
              for mid in event.memory_ids}
    for seq, event in events:
        if isinstance(event, MemoryRecalled) and event.memory_ids:
            assert all(seq < erased.get(m, seq + 1) for m in event.memory_ids), seq
            # A view of the past shows a later erasure too (ARCHITECTURE section 8): the
            # statuses of the others.
            before = mem.as_of(seq=seq - 1)
            assert all(before.get(m).status in ("active", "stale")
                       for m in event.memory_ids if m not in erased), seq


# -- the property: any interleaving of a few threads' operations --------------------------------

WRITES = ("remember", "forget", "pin", "feedback", "touch", "snapshot", "consolidate")
READS = ("recall", "get", "list", "stats", "timeline", "hot", "graph", "as_of")
OPS = st.one_of(
    *(st.tuples(st.just(name), st.integers(0, 30)) for name in WRITES + READS),
)
PROGRAMS = st.lists(st.lists(OPS, min_size=1, max_size=12), min_size=2, max_size=4)


def _read(mem: eventmem.Engine, name: str, n: int, known: list[str]) -> None:
    """One read, and what any whole fold satisfies: a half-folded state (a memory in one view
    and not yet in another) fails these, or raises."""
    mid = known[n % len(known)] if known else None
    if name == "recall":
        for hit in mem.recall(f"where is item {n}", namespace="p", k=3):
            assert hit.text is not None and mem.get(hit.memory_id).namespace == "p"
    elif name == "get" and mid is not None:
        memory = mem.get(mid)
        assert memory.memory_id == mid
        assert mid in {v.memory_id for v in mem.timeline(mid)}
    elif name == "list":
        listed = list(mem.memories(namespace="p"))
        assert len({m.memory_id for m in listed}) == len(listed)
        assert all(m.text is not None for m in listed if m.status not in ("erased", "purged"))
    elif name == "stats":
        stats = mem.stats()
        assert sum(stats["by_status"].values()) == stats["memories"]
        assert sum(stats["by_namespace"].values()) == stats["memories"]
    elif name == "timeline" and mid is not None:
        versions = mem.timeline(mid)
        assert all(v.recorded_at is not None for v in versions)
    elif name == "hot":
        mem.hot(namespace="p", k=3)
    elif name == "graph":
        for entity in mem.graph.entities(namespace="p"):
            assert set(entity.memory_ids) <= {m.memory_id for m in mem.memories()}
    elif name == "as_of":
        seq = mem.seq
        assert mem.as_of(seq=seq).stats()["seq"] == seq


def _run_op(mem: eventmem.Engine, op: tuple[str, int], thread: int,
            acknowledged: dict[str, str], known: list[str]) -> None:
    name, n = op
    if name in READS:
        for _ in range(3):  # reads are cheap: more of them overlap the writes' folds
            _read(mem, name, n, known)
    elif name == "remember":
        r = mem.remember(f"thread {thread} says item {n} is kept in box {n % 5}",
                         namespace="p")
        if r.action != "rejected":
            acknowledged[r.memory_id] = r.action
            known.append(r.memory_id)
            assert mem.get(r.memory_id).memory_id == r.memory_id  # a thread reads its writes
    elif name == "snapshot":
        mem.snapshot()
    elif name == "consolidate":
        mem.consolidate()
    elif known:
        mid = known[n % len(known)]
        try:
            if name == "forget":
                mem.forget(mid)
            elif name == "pin":
                mem.pin(mid)
            elif name == "feedback":
                mem.feedback(mid, useful=n % 2 == 0)
            else:
                mem.touch(mid)
        except eventmem.InvalidInputError:
            pass  # merged into another, purged: a refusal, decided under the lock


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(programs=PROGRAMS)
def test_any_interleaving_ends_verified_audited_and_complete(
    tmp_path: Path, programs: list[list[tuple[str, int]]]
) -> None:
    """Threads running any mix of reads and writes: no read fails or sees half a fold, every
    recorded recall names what a recall could return then, and the store ends verified,
    audited and complete, and reopens unchanged."""
    import tempfile
    from datetime import UTC, datetime

    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    store = Path(tempfile.mkdtemp(dir=tmp_path)) / "store"
    acknowledged: dict[str, str] = {}
    known: list[str] = []
    with eventmem.open(store, clock=clock, config=eventmem.Config(sync=False)) as mem:
        # Some memories first: a read that iterates them is then long enough for folds to land
        # in the middle of it, were it not for the lock.
        mem.remember_many([f"shelf {i} holds the spare parts of batch {i}" for i in range(40)],
                          namespace="p")

        def worker(t: int, program: list[tuple[str, int]]) -> Callable[[], None]:
            return lambda: [_run_op(mem, op, t, acknowledged, known) for op in program] and None

        assert run_threads([worker(t, p) for t, p in enumerate(programs)]) == []
        check_store(mem, set())
        assert_recalls_named_only_visible_memories(mem)
        head = mem.head()
    with eventmem.open(store, clock=clock) as mem:
        assert mem.head() == head
        check_store(mem, set())
        for mid in acknowledged:  # every acknowledged memory is in the store
            mem.get(mid)

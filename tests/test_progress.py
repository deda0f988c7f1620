"""Progress of long work: :mod:`eventmem.progress` hands reports to the listener of the block
only, and the engine's long operations (open's fold, verify, audit, a rebuild, consolidate,
compact, import) report from their natural points, each task ending at its total."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import eventmem
from eventmem import progress
from replay import rebuild

Heard = list[tuple[str, int, int]]


def listening() -> tuple[Heard, progress.Listener]:
    heard: Heard = []
    return heard, lambda task, done, total: heard.append((task, done, total))


def test_nobody_listens_by_default_and_items_come_back_as_they_are() -> None:
    items = [1, 2, 3]
    assert not progress.active()
    assert progress.tracked(items, "t", 3) is items
    progress.report("t", 1, 3)  # nothing to hear it: no error


def test_a_listener_hears_the_block_only() -> None:
    heard, listener = listening()
    with progress.reporting(listener):
        assert progress.active()
        assert list(progress.tracked(iter("abc"), "letters", lambda: 3)) == ["a", "b", "c"]
        assert list(progress.tracked([[1, 2], [3]], "chunks", 3, size=len)) == [[1, 2], [3]]
        progress.report("capped", 9, 4)
    progress.report("after", 1, 1)
    assert heard == [("letters", 0, 3), ("letters", 1, 3), ("letters", 2, 3), ("letters", 3, 3),
                     ("chunks", 0, 3), ("chunks", 2, 3), ("chunks", 3, 3), ("capped", 4, 4)]


def test_another_thread_does_not_report_to_the_block() -> None:
    heard, listener = listening()
    with progress.reporting(listener):
        other = threading.Thread(target=progress.report, args=("elsewhere", 1, 1))
        other.start()
        other.join()
    assert heard == []


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    with eventmem.open(path, config=eventmem.Config(sync=False)) as mem:
        mem.remember_many([f"note {i}: the report draft {i} is ready" for i in range(12)])
        mem.forget(mem.remember("Bob has a dog").memory_id)
    return path


def ends(heard: Heard) -> dict[str, tuple[int, int]]:
    """The last (done, total) each task reported."""
    return {task: (done, total) for task, done, total in heard}


def test_the_long_operations_report_until_done(store: Path) -> None:
    heard, listener = listening()
    with progress.reporting(listener), eventmem.open(store) as mem:
        head = mem.seq
        assert ends(heard) == {"rebuild": (0, 0)}  # opened from its snapshot: no tail
        heard.clear()
        mem.verify()
        assert ends(heard)["verify: hash chain"] == (head, head)
        assert ends(heard)["verify: rebuild"] == (head, head)
        assert {"verify: texts", "verify: derived"} <= set(ends(heard))
        heard.clear()
        mem.audit()
        assert ends(heard) == {"audit": (head, head)}
        heard.clear()
        mem.consolidate(dry_run=True)
        steps = [task for task, _, _ in heard]
        assert steps == ["consolidate: sweep", "consolidate: rehearsal",
                         "consolidate: forgetting", "consolidate: clusters",
                         "consolidate: summaries", "consolidate: graph", "consolidate: done"]
        assert heard[-1][1:] == (6, 6)
        heard.clear()
        rebuild(mem.store)
        assert ends(heard) == {"rebuild": (head, head)}
        heard.clear()
        mem.compact()
        rows = ends(heard)["compact"]
        assert rows[0] == rows[1] > head  # every row of every table: the events and the rest
        heard.clear()
        exported = store.parent / "out.jsonl"
        count = mem.export_memories(exported)
        with eventmem.open(store.parent / "other") as other:
            other.import_memories(exported)
        assert ends(heard)["import"] == (count, count)
    assert all(0 <= done <= total for _, done, total in heard)

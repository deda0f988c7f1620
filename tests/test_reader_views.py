"""Read-only views of the past (``as_of``, eventmem/reader.py): a view answers at its own now, lists
the conflicts as they stood, refuses every write as read-only, and an erase made after the view
still reaches it."""

from __future__ import annotations

from datetime import timedelta

import msgspec
import pytest

import eventmem
from eventmem.errors import NotFoundError, ReadOnlyError

DAY = timedelta(days=1)


def mid(result: eventmem.RememberResult) -> str:
    assert result.memory_id is not None
    return result.memory_id


def ids(hits: list[eventmem.Hit]) -> list[str]:
    return [h.memory_id for h in hits]


# -- a view answers every query method the engine does, and refuses every write ---------------


def test_a_view_lists_the_conflicts_as_they_stood(mem: eventmem.Engine,
                                                 clock: eventmem.ManualClock) -> None:
    mem.remember("Alice lives in Berlin", namespace="a")
    before = mem.as_of(seq=mem.seq)
    clock.advance(DAY)
    flagged = mem.remember("Alice lives in Paris", namespace="a", on_conflict="ask")
    assert flagged.conflict_id is not None
    open_view = mem.as_of(seq=mem.seq)
    mem.resolve(flagged.conflict_id, strategy="use_new")
    assert before.conflicts(namespace="a") == []
    [seen] = open_view.conflicts(namespace="a")
    assert (seen.conflict_id, seen.status) == (flagged.conflict_id, "open")
    assert open_view.conflicts(namespace="a", status="resolved") == []
    assert mem.as_of(seq=mem.seq).conflicts(namespace="a", status=None) == mem.conflicts(
        namespace="a", status=None)
    assert mem.conflicts(namespace="a")[:1] == []  # the engine has moved on; the view has not


@pytest.mark.parametrize("write", ["feedback", "touch", "consolidate", "snapshot", "resolve"])
def test_every_write_on_a_view_is_refused_as_read_only(mem: eventmem.Engine, write: str) -> None:
    memory = mid(mem.remember("Alice lives in Berlin", namespace="a"))
    flagged = mem.remember("Alice lives in Paris", namespace="a", on_conflict="ask")
    view, head = mem.as_of(seq=mem.seq), mem.head()
    calls = {"feedback": lambda: view.feedback(memory, useful=True),
             "touch": lambda: view.touch(memory),
             "consolidate": lambda: view.consolidate(),
             "snapshot": lambda: view.snapshot(),
             "resolve": lambda: view.resolve(flagged.conflict_id)}
    with pytest.raises(ReadOnlyError, match="read-only view"):
        calls[write]()
    assert mem.head() == head


# -- erasure reaches every view, one made before the erase too ---------------------------------


def test_an_erase_reaches_a_view_made_before_it(mem: eventmem.Engine,
                                                clock: eventmem.ManualClock) -> None:
    secret = "Alice secretly adores quince marmalade from Zanzibar"
    gone = mid(mem.remember(secret, namespace="a"))
    kept = mid(mem.remember("Bob works at Acme in London", namespace="a"))
    clock.advance(DAY)
    view = mem.as_of(seq=mem.seq)
    assert view.recall("quince marmalade Zanzibar", namespace="a")[0].text == secret  # cached
    assert view.graph.entity("Zanzibar", namespace="a").memory_ids == (gone,)
    mem.erase(gone)
    hits = view.recall("quince marmalade Zanzibar", namespace="a", k=5)
    assert gone not in ids(hits) and all(h.text != secret for h in hits)
    assert gone not in ids(view.recall("quince marmalade Zanzibar", namespace="a", k=5,
                                       include_hidden=True))
    record = view.get(gone)
    assert (record.status, record.text) == ("erased", None)
    assert secret not in view.context("quince marmalade Zanzibar", namespace="a")
    with pytest.raises(NotFoundError):
        view.graph.entity("Zanzibar", namespace="a")
    assert view.get(kept).text == "Bob works at Acme in London"
    assert view.seq == mem.as_of(seq=view.seq).seq  # still the same point in time
    fresh = mem.as_of(seq=view.seq)
    assert [msgspec.structs.asdict(m) for m in view.memories()] == [
        msgspec.structs.asdict(m) for m in fresh.memories()]


def test_view_answers_at_its_own_now_and_refuses_writes(mem, clock, t0):
    r = mem.remember("Alice works at Acme as a data engineer", namespace="a")
    view = mem.as_of(seq=mem.seq)
    clock.advance(timedelta(days=200))
    assert view.now() == t0 and mem.now() == t0 + timedelta(days=200)
    assert view.get(r.memory_id).retention == pytest.approx(1.0)
    assert mem.get(r.memory_id).retention < 1.0
    for name in ("remember", "remember_many", "forget", "pin", "unpin", "touch", "feedback",
                 "consolidate", "erase", "resolve", "snapshot", "compact"):
        with pytest.raises(eventmem.ReadOnlyError):
            getattr(view, name)(r.memory_id)

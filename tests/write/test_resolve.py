"""``resolve()`` of a conflict left open (``ask``): it refuses once a side was forgotten, erased or
superseded since the flag, never merges an immutable memory, and what it decides passes the
audit and survives a reopen, right after a write or at the same transaction time as the ask."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import eventmem
from tests.write.logged import checked

BERLIN, PARIS, ROME = "Alice lives in Berlin", "Alice moved to Paris", "Alice moved to Rome"



def answers(mem: eventmem.Engine) -> tuple[Any, ...]:
    memories = [(m.memory_id, m.text, m.status, m.superseded_by, m.tier, m.pinned,
                 m.valid_from, m.valid_until) for m in mem.memories()]
    spaces = sorted({m.namespace for m in mem.memories()})
    found = [(c.conflict_id, c.status, c.winner, c.old_value)
             for ns in spaces for c in mem.conflicts(namespace=ns, status=None)]
    return memories, found


def reopened_same(path: Path, clock: eventmem.ManualClock, mem: eventmem.Engine) -> None:
    before = answers(mem)
    mem.close()
    with eventmem.open(path, clock=clock) as again:
        assert answers(again) == before


def open_conflict(mem: eventmem.Engine, clock: eventmem.ManualClock) -> tuple[str, str, str]:
    """Berlin, then Paris left open (ask): the two ids and the conflict's."""
    old = mem.remember(BERLIN, namespace="n").memory_id
    clock.advance(timedelta(hours=1))
    new = mem.remember(PARIS, namespace="n", on_conflict="ask")
    assert old is not None and new.memory_id is not None and new.conflict_id is not None
    clock.advance(timedelta(hours=1))
    return old, new.memory_id, new.conflict_id


# -- after a side changed --------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["keep_existing", "use_new", "merge", "temporal"])
@pytest.mark.parametrize("side", [0, 1])
def test_resolve_refuses_once_a_side_was_forgotten(mem, clock, store_path, strategy, side):
    # Before: the forgotten memory came back as "superseded" (or its text was copied into the
    # merged memory), undoing the forget.
    ids = open_conflict(mem, clock)
    mem.forget(ids[side])
    head = mem.head()
    with pytest.raises(eventmem.InvalidInputError, match="deleted since it was flagged"):
        mem.resolve(ids[2], strategy=strategy)
    assert mem.head() == head and mem.get(ids[side]).status == "deleted"
    assert [c.conflict_id for c in mem.conflicts(namespace="n")] == [ids[2]]
    checked(mem)
    reopened_same(store_path, clock, mem)


@pytest.mark.parametrize("strategy", ["keep_existing", "merge"])
def test_resolve_refuses_once_a_later_memory_superseded_a_side(mem, clock, strategy):
    # Before: keep_existing re-pointed Paris's supersession from Rome to Berlin (two live
    # answers); merge made an active memory of the superseded Paris claim.
    _, new, cid = open_conflict(mem, clock)
    rome = mem.remember(ROME, namespace="n")
    assert rome.neighbour == new and mem.get(new).superseded_by == rome.memory_id
    head = mem.head()
    with pytest.raises(eventmem.InvalidInputError, match="superseded since it was flagged"):
        mem.resolve(cid, strategy=strategy)
    assert mem.head() == head and mem.get(new).superseded_by == rome.memory_id
    checked(mem)


def test_resolve_after_an_erase_says_why(mem, clock):
    old, _, cid = open_conflict(mem, clock)
    mem.erase(old)
    with pytest.raises(eventmem.InvalidInputError, match="was erased"):
        mem.resolve(cid)
    checked(mem)


def test_resolve_by_merge_never_merges_an_immutable_memory(mem, clock):
    mem.remember(BERLIN, namespace="n")
    new = mem.remember(PARIS, namespace="n", on_conflict="ask", immutable=True)
    head = mem.head()
    with pytest.raises(eventmem.InvalidInputError, match="immutable and cannot be merged"):
        mem.resolve(new.conflict_id, strategy="merge")
    assert mem.head() == head and mem.get(new.memory_id).status == "active"
    mem.resolve(new.conflict_id, strategy="use_new")  # the other strategies still settle it
    checked(mem)


# -- what it decides passes the audit --------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["keep_existing", "use_new", "temporal", "merge"])
def test_resolve_right_after_a_write_passes_the_audit(mem, clock, store_path, strategy):
    # Before: the audit took the write's last created memory (or, at the same transaction
    # time, the ask item's flag) for part of the resolution and reported a finding.
    _, _, cid = open_conflict(mem, clock)
    mem.remember("Bob collects stamps from Norway", namespace="n")
    mem.resolve(cid, strategy=strategy)
    checked(mem)
    reopened_same(store_path, clock, mem)


def test_resolve_at_the_same_time_as_the_ask_passes_the_audit(mem):
    mem.remember(BERLIN, namespace="n")
    new = mem.remember(PARIS, namespace="n", on_conflict="ask")  # the clock does not move
    mem.resolve(new.conflict_id, strategy="keep_existing")
    checked(mem)

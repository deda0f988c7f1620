"""Listing memories with filters and pages, and the namespaces (ISSUE: serve, item 5)."""

from __future__ import annotations

from datetime import timedelta

import pytest

import eventmem


def test_memories_filter_by_status_kind_tags_and_time(mem: eventmem.Engine,
                                                      clock: eventmem.ManualClock) -> None:
    t0 = clock.now()
    a = mem.remember("I live in Oslo.", namespace="n", tags=["home"]).memory_id
    clock.advance(timedelta(days=1))
    b = mem.remember("We just moved to Denver", namespace="n", tags=["home", "move"]).memory_id
    c = mem.remember("Buy milk tomorrow", namespace="n", kind="plan").memory_id
    mem.remember("Other namespace", namespace="m")
    assert mem.get(a).status == "superseded"
    ids = lambda **kw: [m.memory_id for m in mem.memories(namespace="n", **kw)]  # noqa: E731
    assert ids() == [a, b, c]
    assert ids(status="active") == [b, c]
    assert ids(status=("active", "superseded")) == [a, b, c]
    assert ids(kind="plan") == [c]
    assert ids(tags=["home"]) == [a, b] and ids(tags=["home", "move"]) == [b]
    assert ids(since=t0 + timedelta(hours=12)) == [b, c]
    assert ids(until=t0 + timedelta(hours=12)) == [a]
    assert mem.namespaces() == ["m", "n"]


def test_memories_page_with_limit_and_cursor(mem: eventmem.Engine) -> None:
    made = [mem.remember(f"note {i} about the {w}", namespace="p").memory_id
            for i, w in enumerate(["garden", "boat", "roof", "piano", "attic"])]
    pages, cursor = [], None
    while True:
        page = [m.memory_id for m in mem.memories(namespace="p", limit=2, cursor=cursor)]
        if not page:
            break
        pages.append(page)
        cursor = page[-1]
    assert pages == [made[:2], made[2:4], made[4:]]


@pytest.mark.parametrize("kwargs", [
    {"status": "alive"}, {"status": []}, {"status": 3}, {"kind": "nonsense"}, {"tags": "home"},
    {"limit": 0}, {"limit": True}, {"cursor": "mem_nope"}, {"since": "yesterday"},
])
def test_bad_listing_arguments_are_refused(mem: eventmem.Engine, kwargs: dict) -> None:
    with pytest.raises(eventmem.InvalidInputError):
        list(mem.memories(**kwargs))

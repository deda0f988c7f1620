"""Stores the CLI tests read: Oslo superseded by Paris through a conflict, then Paris erased; and a
small store of people, with an open conflict, a graph and a hot memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem

T0 = datetime(2025, 3, 1, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def erased_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Oslo, superseded by Paris through a conflict; then Paris is erased (and with it the
    conflict's evidence, the words of both texts)."""
    store = tmp_path_factory.mktemp("hunt") / "store"
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(store, clock=clock) as mem:
        oslo = mem.remember("Bob lives in Oslo", namespace="a")
        clock.advance(timedelta(hours=6))
        paris = mem.remember("Bob moved to Paris", namespace="a")
        assert paris.action == "superseded" and paris.conflict_id
        mem.erase(memory_id=paris.memory_id)
    return {"store": str(store), "oslo": str(oslo.memory_id), "paris": str(paris.memory_id)}


# Later than any test run's system clock: the CLI reads the system clock, and a store whose latest
# event is later answers at that event's time, so what these tests print does not depend on when
# they run.
FUTURE = datetime(2100, 1, 4, 9, tzinfo=UTC)


def people(store: Path) -> dict[str, str]:
    """A small store of namespace "a": Alice works at Initech and is friends with Bob, Bob lived
    in Oslo and then Paris (a conflict left open: ``on_conflict="ask"``), and a tagged note that
    was used and found useful. Returns the ids, and the conflict's."""
    clock = eventmem.ManualClock(start=FUTURE)
    ids: dict[str, str] = {}
    with eventmem.open(store, clock=clock, config=eventmem.Config(sync=False)) as mem:
        for name, text in [("works", "Alice Smith works at Initech"),
                           ("friends", "Alice Smith is friends with Bob Jones"),
                           ("oslo", "Bob Jones lives in Oslo")]:
            ids[name] = str(mem.remember(text, namespace="a").memory_id)
            clock.advance(timedelta(hours=1))
        paris = mem.remember("Bob Jones moved to Paris", namespace="a", on_conflict="ask")
        ids["paris"], ids["conflict"] = str(paris.memory_id), str(paris.conflict_id)
        clock.advance(timedelta(hours=1))
        ids["note"] = str(mem.remember("The standup is at nine every Monday", namespace="a",
                                       kind="plan", tags=["team"]).memory_id)
        for _ in range(4):
            clock.advance(timedelta(hours=1))
            mem.touch(ids["note"])
            mem.feedback(ids["note"], useful=True)
    return ids


@pytest.fixture
def people_store(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh :func:`people` store (the test may write to it) and its ids."""
    store = tmp_path / "people"
    return store, people(store)

"""A store the CLI tests read: Oslo, superseded by Paris through a conflict, then Paris erased."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

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

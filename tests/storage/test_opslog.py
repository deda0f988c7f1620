"""The ops log: it rotates by size and keeps a bounded number of files, every line of every file
is whole JSON, and an ops log that cannot be written (a full disk) never keeps a store from
closing: close releases the writer lock and the LMDB environment, and the store opens again."""

from __future__ import annotations

import json
import os
from itertools import pairwise
from pathlib import Path

import pytest

import eventmem
from eventmem import InvalidInputError


def _files(store: Path) -> list[str]:
    return sorted(name for name in os.listdir(store) if name.startswith("ops.log"))


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("kept", [0, 1, 3])
def test_the_ops_log_rotates_by_size_and_keeps_n_files(
    store_path: Path, clock: eventmem.ManualClock, kept: int
) -> None:
    config = eventmem.Config(ops_log_max_bytes=4096, ops_log_files=kept)
    with eventmem.open(store_path, clock=clock, config=config) as mem:
        for i in range(150):
            mem.remember(f"note number {i} about topic {i % 7}", namespace="n")
        head = mem.head().seq
    assert _files(store_path) == ["ops.log", *(f"ops.log.{i}" for i in range(1, kept + 1))]
    logged = []
    for name in reversed(_files(store_path)):  # oldest first: ops.log.<kept> ... ops.log
        assert (store_path / name).stat().st_size <= 4096
        logged += [(line["first_seq"], line["last_seq"]) for line in _lines(store_path / name)
                   if line["event"] == "remember"]
    # What is kept is the newest tail of the log, in order and without a gap.
    assert logged[-1][1] == head
    assert all(later[0] == earlier[1] + 1 for earlier, later in pairwise(logged))
    assert logged[0][0] > 2  # the oldest lines are gone


def test_rotation_carries_on_across_reopens(store_path: Path,
                                           clock: eventmem.ManualClock) -> None:
    config = eventmem.Config(ops_log_max_bytes=4096, ops_log_files=2)
    for _ in range(6):
        with eventmem.open(store_path, clock=clock, config=config) as mem:
            for i in range(20):
                mem.remember(f"reopened note {mem.seq} {i}", namespace="n")
    assert _files(store_path) == ["ops.log", "ops.log.1", "ops.log.2"]
    assert all((store_path / name).stat().st_size <= 4096 for name in _files(store_path))


@pytest.mark.parametrize("bad", [{"ops_log_max_bytes": 0}, {"ops_log_max_bytes": 100},
                                 {"ops_log_files": -1}])
def test_an_ops_log_config_that_cannot_work_is_refused(bad: dict[str, int]) -> None:
    with pytest.raises(InvalidInputError, match="ops_log"):
        eventmem.Config(**bad)


def _fail_ops_log_writes(mem: eventmem.Engine) -> None:
    """Every later ops-log write fails with ENOSPC, as on a full disk: its descriptor now
    points at /dev/full."""
    target = mem._ops._target  # the open ops.log underneath the structlog logger
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        os.dup2(full, target._fd)
    finally:
        os.close(full)


def test_close_with_a_failing_ops_log_releases_the_store(
    store_path: Path, clock: eventmem.ManualClock
) -> None:
    mem = eventmem.open(store_path, clock=clock)
    mem.remember("Alice lives in Berlin", namespace="alice")
    _fail_ops_log_writes(mem)
    mid = mem.remember("Bob lives in Paris", namespace="bob").memory_id  # logged: dropped
    mem.close()  # raises nothing, and releases the writer lock and the environment
    with eventmem.open(store_path, clock=clock) as again:  # this process, the same store
        assert again.get(mid).text == "Bob lives in Paris"
        assert again.verify().ok
    assert all(_lines(store_path / "ops.log"))  # the lines that were written are whole

"""Shared fixtures: a fixed start time, a manual clock, and a real store on disk per test."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import eventmem


@pytest.fixture
def t0() -> datetime:
    return datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def clock(t0: datetime) -> eventmem.ManualClock:
    return eventmem.ManualClock(start=t0)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def mem(store_path: Path, clock: eventmem.ManualClock) -> Iterator[eventmem.Engine]:
    engine = eventmem.open(store_path, clock=clock)
    try:
        yield engine
    finally:
        engine.close()

"""Shared fixtures: a fixed start time, a manual clock, and a real store on disk per test.

Hypothesis runs derandomized by default (profile "repeatable"): the same code gives the same
examples, so a red run is a change's doing and can be re-run as it was. Exploration with new
examples each run: ``HYPOTHESIS_PROFILE=explore python -m pytest``; a failure it finds goes
into the test as an ``@example``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import settings

import eventmem

settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


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

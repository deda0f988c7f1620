"""What the maintenance tests share: a way to write a log as an older sweep or dream version did."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from eventmem.events import DREAM_POLICY
from eventmem.maintain import cycle as dream


@pytest.fixture
def legacy(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, str], None]:
    """``legacy(sweep, dream_policy)`` makes the engine decide (and record) as those old versions
    did, to write an old log; ``monkeypatch.undo()`` brings the current versions back."""

    def write_as(sweep: str, dream_policy: str) -> None:
        plan = dream.plan

        def old_plan(*args: Any, **kwargs: Any) -> dream.Plan:
            planned = plan(*args, **kwargs, sweep_policy=sweep, dream_policy=dream_policy)
            events = [msgspec.structs.replace(e, policy=dream_policy)
                      if getattr(e, "policy", None) == DREAM_POLICY else e
                      for e in planned.events]
            return dream.Plan(events, planned.contents)

        monkeypatch.setattr(dream, "plan", old_plan)

    return write_as

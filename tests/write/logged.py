"""What the write-path tests ask of a store's log: that audit and verify pass, and the
``memory.ingested`` event that made a memory."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import pytest

import eventmem
from eventmem.events import MemoryIngested
from eventmem.policies import gate
from eventmem.write import items as items_module
from eventmem.write.items import Item


def checked(mem: eventmem.Engine) -> None:
    """Audit re-derives every decision and verify finds the views equal to a rebuild."""
    audit, verify = mem.audit(), mem.verify()
    assert audit.ok, [f.message for f in audit.findings]
    assert verify.ok, [f.message for f in verify.findings]


def ingested(mem: eventmem.Engine, memory_id: str) -> MemoryIngested:
    """The event that made ``memory_id``."""
    [event] = [e for _, e in mem.events()
               if isinstance(e, MemoryIngested) and e.memory_id == memory_id]
    return event


@contextmanager
def written_as(monkeypatch: pytest.MonkeyPatch, version: str) -> Iterator[None]:
    """Within it the engine decides and records as write gate ``version`` did: to write an old
    log, which the audit must re-derive as that version decided."""
    original = items_module.check_items

    def as_version(*args: Any) -> list[Item]:
        return [msgspec.structs.replace(item, gate_policy=version) for item in original(*args)]

    with monkeypatch.context() as patch:
        patch.setattr(eventmem.engine, "check_items", as_version)
        patch.setattr(gate, "GATE_VERSION", version)
        patch.setattr(gate.GateDecision.__new__, "__defaults__", (None, 0.0, version))
        yield

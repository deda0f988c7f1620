"""What the write-path tests ask of a store's log: that audit and verify pass, and the
``memory.ingested`` event that made a memory."""

from __future__ import annotations

import eventmem
from eventmem.events import MemoryIngested


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

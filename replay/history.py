"""Every event that touched a memory, in order: "why does it remember this, and since when"."""

from __future__ import annotations

from typing import Any

import msgspec

from eventmem.clock import from_micros
from eventmem.events import event_tag
from eventmem.log import EventLog
from eventmem.results import HistoryEntry

_COMMON = ("at", "namespace", "actor")


def history(log: EventLog, memory_id: str, *, until: int | None = None) -> list[HistoryEntry]:
    """The events of ``memory_id`` with seq <= ``until``, with their decisions and evidence."""
    entries = []
    for seq in log.seqs_for_memory(memory_id):
        if until is not None and seq > until:
            break
        _, event = next(log.read(seq, seq))
        details: dict[str, Any] = {
            k: v for k, v in msgspec.structs.asdict(event).items() if k not in _COMMON
        }
        entries.append(
            HistoryEntry(
                seq=seq, at=from_micros(event.at), type=event_tag(event), actor=event.actor,
                details=details,
            )
        )
    return entries

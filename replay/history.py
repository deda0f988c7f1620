"""Every event that touched a memory, in order: "why does it remember this, and since when"."""

from __future__ import annotations

from typing import Any

import msgspec

from eventmem.clock import from_micros
from eventmem.events import ConflictEvidence, ConflictFlagged, Event, event_tag
from eventmem.results import HistoryEntry
from eventmem.storage.log import EventLog

_COMMON = ("at", "namespace", "actor")


def history(log: EventLog, memory_id: str, *, until: int | None = None) -> list[HistoryEntry]:
    """The events of ``memory_id`` with seq <= ``until``, with their decisions and evidence."""
    entries = []
    for seq in log.seqs_for_memory(memory_id):
        if until is not None and seq > until:
            break
        event = log.event(seq)
        details = event_details(log, event)
        entries.append(
            HistoryEntry(
                seq=seq, at=from_micros(event.at), type=event_tag(event), actor=event.actor,
                details=details,
            )
        )
    return entries


_EVIDENCE = msgspec.json.Decoder(ConflictEvidence)


def event_details(log: EventLog, event: Event) -> dict[str, Any]:
    """An event's own fields (time, namespace and actor left out), with the evidence it keeps
    as content joined in: a conflict's subject, attribute and values (blank once erased)."""
    details: dict[str, Any] = {
        k: v for k, v in msgspec.structs.asdict(event).items() if k not in _COMMON
    }
    if isinstance(event, ConflictFlagged):
        raw = log.blob(event.content_hash)
        evidence = _EVIDENCE.decode(raw) if raw else None
        for field in ("subject", "attribute", "old_value", "new_value"):
            details[field] = getattr(evidence, field) if evidence is not None else ""
    return details

"""The current-state projection: one record per memory.

A fold: ``apply(state, envelope)`` reads only the state and the envelope. For speed it updates the
state in place and returns it (folding 100k events through copies would be far too slow); a caller
that needs an older state folds a fresh one instead.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from eventmem.envelope import Envelope
from eventmem.events import (
    EmbedderRegistered,
    MemoryForgotten,
    MemoryIngested,
    MemoryPinned,
    MemoryRecalled,
    MemoryReinforced,
    MemoryUnpinned,
)

Status = Literal[
    "active", "stale", "archived", "dormant", "superseded", "deleted", "purged", "erased"
]
# Statuses a default recall leaves out.
HIDDEN_STATUSES = frozenset({"archived", "dormant", "superseded", "deleted", "purged", "erased"})


class MemoryRecord(msgspec.Struct, array_like=True, gc=False):
    """What the store currently holds about one memory (times in epoch microseconds).

    Positional, unlike most structs here: a rebuild creates one per ingest, and msgspec builds a
    struct from positional arguments several times faster than from keywords. ``gc=False``: it
    holds no references that could form a cycle.
    """

    # Set once, from the ingest event.
    memory_id: str
    namespace: str
    content_hash: str
    dedup_key: str
    kind: str
    kind_rule: str
    source: str
    stability: float  # base stability in days
    importance: float
    confidence: float
    pinned: bool
    immutable: bool
    valid_from: int | None
    valid_until: int | None
    tags: tuple[str, ...]
    refs: tuple[str, ...]
    created_at: int
    created_seq: int
    # Changed by later events.
    last_access_at: int
    updated_seq: int
    utility: float = 0.5
    access_count: int = 0
    reinforce_count: int = 0
    status: Status = "active"
    tier: str = "episodic"
    deleted_at: int | None = None
    status_since: int = 0  # when the current status began (0: since creation)
    utility_at: int = 0  # when utility last moved (feedback); drift runs from here (0: creation)
    session: str | None = None  # the session it was stored in (working memory)
    priority: str = "normal"  # low | normal | high | critical
    flashbulb: bool = False  # a high-arousal memory: pinned, important, slow to fade


class State(msgspec.Struct, kw_only=True):
    """All memories by id, plus the dedup index (namespace NUL dedup key -> memory id)."""

    memories: dict[str, MemoryRecord] = msgspec.field(default_factory=dict)
    by_dedup: dict[str, str] = msgspec.field(default_factory=dict)
    embedder_id: str | None = None
    seq: int = 0  # the last seq folded in


def dedup_slot(namespace: str, dedup_key: str) -> str:
    return f"{namespace}\x00{dedup_key}"


def apply(state: State, env: Envelope) -> State:
    event = env.event
    match event:
        case MemoryIngested():
            e = event
            state.memories[e.memory_id] = MemoryRecord(
                e.memory_id, e.namespace, e.content_hash, e.dedup_key, e.kind, e.kind_rule,
                e.source, e.stability, e.importance, e.confidence, e.pinned, e.immutable,
                e.valid_from, e.valid_until, e.tags, e.refs, e.at, env.seq,  # created
                e.at, env.seq,  # last access, last update
            )
            state.by_dedup[dedup_slot(event.namespace, event.dedup_key)] = event.memory_id
        case MemoryReinforced(memory_id=mid):
            record = state.memories[mid]
            record.reinforce_count += 1
            record.last_access_at = event.at
            record.updated_seq = env.seq
        case MemoryRecalled(memory_ids=mids):
            for mid in mids:
                record = state.memories[mid]
                record.access_count += 1
                record.last_access_at = event.at
                record.updated_seq = env.seq
        case MemoryForgotten(memory_id=mid):
            record = state.memories[mid]
            record.status = "deleted"
            record.deleted_at = event.at
            record.updated_seq = env.seq
            # A forgotten text may be remembered afresh: it no longer absorbs duplicates.
            slot = dedup_slot(record.namespace, record.dedup_key)
            if state.by_dedup.get(slot) == mid:
                del state.by_dedup[slot]
        case MemoryPinned(memory_id=mid) | MemoryUnpinned(memory_id=mid):
            record = state.memories[mid]
            record.pinned = isinstance(event, MemoryPinned)
            record.updated_seq = env.seq
        case EmbedderRegistered(embedder_id=embedder_id):
            state.embedder_id = embedder_id
        case _:
            pass
    state.seq = env.seq
    return state

"""What the public API returns: plain frozen records with aware datetimes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

Action = Literal["created", "reinforced", "merged", "updated", "superseded", "skipped", "rejected"]


class RememberResult(msgspec.Struct, frozen=True, kw_only=True):
    """What ``remember`` decided for one text: the action, the rule that chose it and the seq that
    recorded it; a rejected text has no memory, only a ``reason``."""

    memory_id: str | None  # None only when rejected
    action: Action
    seq: int | None  # the seq of the event that recorded it; None when nothing was recorded
    # (an update that changes nothing, an import of a memory the namespace already holds)
    rule: str = ""  # the rule that decided (exact_hash, near_duplicate_merge, conflict_temporal...)
    reason: str = ""  # why an input was rejected
    neighbour: str | None = None  # the memory the gate compared it with
    similarity: float | None = None  # cosine similarity to that memory
    conflict_id: str | None = None  # the conflict it raised, if any


class Memory(msgspec.Struct, frozen=True, kw_only=True):
    """One memory as the store holds it now: its text and metadata, its lifecycle status and
    tier, and its strengths at the engine's or view's now."""

    memory_id: str
    namespace: str
    text: str | None  # None once erased
    kind: str
    status: str
    tier: str
    importance: float
    utility: float
    stability: float  # effective stability in days at this moment (accesses included)
    access_count: int
    pinned: bool
    immutable: bool
    retention: float  # retrieval strength at the engine's or view's now; decays, restored on use
    storage_strength: int  # how often it was retrieved or restated; grows, never decays
    valid_from: datetime | None
    valid_until: datetime | None
    source: str
    confidence: float
    created_at: datetime
    last_access_at: datetime
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    priority: str = "normal"
    flashbulb: bool = False
    session: str | None = None
    superseded_by: str | None = None  # the memory that replaced it
    derived_from: tuple[str, ...] = ()  # the memories whose facts it carries (merge, update)
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)  # the caller's JSON object
    # Its retention category (correction, procedure, decision, preference, fact; "" none) and,
    # for a commitment marked done (Engine.resolve_commitment), when.
    category: str = ""
    done_at: datetime | None = None


class Hit(msgspec.Struct, frozen=True, kw_only=True):
    """One recall result: the memory, its final score, and the signals behind the score."""

    memory_id: str
    text: str | None
    score: float
    signals: dict[str, float]  # per-signal scores and per-channel ranks: the "explain"
    kind: str
    created_at: datetime
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)  # the caller's JSON object
    # Only with ``recall(box_context=n)``: the box the memory is in (None: stored in no session)
    # and up to n other memories of that box, nearest to it in the conversation, in box order.
    box_id: str | None = None
    neighbours: tuple[BoxNeighbour, ...] = ()


class BoxNeighbour(msgspec.Struct, frozen=True, kw_only=True):
    """A memory said next to a recall hit, in the same box: context for the hit, not a hit
    (it answers no query, and the recall does not count it as accessed)."""

    memory_id: str
    text: str
    offset: int  # its place relative to the hit in the box: -1 just before, 1 just after
    created_at: datetime


class Box(msgspec.Struct, frozen=True, kw_only=True):
    """A box: consecutive memories of one session (eventmem.policies.boxes), open until sealed
    by a topic shift, a quiet gap or its size, then part of a trace of boxes on a recurring
    topic."""

    box_id: str
    namespace: str
    memory_ids: tuple[str, ...]  # in the order they were said; erased and purged ones left out
    opened_at: datetime  # its first memory's creation time
    last_at: datetime  # its last memory's
    sealed_at: datetime | None = None  # None: still open
    reason: str | None = None  # why it was sealed: topic | gap | size
    trace_id: str | None = None  # the trace it joined when sealed


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One event in a memory's history: its seq, time, tag and actor, and what it recorded."""

    seq: int
    at: datetime
    type: str  # the event tag
    actor: str
    details: dict[str, Any]


class Conflict(msgspec.Struct, frozen=True, kw_only=True):
    """A contradiction the write gate found between two memories of a namespace."""

    conflict_id: str
    namespace: str
    memory_id: str  # the memory that held the old value
    other_id: str  # the memory that brought the new one
    subject: str
    attribute: str
    old_value: str
    new_value: str
    rule: str
    strategy: str  # the strategy applied when it was found
    status: str  # open | resolved
    flagged_at: datetime
    winner: str | None = None
    resolved_at: datetime | None = None
    resolved_by: str | None = None


class Version(msgspec.Struct, frozen=True, kw_only=True):
    """One version of a fact: when it was true (valid time) and when the store held it (known
    time). ``None`` ends are open."""

    memory_id: str
    text: str | None
    status: str
    valid_from: datetime | None
    valid_until: datetime | None
    recorded_at: datetime
    retracted_at: datetime | None
    superseded_by: str | None

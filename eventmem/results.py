"""What the public API returns: plain frozen records with aware datetimes."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

Action = Literal["created", "reinforced", "merged", "updated", "superseded", "skipped", "rejected"]


class RememberResult(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str | None  # None only when rejected
    action: Action
    seq: int | None  # the seq of the event that recorded the decision
    rule: str = ""
    reason: str = ""


class Memory(msgspec.Struct, frozen=True, kw_only=True):
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


class Hit(msgspec.Struct, frozen=True, kw_only=True):
    memory_id: str
    text: str | None
    score: float
    signals: dict[str, float]  # per-signal scores and per-channel ranks: the "explain"
    kind: str
    created_at: datetime


class HistoryEntry(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    at: datetime
    type: str  # the event tag
    actor: str
    details: dict[str, Any]

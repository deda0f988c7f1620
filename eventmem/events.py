"""Every event eventmem records: frozen, keyword-only, explicitly tagged msgspec Structs.

Rules for this module (the log is forever):

* A tag is never renamed or reused; renaming a class is fine, the tag is what is stored.
* New fields get defaults, so old records still decode. An incompatible change gets a new tag and an
  upcaster in :mod:`eventmem.codec`.
* Collections are tuples; times are integer microseconds since the epoch, UTC
  (:func:`eventmem.clock.to_micros`).
* The log assigns the sequence number; an event never carries its own.

Every event carries ``at`` (transaction time from the injected clock), ``namespace`` (the
tenant/agent/user scope; ``""`` for store-wide events) and ``actor`` (who caused it). Decision
events also carry the ``rule`` that decided and the ``policy`` version.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

MemoryKind = Literal[
    "identity", "preference", "relationship", "event", "activity", "plan", "context", "ephemeral"
]
MEMORY_KINDS: Final[tuple[str, ...]] = MemoryKind.__args__  # type: ignore[attr-defined]

Actor = Literal["user", "agent", "extraction", "consolidation", "import", "system"]
ACTORS: Final[tuple[str, ...]] = Actor.__args__  # type: ignore[attr-defined]

POLICY_VERSION: Final = "gate-1"


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False):
    """Fields every event carries."""

    at: int
    namespace: str
    actor: Actor = "system"


class EmbedderRegistered(Event, tag="store.embedder_registered", frozen=True, kw_only=True):
    """The store's vectors are made by this embedder from now on (recorded once, first)."""

    embedder_id: str
    dim: int


class MemoryIngested(Event, tag="memory.ingested", frozen=True, kw_only=True):
    """A new memory was created. Its text lives in the blob ``content_hash``."""

    memory_id: str
    content_hash: str
    dedup_key: str
    kind: MemoryKind
    kind_rule: str = "caller"
    source: Actor = "user"
    stability: float = 7.0  # base stability in days, decided from the kind at write time
    importance: float = 0.5
    confidence: float = 1.0
    valid_from: int | None = None
    valid_until: int | None = None
    pinned: bool = False
    immutable: bool = False
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    rule: str = "new"
    policy: str = POLICY_VERSION


class MemoryReinforced(Event, tag="memory.reinforced", frozen=True, kw_only=True):
    """New input duplicated an existing memory, which was reinforced instead of stored twice."""

    memory_id: str
    content_hash: str
    similarity: float
    rule: str
    policy: str = POLICY_VERSION


class MemoryRecalled(Event, tag="memory.recalled", frozen=True, kw_only=True):
    """A recall returned these memories; each counts as an access. The audit trail of what an
    agent was given."""

    query: str
    k: int
    memory_ids: tuple[str, ...]
    scores: tuple[float, ...]
    valid_at: int | None = None


class MemoryForgotten(Event, tag="memory.forgotten", frozen=True, kw_only=True):
    """The memory is deleted (status ``deleted``); its events and text stay until purge/erase."""

    memory_id: str
    reason: str = "explicit"


class MemoryPinned(Event, tag="memory.pinned", frozen=True, kw_only=True):
    memory_id: str


class MemoryUnpinned(Event, tag="memory.unpinned", frozen=True, kw_only=True):
    memory_id: str


AnyEvent = (
    EmbedderRegistered
    | MemoryIngested
    | MemoryReinforced
    | MemoryRecalled
    | MemoryForgotten
    | MemoryPinned
    | MemoryUnpinned
)

EVENT_TYPES: Final[tuple[type[Event], ...]] = AnyEvent.__args__


# Events whose content (text blob and vector) the log reader joins before projections fold them.
CONTENT_EVENTS: Final[tuple[type[Event], ...]] = (MemoryIngested,)


def event_tag(event: Event) -> str:
    """The stored tag of an event (``memory.ingested``...)."""
    return type(event).__struct_config__.tag  # type: ignore[return-value]


def memory_ids_of(event: Event) -> tuple[str, ...]:
    """The memories an event touches, for the by-memory index."""
    mid = getattr(event, "memory_id", None)
    if mid is not None:
        return (mid,)
    if isinstance(event, MemoryRecalled):
        return event.memory_ids
    return ()

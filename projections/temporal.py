"""The bitemporal projection: for each memory, when it was true and when the store knew it.

valid time  [valid_from, valid_until)   when the fact holds in the world (None: open; a memory
                                        without valid_from holds from recorded_at)
known time  [recorded_at, retracted_at) when the store held it as current (None: still does)

"True at T" is a lookup here, without a replay; "known at T" is ``as_of(at=T)``.
"""

from __future__ import annotations

import msgspec

from eventmem.events import (
    LifecycleTransitioned,
    MemoryErased,
    MemoryForgotten,
    MemoryIngested,
    MemoryInvalidated,
    MemorySuperseded,
)
from eventmem.storage.envelope import Envelope


class Interval(msgspec.Struct, array_like=True, gc=False):
    """A memory's valid time [valid_from, valid_until) and known time [recorded_at,
    retracted_at), in epoch microseconds; ``None`` ends are open."""

    valid_from: int | None
    valid_until: int | None
    recorded_at: int
    retracted_at: int | None = None


class Temporal(msgspec.Struct, kw_only=True):
    """Every memory's :class:`Interval`, by memory id (an erased memory's stays, a skeleton)."""

    intervals: dict[str, Interval] = msgspec.field(default_factory=dict)


def apply(state: Temporal, env: Envelope) -> Temporal:
    """Fold one envelope into ``state`` (in place) and return it."""
    event = env.event
    match event:
        case MemoryIngested():
            # Positional: msgspec builds structs far faster so, and a rebuild makes one per ingest.
            interval = Interval(event.valid_from, event.valid_until, event.at)
            state.intervals[event.memory_id] = interval
        case MemoryForgotten(memory_id=mid):
            state.intervals[mid].retracted_at = event.at
        case MemorySuperseded(memory_id=mid):
            # Known time ends now; valid time ends where the replacement's begins (unless the
            # claim was refused rather than ended: until is None then).
            interval = state.intervals[mid]
            if event.until is not None:
                interval.valid_until = event.until
            if interval.retracted_at is None:
                interval.retracted_at = event.at
        case MemoryInvalidated(memory_id=mid):
            state.intervals[mid].valid_until = event.until
        case LifecycleTransitioned(changes=changes):
            for change in changes:  # deleted by decay: the store stops holding it as current
                interval = state.intervals[change.memory_id]
                if change.to_status in ("deleted", "purged") and interval.retracted_at is None:
                    interval.retracted_at = event.at
        case MemoryErased(memory_ids=erased):
            for mid in erased:  # the interval stays, a skeleton; the store no longer holds it
                held = state.intervals.get(mid)  # None: a view of the past (eventmem.write.erase)
                if held is not None and held.retracted_at is None:
                    held.retracted_at = event.at
        case _:
            pass
    return state


def valid_at(interval: Interval, at: int) -> bool:
    """Whether the fact held at ``at``: valid_from <= at < valid_until, an open end unbounded.
    A memory without valid_from (written before gate-4, which records one) holds from when it
    was recorded: a fact first stated after ``at`` was never true at ``at`` as far as the store
    can say."""
    start = interval.valid_from if interval.valid_from is not None else interval.recorded_at
    if at < start:
        return False
    return interval.valid_until is None or at < interval.valid_until

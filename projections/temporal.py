"""The bitemporal projection: for each memory, when it was true and when the store knew it.

valid time  [valid_from, valid_until)   when the fact holds in the world (None: open; a memory
                                        without valid_from holds from recorded_at)
known time  [recorded_at, retracted_at) when the store held it as current (None: still does)

"True at T" is a lookup here, without a replay; "known at T" is ``as_of(at=T)``.

A third time is what a memory's text speaks of (``times``, read when it was written:
"yesterday", "next month"): ``told`` indexes those spans by namespace and first day, so that
"what happened on March 16" finds a memory recorded on March 17 that says "yesterday"
(:func:`speaking_of`).
"""

from __future__ import annotations

from collections.abc import MutableMapping

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.events import (
    CommitmentResolved,
    LifecycleTransitioned,
    MemoryErased,
    MemoryForgotten,
    MemoryIngested,
    MemoryInvalidated,
    MemorySuperseded,
    TimeSpan,
)
from eventmem.storage.envelope import Envelope


class Interval(msgspec.Struct, array_like=True, gc=False):
    """A memory's valid time [valid_from, valid_until) and known time [recorded_at,
    retracted_at), in epoch microseconds; ``None`` ends are open."""

    valid_from: int | None
    valid_until: int | None
    recorded_at: int
    retracted_at: int | None = None
    times: tuple[TimeSpan, ...] = ()  # the spans its text speaks of (see the module docstring)


class Temporal(msgspec.Struct, kw_only=True):
    """Every memory's :class:`Interval`, by memory id (an erased memory's stays, a skeleton),
    and the memories whose text speaks of a time, by namespace and the first day of a span it
    speaks of (:func:`told_key`), in the order written."""

    # Loaded from a snapshot: a projections.columns.LazyMap (decoded on first use).
    intervals: MutableMapping[str, Interval] = msgspec.field(default_factory=dict)
    told: dict[str, list[str]] = msgspec.field(default_factory=dict)


def told_key(namespace: str, day: int) -> str:
    """The key of ``told`` for a namespace and a day (days since the epoch): a string, as the
    deterministic codec wants every map's keys."""
    return f"{namespace}\x00{day}"


# No span a statement records is wider (eventmem.text.timeexpr.MAX_WIDTH_DAYS, plus a day of
# rounding): a lookup reads the start days this far before a span's own.
WIDEST_DAYS = 367


def apply(state: Temporal, env: Envelope) -> Temporal:
    """Fold one envelope into ``state`` (in place) and return it."""
    event = env.event
    match event:
        case MemoryIngested():
            # Positional: msgspec builds structs far faster so, and a rebuild makes one per ingest.
            interval = Interval(event.valid_from, event.valid_until, event.at, None, event.times)
            state.intervals[event.memory_id] = interval
            if event.times:
                for first in dict.fromkeys(span.start // MICROS_PER_DAY for span in event.times):
                    state.told.setdefault(told_key(event.namespace, first),
                                          []).append(event.memory_id)
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
        case CommitmentResolved(memory_id=mid):  # done: true until now, as the state holds it
            interval = state.intervals[mid]
            if interval.valid_until is None or interval.valid_until > event.at:
                interval.valid_until = event.at
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
                if held is not None and held.times:  # what its text spoke of goes with it
                    _untell(state, event.namespace, mid, held.times)
                    held.times = ()
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


def _untell(state: Temporal, namespace: str, memory_id: str, times: tuple[TimeSpan, ...]) -> None:
    for first in dict.fromkeys(span.start // MICROS_PER_DAY for span in times):
        key = told_key(namespace, first)
        held = state.told.get(key)
        if held is not None and memory_id in held:
            held.remove(memory_id)
            if not held:
                del state.told[key]


# Past this many days, a lookup reads the namespace's keys rather than every day of the span.
_LONG_SPAN_DAYS = 4000


def speaking_of(state: Temporal, namespace: str, start: int, end: int
                ) -> list[tuple[str, float]]:
    """The memories of ``namespace`` whose text speaks of a time that meets ``[start, end)``,
    in the order written (each once), each with the share of its span that lies inside (the
    best of its spans): 1.0 for "yesterday" asked about that day, 1/30 for "last month". Reads
    the index's days from :data:`WIDEST_DAYS` before ``start`` to ``end``: no recorded span is
    wider."""
    if not state.told or end <= start:
        return []
    first, last = start // MICROS_PER_DAY - WIDEST_DAYS, (end - 1) // MICROS_PER_DAY
    told = state.told
    if last - first <= _LONG_SPAN_DAYS:
        keys = [told_key(namespace, day) for day in range(first, last + 1)]
    else:  # a span of years: the namespace's own days are fewer to read
        prefix = f"{namespace}\x00"
        keys = sorted((key for key in told if key.startswith(prefix)
                       and first <= int(key[len(prefix):]) <= last),
                      key=lambda key: int(key[len(prefix):]))
    found: dict[str, float] = {}
    for key in keys:
        for memory_id in told.get(key, ()):
            if memory_id in found:
                continue
            share = max((min(end, span.end) - max(start, span.start)) / (span.end - span.start)
                        for span in state.intervals[memory_id].times)
            if share > 0:
                found[memory_id] = share
    return sorted(found.items(), key=lambda item: state.intervals[item[0]].recorded_at)

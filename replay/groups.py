"""The log cut into decision groups: the runs of events one call decided together.

The log does not mark where one call's append ends, but the events say it: a write batch is a run
of items (each begins with the event that states its decision -- ingested, reinforced, skipped or
rejected -- numbered by ``item`` from 0, followed by the supersession or conflict events it
implies, and last by the closing of a plan its text reports done) closed by the working-memory
evictions of the batch; a consolidation is a run of maintenance events sharing ``at`` and
``now``; a later resolution of a conflict begins with ``conflict.resolved`` (or the merged memory
it creates); a session's end is one tier change whose every change has the reason
``session_ended``; the plasticity a write or an access decided (tags, strengthenings, box seals)
follow it at its ``at``. :func:`groups` yields them in log order, reading ahead only as far as
the group being cut.

:func:`split_items` cuts a write batch's events (recorded or re-derived) into its items and its
trailing evictions, with the same rules.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Literal, NamedTuple

from eventmem.events import (
    BoxSealed,
    CategorySummarized,
    ConflictFlagged,
    ConflictResolved,
    EmotionConsolidated,
    Event,
    FeedbackGiven,
    LifecycleTransitioned,
    MemoriesDormant,
    MemoriesRehearsed,
    MemoriesStrengthened,
    MemoriesTagged,
    MemoryConsolidated,
    MemoryIngested,
    MemoryInvalidated,
    MemoryRecalled,
    MemoryReinforced,
    MemoryRejected,
    MemorySkipped,
    MemorySuperseded,
    MemoryTouched,
    RelationsPruned,
    TagsExpired,
    TierChanged,
)
from eventmem.policies import plans
from eventmem.storage.envelope import Envelope
from eventmem.write.session import SESSION_ENDED

GroupKind = Literal["write", "resolve", "maintenance", "recall", "touch", "feedback",
                    "session_end", "plasticity", "orphan", "other"]

ITEM_FIRST = (MemoryIngested, MemoryReinforced, MemorySkipped, MemoryRejected)
_MAINTENANCE = (LifecycleTransitioned, TierChanged, MemoryInvalidated, MemoriesRehearsed,
                MemoriesDormant, MemoryConsolidated, CategorySummarized, RelationsPruned,
                TagsExpired, EmotionConsolidated)
# What a write or an access decides after it (eventmem.policies.plasticity, and the box seals
# of eventmem.policies.boxes): one group, cut at the same ``at``, re-derived from the group
# before it. A box seal that carries a consolidation's ``now`` is that consolidation's.
PLASTICITY = (MemoriesTagged, MemoriesStrengthened, BoxSealed)
EVICTION_REASON = "working_capacity"  # the write path's own tier changes


class Group(NamedTuple):
    """One decision group: its kind and its envelopes, in log order."""

    kind: GroupKind
    envelopes: list[Envelope]

    @property
    def first_seq(self) -> int:
        """The seq of the group's first event."""
        return self.envelopes[0].seq


def continues_item(item: Sequence[Event], nxt: Event) -> bool:
    """Whether ``nxt`` belongs to the write item whose events so far are ``item``: a merge's or
    an update's supersession, or a conflict's flag, resolution and supersession; or, after any
    of these, the plan the item's text reports done (:func:`closes_plan`)."""
    if closes_plan(item, nxt):
        return True
    head, last = item[0], item[-1]
    if not isinstance(head, MemoryIngested):
        return False
    if len(item) == 1:
        if isinstance(nxt, MemorySuperseded):
            return nxt.by == head.memory_id and nxt.conflict_id is None
        return isinstance(nxt, ConflictFlagged) and nxt.other_id == head.memory_id
    if isinstance(last, ConflictFlagged):
        # The write path settles a conflict by the strategy it flagged it with; a conflict left
        # open ("ask") and settled by resolve() at the same transaction time is not this item's.
        return isinstance(nxt, ConflictResolved) and nxt.conflict_id == last.conflict_id \
            and nxt.strategy == last.strategy
    if isinstance(last, ConflictResolved):
        return isinstance(nxt, MemorySuperseded) and nxt.conflict_id == last.conflict_id
    return False


def closes_plan(item: Sequence[Event], nxt: Event) -> bool:
    """Whether ``nxt`` is the plan that the write item ``item`` reports done. The write path
    closes it last, after whatever the item decided (created, merged, updated, reinforced,
    skipped, or settled a conflict): a supersession without a conflict, by a completion rule,
    by the memory the item's decision stands for (:func:`decided_memory`); one per item."""
    if not (isinstance(nxt, MemorySuperseded) and nxt.conflict_id is None
            and nxt.rule in plans.DONE_RULES):
        return False
    if any(isinstance(e, MemorySuperseded) and e.conflict_id is None and e.rule in plans.DONE_RULES
           for e in item[1:]):
        return False
    return nxt.by == decided_memory(item)


def decided_memory(item: Sequence[Event]) -> str | None:
    """The memory a write item's decision stands for (its outcome's ``memory_id``): the one it
    reinforced or skipped into, the winner of the conflict it settled, else the one it created
    (None: a rejected input)."""
    head = item[0]
    if isinstance(head, MemoryReinforced | MemorySkipped):
        return head.memory_id
    if not isinstance(head, MemoryIngested):
        return None
    resolved = next((e for e in item if isinstance(e, ConflictResolved)), None)
    # A conflict kept the existing memory: the item's outcome is that one, not the new claim.
    return resolved.winner if resolved is not None else head.memory_id


def is_eviction(event: Event) -> bool:
    """A write batch's working-memory eviction (a tier change at the batch's own time)."""
    return (isinstance(event, TierChanged) and event.now == event.at and bool(event.changes)
            and all(c.reason == EVICTION_REASON for c in event.changes))


def is_maintenance(event: Event) -> bool:
    """Whether ``event`` is one a consolidation decides (a box seal only with its ``now``)."""
    if isinstance(event, BoxSealed):
        return event.now is not None
    return isinstance(event, _MAINTENANCE) or is_dream_ingest(event)


def is_session_end(event: Event) -> bool:
    """A caller's end of a session (``Engine.end_session``): a tier change at its own time
    whose every change says so. It is one call's decision, never part of a consolidation."""
    return (isinstance(event, TierChanged) and event.now == event.at and bool(event.changes)
            and all(c.reason == SESSION_ENDED for c in event.changes))


def is_dream_ingest(event: Event) -> bool:
    """Whether ``event`` creates a memory of the dream cycle (a consolidated memory or a
    category summary)."""
    # Any dream version's (a log written before the current one still groups its cycles).
    return isinstance(event, MemoryIngested) and event.policy.startswith("dream-")


def split_items(events: Sequence[Event]) -> tuple[list[list[Event]], list[Event]]:
    """A write batch's events as its items (each a list of events) and its trailing evictions."""
    items: list[list[Event]] = []
    trailer: list[Event] = []
    for event in events:
        if trailer or (is_eviction(event) and items):
            trailer.append(event)
        elif items and continues_item(items[-1], event):
            items[-1].append(event)
        else:
            items.append([event])
    return items, trailer


def groups(envelopes: Iterable[Envelope]) -> Iterator[Group]:
    """The decision groups of a run of envelopes, in order (see the module docstring)."""
    cutter = _Cutter(iter(envelopes))
    while (env := cutter.peek()) is not None:
        yield cutter.cut(env.event)


def _resolution_merge(event: Event, after: Envelope | None) -> bool:
    """Whether ``event`` is the memory a resolution by ``merge`` made: the resolution that
    follows it names it the winner (a write batch's last memory is followed by resolve()'s
    events for another conflict, which do not)."""
    return (isinstance(event, MemoryIngested) and not is_dream_ingest(event)
            and after is not None and isinstance(after.event, ConflictResolved)
            and after.event.winner == event.memory_id and after.event.at == event.at)


def _now(event: Event) -> int | None:
    return getattr(event, "now", None)


class _Cutter:
    def __init__(self, source: Iterator[Envelope]) -> None:
        self._source = source
        self._ahead: deque[Envelope] = deque()

    def peek(self, depth: int = 0) -> Envelope | None:
        while len(self._ahead) <= depth:
            env = next(self._source, None)
            if env is None:
                return None
            self._ahead.append(env)
        return self._ahead[depth]

    def _take(self) -> Envelope:
        return self._ahead.popleft()

    def cut(self, event: Event) -> Group:
        if isinstance(event, ConflictResolved) or _resolution_merge(event, self.peek(1)):
            return self._resolution()
        if is_session_end(event):
            return Group("session_end", [self._take()])
        if is_maintenance(event):
            return self._maintenance(event)
        if isinstance(event, ITEM_FIRST):
            return self._write_batch(event)
        if isinstance(event, PLASTICITY):
            taken = [self._take()]
            while (env := self.peek()) is not None and isinstance(env.event, PLASTICITY) \
                    and env.event.at == event.at and not is_maintenance(env.event):
                taken.append(self._take())
            return Group("plasticity", taken)
        kind: GroupKind = "other"
        if isinstance(event, MemoryRecalled):
            kind = "recall"
        elif isinstance(event, MemoryTouched):
            kind = "touch"
        elif isinstance(event, FeedbackGiven):
            kind = "feedback"
        elif isinstance(event, MemorySuperseded | ConflictFlagged):
            kind = "orphan"  # no decision before it accounts for it
        return Group(kind, [self._take()])

    def _resolution(self) -> Group:
        taken = [self._take()]
        if isinstance(taken[0].event, MemoryIngested):
            taken.append(self._take())
        resolved = taken[-1].event
        assert isinstance(resolved, ConflictResolved)
        while (env := self.peek()) is not None and isinstance(env.event, MemorySuperseded) \
                and env.event.conflict_id == resolved.conflict_id:
            taken.append(self._take())
        return Group("resolve", taken)

    def _maintenance(self, first: Event) -> Group:
        taken = [self._take()]
        now = _now(first)
        while (env := self.peek()) is not None and env.event.at == first.at:
            event = env.event
            if not is_maintenance(event):
                break
            if (is_eviction(event) and now != event.at) or is_session_end(event):
                break
            event_now = _now(event)
            if event_now is not None:
                if now is not None and event_now != now:
                    break  # another consolidation at the same transaction time
                now = event_now
            taken.append(self._take())
        return Group("maintenance", taken)

    def _write_batch(self, first: Event) -> Group:
        taken = [self._take()]
        item = [first]
        index = getattr(first, "item", 0)
        while (env := self.peek()) is not None and env.event.at == first.at:
            event = env.event
            if continues_item(item, event):
                item.append(event)
            elif (isinstance(event, ITEM_FIRST) and getattr(event, "item", 0) == index + 1
                  and not is_dream_ingest(event)):
                if _resolution_merge(event, self.peek(1)):
                    break  # a resolution's merged memory
                item, index = [event], index + 1
            else:
                break
            taken.append(self._take())
        while (env := self.peek()) is not None and is_eviction(env.event) \
                and env.event.at == first.at:
            taken.append(self._take())
        return Group("write", taken)

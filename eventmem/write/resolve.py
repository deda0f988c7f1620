"""Open conflicts, and settling one later (the ``ask`` strategy's second half).

``resolution_events`` is pure: given the projections, the conflict and a strategy, it returns the
events that settle it -- a ``conflict.resolved`` and the supersession it implies (and, for
``merge``, the new memory that carries both sides). Nothing is deleted. ``listing`` and
``open_conflict`` find conflicts in the projections; ``as_result`` shows one as the API does.
"""

from __future__ import annotations

import hashlib
from typing import cast

from eventmem.clock import from_micros
from eventmem.config import Config
from eventmem.errors import InvalidInputError, NotFoundError
from eventmem.events import ConflictResolved, Event, MemoryKind, MemorySuperseded
from eventmem.metadata import merged
from eventmem.policies import gate, merge, times
from eventmem.results import Conflict
from eventmem.storage.envelope import Content
from eventmem.storage.log import Head
from eventmem.text.normalize import content_hash
from eventmem.write.batch import Analyse, TextOf, evidence_text, ingested_event, with_labels
from eventmem.write.items import Item
from projections import Projections
from projections.state import ConflictRecord

RESOLVE_STRATEGIES = ("keep_existing", "use_new", "merge", "temporal")


def resolution_events(views: Projections, conflict: ConflictRecord, strategy: str, *, at: int,
                      head: Head, config: Config, text_of: TextOf, analyse: Analyse
                      ) -> tuple[list[Event], dict[str, Content], str]:
    """The events settling ``conflict`` by ``strategy``, the content they introduce, and the
    id of the memory that holds the answer now."""
    if strategy not in RESOLVE_STRATEGIES:
        raise InvalidInputError(f"strategy must be one of {', '.join(RESOLVE_STRATEGIES)}, "
                                f"got {strategy!r}")
    memories = views.state.memories
    existing, new = memories[conflict.memory_id], memories[conflict.other_id]
    existing_from = existing.valid_from if existing.valid_from is not None else existing.created_at
    new_from = new.valid_from if new.valid_from is not None else new.created_at
    resolution = gate.resolve(strategy, existing_valid_from=existing_from,  # type: ignore[arg-type]
                              new_valid_from=new_from, existing_immutable=existing.immutable)
    ns, cid = conflict.namespace, conflict.conflict_id

    def settled(winner: str, loser: str, until: int | None) -> list[Event]:
        return [
            ConflictResolved(at=at, namespace=ns, actor="user", conflict_id=cid,
                             strategy=strategy, winner=winner, loser=loser,
                             policy=gate.GATE_VERSION),
            MemorySuperseded(at=at, namespace=ns, actor="user", memory_id=loser, by=winner,
                             until=until, rule=resolution.rule, conflict_id=cid,
                             policy=gate.GATE_VERSION),
        ]

    if resolution.winner == "existing":
        # As at write time: an older fact ends where the existing one begins; a refused claim
        # gets an empty interval.
        until = existing_from if new_from < existing_from else new_from
        return settled(existing.memory_id, new.memory_id, until), {}, existing.memory_id
    if resolution.winner == "new":
        return settled(new.memory_id, existing.memory_id, new_from), {}, new.memory_id
    # merge: one new memory carries both sides; both are superseded by it.
    text = merge.conflict_text(text_of(existing.memory_id), text_of(new.memory_id))
    content = analyse(text)
    memory_id = "mem_" + hashlib.blake2b(head.hash + f"resolve:{cid}".encode(),
                                         digest_size=8).hexdigest()
    item = Item(
        text=text, namespace=ns, kind=cast(MemoryKind, new.kind), source="user",
        importance=max(existing.importance, new.importance),
        confidence=max(existing.confidence, new.confidence), valid_from=new.valid_from,
        valid_until=None, pinned=existing.pinned or new.pinned, immutable=False,
        tags=existing.tags + tuple(t for t in new.tags if t not in existing.tags),
        refs=existing.refs + tuple(r for r in new.refs if r not in existing.refs),
    )
    intervals = views.temporal.intervals
    spoken = times.merged(intervals[existing.memory_id].times, intervals[new.memory_id].times)
    event, labels = with_labels(ingested_event(item, text, memory_id, at=at, config=config,
                                               derived_from=(existing.memory_id, new.memory_id),
                                               rule=resolution.rule, spoken_of=spoken), None,
                                merged(existing.metadata, new.metadata))
    events: list[Event] = [event, *settled(memory_id, existing.memory_id, new_from)]
    events.append(MemorySuperseded(at=at, namespace=ns, actor="user", memory_id=new.memory_id,
                                   by=memory_id, until=None, rule=resolution.rule,
                                   conflict_id=cid, policy=gate.GATE_VERSION))
    return events, {content_hash(text): content, **labels}, memory_id


def listing(views: Projections, namespace: str, status: str | None) -> list[ConflictRecord]:
    """The conflicts of ``namespace`` (``status`` open, resolved, or None for all), oldest
    first."""
    found = [c for c in views.state.conflicts.values()
             if c.namespace == namespace and (status is None or c.status == status)]
    return sorted(found, key=lambda c: (c.flagged_at, c.conflict_id))


# A side in one of these states is no longer the claim that was flagged: settling the conflict
# would bring a forgotten memory back as superseded (or copy its text into a merge), or rewrite
# the history of one a later memory superseded.
_SETTLED_ELSEWHERE = frozenset({"deleted", "purged", "superseded", "erased"})


def open_conflict(views: Projections, conflict_id: str, strategy: str | None = None
                  ) -> ConflictRecord:
    """The open conflict ``conflict_id``, if ``strategy`` may settle it now. NotFoundError if
    there is none; InvalidInputError if it is resolved, a side was erased, forgotten or
    superseded since it was flagged, or ``strategy`` is ``merge`` and would merge away an
    immutable memory."""
    found = views.state.conflicts.get(conflict_id) if isinstance(conflict_id, str) else None
    if found is None:
        raise NotFoundError(f"no conflict {conflict_id!r} in this store")
    if found.status == "erased":
        raise InvalidInputError(f"conflict {conflict_id} can no longer be settled: a memory "
                                "it was about was erased")
    if found.status != "open":
        raise InvalidInputError(f"conflict {conflict_id} is already resolved "
                                f"(winner {found.winner})")
    existing, new = views.state.memories[found.memory_id], views.state.memories[found.other_id]
    for side in (existing, new):
        if side.status in _SETTLED_ELSEWHERE:
            raise InvalidInputError(
                f"conflict {conflict_id} can no longer be settled: memory {side.memory_id} was "
                f"{side.status} since it was flagged")
    # An immutable existing side wins whatever the strategy (gate.resolve); an immutable new
    # side would be merged away.
    if strategy == "merge" and new.immutable and not existing.immutable:
        raise InvalidInputError(
            f"memory {new.memory_id} is immutable and cannot be merged; settle conflict "
            f"{conflict_id} with keep_existing, use_new or temporal")
    return found


def kept_evidence(views: Projections, erased: set[str]) -> set[str]:
    """The evidence content hashes of the conflicts an erasure of ``erased`` leaves alone. Two
    conflicts with the same evidence (the same values, in any namespace) share its blob, which
    must outlive the erasure of one of them."""
    return {content_hash(evidence_text(c.subject, c.attribute, c.old_value, c.new_value))
            for c in views.state.conflicts.values()
            if c.memory_id not in erased and c.other_id not in erased}


def as_result(record: ConflictRecord) -> Conflict:
    """A conflict as the public API shows it."""
    return Conflict(
        conflict_id=record.conflict_id, namespace=record.namespace, memory_id=record.memory_id,
        other_id=record.other_id, subject=record.subject, attribute=record.attribute,
        old_value=record.old_value, new_value=record.new_value, rule=record.rule,
        strategy=record.strategy, status=record.status,
        flagged_at=from_micros(record.flagged_at), winner=record.winner,
        resolved_at=None if record.resolved_at is None else from_micros(record.resolved_at),
        resolved_by=record.resolved_by)

"""The current-state projection: one record per memory.

A fold: ``apply(state, envelope)`` reads only the state and the envelope. For speed it updates the
state in place and returns it (folding 100k events through copies would be far too slow); a caller
that needs an older state folds a fresh one instead.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from typing import Any, Literal

import msgspec

from eventmem.errors import CorruptRecordError
from eventmem.events import (
    BoxSealed,
    CategorySummarized,
    CommitmentResolved,
    ConflictEvidence,
    ConflictFlagged,
    ConflictResolved,
    EmbedderRegistered,
    EmotionConsolidated,
    FeedbackGiven,
    Labels,
    LifecycleTransitioned,
    MemoriesDormant,
    MemoriesRehearsed,
    MemoriesStrengthened,
    MemoriesTagged,
    MemoryConsolidated,
    MemoryErased,
    MemoryForgotten,
    MemoryIngested,
    MemoryInvalidated,
    MemoryPinned,
    MemoryRecalled,
    MemoryReinforced,
    MemorySuperseded,
    MemoryTouched,
    MemoryUnpinned,
    TagsExpired,
    TierChanged,
    session_key,
)
from eventmem.storage.envelope import Envelope

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
    invalidated_at: int | None = None  # when a sweep recorded that its valid time had ended
    # Decay progress (effective stabilities) recorded at the last tier change, and its time: the
    # new tier's rate applies from then on (see eventmem.policies.decay.progress).
    decay_done: float = 0.0
    decay_from: int = 0
    superseded_by: str | None = None  # the memory that replaced it (merge, update, conflict)
    derived_from: tuple[str, ...] = ()  # the memories whose facts it carries
    # The session as the caller gave it (``session`` is its key; see events.session_key), from
    # the ingest's Labels content, or from the event itself in records before labels-1.
    session_label: str | None = None
    # The caller's metadata (eventmem.metadata), from the ingest's Labels content.
    metadata: dict[str, Any] | None = None
    # What co-activation and spreading activation have multiplied its stability by, over its
    # life (eventmem.policies.plasticity caps it: no loop makes a memory a hub).
    passive_gain: float = 1.0
    # Its emotion, from the ingest (eventmem.policies.emotion; 0 and "" before emotion-1).
    valence: float = 0.0
    emotion: str = ""
    arousal: float = 0.0
    emotion_done: bool = False  # the emotional consolidation step strengthened it (once)
    # The retention category (eventmem.policies.category; "" none) and, for a plan or
    # commitment the caller marked done, when (Engine.resolve_commitment).
    category: str = ""
    done_at: int | None = None
    # The box it joined (its session's open box when it was ingested, or the box that box's
    # seal left its later members in; eventmem.policies.boxes). None: stored in no session.
    box: str | None = None


class ConflictRecord(msgspec.Struct, array_like=True, gc=False):
    """A contradiction the write gate found, open until resolved."""

    conflict_id: str
    namespace: str
    memory_id: str  # the existing memory
    other_id: str  # the new one
    subject: str
    attribute: str
    old_value: str
    new_value: str
    rule: str
    flagged_at: int
    strategy: str
    status: str = "open"  # open | resolved
    winner: str | None = None
    resolved_at: int | None = None
    resolved_by: str | None = None  # the strategy that settled it


class BoxRecord(msgspec.Struct, array_like=True, gc=False):
    """A box: consecutive memories of one session (eventmem.policies.boxes), open until a
    ``memory.box_sealed`` event closes it on its members. Times in epoch microseconds."""

    box_id: str
    namespace: str
    session: str  # the session's key
    members: list[str]  # in the order they joined
    opened_at: int  # the first member's creation time
    last_at: int  # the last member's creation time
    sealed_at: int | None = None
    reason: str = ""  # topic | gap | size, once sealed
    trace_id: str | None = None  # once sealed


_SESSION_KEY_LEN = len(session_key("", ""))  # "s:" and 24 hex digits


def box_session(namespace: str, session: str) -> str:
    """The session key a box is kept under: the ingest's (events.session_key), or, for a record
    from before labels-1 that carries the caller's session in the clear, the key made from it,
    so that no caller text is held by a box (an erasure does not reach into boxes)."""
    if len(session) == _SESSION_KEY_LEN and session.startswith("s:"):
        return session
    return session_key(namespace, session)


def box_id_of(first_member: str) -> str:
    """A box's id: made from its first member's (a folding rule: an open box is made by the
    fold, and the id must come out the same in every rebuild)."""
    return f"box-{first_member}"


class SummaryRef(msgspec.Struct, array_like=True, gc=False):
    """The current summary of one (namespace, kind) and the membership it was made from."""

    memory_id: str
    members: int
    members_digest: str


class State(msgspec.Struct, kw_only=True):
    """All memories by id, plus the dedup index (namespace NUL dedup key -> memory id)."""

    # Loaded from a snapshot, these two are projections.columns.LazyMap (decoded on first use).
    memories: MutableMapping[str, MemoryRecord] = msgspec.field(default_factory=dict)
    by_dedup: MutableMapping[str, str] = msgspec.field(default_factory=dict)
    # namespace NUL session -> ids of its working-tier memories, oldest first
    working: dict[str, list[str]] = msgspec.field(default_factory=dict)
    conflicts: dict[str, ConflictRecord] = msgspec.field(default_factory=dict)
    embedder_id: str | None = None
    seq: int = 0  # the last seq folded in
    # The dream cycle's own indexes (eventmem.maintain.cycle).
    rehearsed_at: dict[str, int] = msgspec.field(default_factory=dict)  # id -> the cycle's now
    consolidations: dict[str, tuple[str, ...]] = msgspec.field(default_factory=dict)  # -> members
    summaries: dict[str, SummaryRef] = msgspec.field(default_factory=dict)  # category_key -> ref
    # Plasticity (eventmem.policies.plasticity): the live synaptic tags, by working_key ->
    # memory id -> until; and how often two memories were returned together by a recall, by
    # pair_key (among the first COACTIVATED of each recall's hits).
    synaptic_tags: dict[str, dict[str, int]] = msgspec.field(default_factory=dict)
    coretrieved: dict[str, int] = msgspec.field(default_factory=dict)
    # Memory boxes (eventmem.policies.boxes): every box by id; the open box of each session, by
    # working_key; the boxes of each trace in seal order; and each namespace's traces, the one
    # a box joined last at the end (the trace weaver compares a sealing box with the newest).
    boxes: dict[str, BoxRecord] = msgspec.field(default_factory=dict)
    open_boxes: dict[str, str] = msgspec.field(default_factory=dict)
    traces: dict[str, list[str]] = msgspec.field(default_factory=dict)
    recent_traces: dict[str, list[str]] = msgspec.field(default_factory=dict)


# The hits of a recall, best first, whose pairs the state counts as co-retrieved: a folding rule
# (a change of it is a new PROJECTION_VERSION), bounded so that a recall of k hits adds at most
# 10 pairs, whatever k.
COACTIVATED = 5


def pair_key(a: str, b: str) -> str:
    """The key of an unordered pair of memories in ``State.coretrieved``."""
    return f"{a}\x00{b}" if a < b else f"{b}\x00{a}"


def category_key(namespace: str, kind: str) -> str:
    """The key of a (namespace, kind) category in ``State.summaries``."""
    return f"{namespace}\x00{kind}"


def dedup_slot(namespace: str, dedup_key: str) -> str:
    """The key of a dedup key within its namespace in ``State.by_dedup``."""
    return f"{namespace}\x00{dedup_key}"


def working_key(namespace: str, session: str | None) -> str:
    """The key of a session's working memories in ``State.working``; memories without a session
    share their namespace's."""
    return f"{namespace}\x00{session or ''}"


def _leave_working(state: State, record: MemoryRecord) -> None:
    key = working_key(record.namespace, record.session)
    members = state.working.get(key)
    if members and record.memory_id in members:
        members.remove(record.memory_id)
        if not members:
            del state.working[key]


_EVIDENCE = msgspec.json.Decoder(ConflictEvidence)
_LABELS = msgspec.json.Decoder(Labels)
_NO_LABELS = Labels(memory_id="")


def _labels(env: Envelope) -> Labels:
    """An ingest's caller labels, joined like its text (gone once erased: none)."""
    if not env.caller:
        return _NO_LABELS
    try:
        return _LABELS.decode(env.caller)
    except msgspec.DecodeError:
        raise CorruptRecordError("the caller labels of an ingest do not decode",
                                 seq=env.seq) from None
_NO_EVIDENCE = ConflictEvidence(subject="", attribute="", old_value="", new_value="")

# Statuses an access brings back: using a memory is the best evidence it is still wanted.
_REVIVED_BY_ACCESS = frozenset({"stale", "archived", "dormant"})
# Statuses in which a memory no longer absorbs duplicates of its text: the text may be
# remembered afresh (a superseded fact restated is news again, not a duplicate of history).
_GONE = frozenset({"deleted", "purged", "erased", "superseded"})


def apply(state: State, env: Envelope) -> State:
    """Fold one envelope into ``state`` (in place) and return it."""
    event = env.event
    at, seq = event.at, env.seq
    match event:
        case MemoryIngested():
            e = event
            tags, refs, label, metadata = e.tags, e.refs, e.session, None
            if e.caller_hash is not None:  # the labels are content (None once erased)
                labels = _labels(env)
                tags, refs, label = labels.tags, labels.refs, labels.session
                metadata = labels.metadata
            created = at if e.created_at is None else e.created_at
            record = state.memories[e.memory_id] = MemoryRecord(
                e.memory_id, e.namespace, e.content_hash, e.dedup_key, e.kind, e.kind_rule,
                e.source, e.stability, e.importance, e.confidence, e.pinned, e.immutable,
                e.valid_from, e.valid_until, tags, refs, created, seq,  # created
                at, seq,  # last access, last update
                0.5, 0, 0, "active", e.tier, None,  # utility, accesses, reinforcements, ...
                at, at, e.session, e.priority, e.flashbulb,  # status and utility since, ...
            )
            if label is not None:
                record.session_label = label
            if metadata:
                record.metadata = metadata
            if e.derived_from:
                record.derived_from = e.derived_from
            if e.valence or e.emotion or e.arousal:
                record.valence, record.emotion, record.arousal = e.valence, e.emotion, e.arousal
            if e.category:
                record.category = e.category
            if e.tier == "working":
                state.working.setdefault(working_key(e.namespace, e.session), []).append(
                    e.memory_id)
            # A memory said in a session joins the session's open box; a memory of the dream
            # cycle belongs to no conversation.
            if e.session is not None and not e.policy.startswith("dream-"):
                _join_box(state, record, e.session)
            state.by_dedup[dedup_slot(e.namespace, e.dedup_key)] = e.memory_id
        case MemoryReinforced(memory_id=mid):
            record = state.memories[mid]
            record.reinforce_count += 1
            _accessed(record, at, seq, event.stability)
        case MemoryRecalled(memory_ids=mids, stabilities=stabilities):
            for i, mid in enumerate(mids):
                record = state.memories[mid]
                record.access_count += 1
                _accessed(record, at, seq, stabilities[i] if stabilities else None)
            together = mids[:COACTIVATED]
            for i, a in enumerate(together):
                for b in together[i + 1:]:
                    if a != b:
                        key = pair_key(a, b)
                        state.coretrieved[key] = state.coretrieved.get(key, 0) + 1
        case MemoriesTagged(memory_ids=tagged):
            live = state.synaptic_tags.setdefault(working_key(event.namespace, event.session), {})
            for mid in tagged:
                live[mid] = event.until
        case MemoriesStrengthened(changes=grown):
            for growth in grown:
                record = state.memories[growth.memory_id]
                if event.cause == "capture":
                    _untag(state, record)
                elif growth.from_stability > 0:
                    record.passive_gain *= growth.stability / growth.from_stability
                record.stability, record.updated_seq = growth.stability, seq
                # Like a rehearsal: no access, so retention does not jump; it applies from now.
                record.decay_done, record.decay_from = growth.decay_done, at
        case EmotionConsolidated(changes=felt):
            for growth in felt:
                record = state.memories[growth.memory_id]
                record.stability, record.updated_seq = growth.stability, seq
                record.decay_done, record.decay_from = growth.decay_done, event.now
                record.emotion_done = True
        case TagsExpired(memory_ids=expired):
            for mid in expired:
                _untag(state, state.memories[mid])
        case MemoryTouched(memory_id=mid):
            record = state.memories[mid]
            record.access_count += 1
            _accessed(record, at, seq, event.stability)
        case FeedbackGiven(memory_id=mid):
            record = state.memories[mid]
            record.utility, record.utility_at, record.updated_seq = event.utility, at, seq
        case MemoryForgotten(memory_id=mid):
            _set_status(state, state.memories[mid], "deleted", at, seq)
        case LifecycleTransitioned(changes=changes):
            # Times from the sweep's ``now``, which the rules compare them with, not from ``at``:
            # a sweep run for a future ``now`` must not see its own changes as older than that.
            for change in changes:
                record = state.memories[change.memory_id]
                _set_status(state, record, change.to_status, event.now, seq)
        case TierChanged(changes=tier_changes):
            for tier_change in tier_changes:
                record = state.memories[tier_change.memory_id]
                if record.tier == "working":
                    _leave_working(state, record)
                record.tier, record.updated_seq = tier_change.to_tier, seq
                record.decay_done, record.decay_from = tier_change.decay_done, event.now
                if tier_change.to_tier == "dormant":  # the decay clock stops at the sweep's now
                    record.status, record.status_since = "dormant", event.now
        case CommitmentResolved(memory_id=mid):
            record = state.memories[mid]
            record.done_at, record.invalidated_at, record.updated_seq = at, at, seq
            if record.valid_until is None or record.valid_until > at:
                record.valid_until = at
        case MemoryInvalidated(memory_id=mid):
            record = state.memories[mid]
            record.valid_until, record.updated_seq = event.until, seq
            record.invalidated_at = at
        case MemorySuperseded(memory_id=mid):
            record = state.memories[mid]
            _set_status(state, record, "superseded", at, seq)
            record.superseded_by = event.by
            if event.until is not None:
                record.valid_until = event.until
        case ConflictFlagged():
            # The evidence is content, joined like a memory's text (gone once erased: blanks).
            evidence = _EVIDENCE.decode(env.text) if env.text else _NO_EVIDENCE
            state.conflicts[event.conflict_id] = ConflictRecord(
                event.conflict_id, event.namespace, event.memory_id, event.other_id,
                evidence.subject, evidence.attribute, evidence.old_value, evidence.new_value,
                event.rule, at, event.strategy)
        case ConflictResolved(conflict_id=cid):
            conflict = state.conflicts[cid]
            conflict.status, conflict.winner = "resolved", event.winner
            conflict.resolved_at, conflict.resolved_by = at, event.strategy
        case MemoryPinned(memory_id=mid) | MemoryUnpinned(memory_id=mid):
            record = state.memories[mid]
            record.pinned = isinstance(event, MemoryPinned)
            record.updated_seq = seq
        case EmbedderRegistered(embedder_id=embedder_id):
            state.embedder_id = embedder_id
        case MemoriesRehearsed(changes=rehearsals):
            for rehearsal in rehearsals:
                record = state.memories[rehearsal.memory_id]
                record.stability, record.updated_seq = rehearsal.stability, seq
                # Like a tier change, decay stays continuous: the new stability applies from now.
                record.decay_done, record.decay_from = rehearsal.decay_done, event.now
                state.rehearsed_at[rehearsal.memory_id] = event.now
        case MemoriesDormant(changes=dormant):
            for went in dormant:
                record = state.memories[went.memory_id]
                if record.tier == "working":
                    _leave_working(state, record)
                record.tier, record.status = "dormant", "dormant"
                record.decay_done, record.decay_from = went.decay_done, event.now
                record.status_since, record.updated_seq = event.now, seq
        case MemoryConsolidated(memory_id=mid):
            state.consolidations[mid] = event.members
            _made_at(state.memories[mid], event.now, seq)
        case CategorySummarized(memory_id=mid):
            state.summaries[category_key(event.namespace, event.kind)] = SummaryRef(
                mid, event.members, event.members_digest)
            _made_at(state.memories[mid], event.now, seq)
            if event.replaces is not None:
                _set_status(state, state.memories[event.replaces], "superseded", event.now, seq)
        case MemoryErased(memory_ids=erased):
            _erase(state, erased, at, seq)
        case BoxSealed():
            _seal_box(state, event)
        case _:
            pass
    state.seq = seq
    return state


def _erase(state: State, erased: tuple[str, ...], at: int, seq: int) -> None:
    """Erased memories stay as skeletons (no text is held here), and the values a conflict
    copied out of their text are blanked. Ids the state does not hold are skipped: a view of the
    past folds later erasures too (erasure reaches into the past; see eventmem.write.erase)."""
    gone = set(erased)
    for mid in erased:
        record = state.memories.get(mid)
        if record is not None:
            _untag(state, record)
            _set_status(state, record, "erased", at, seq)
            # Also when it was erased already: a read-only engine applies an erasure it finds
            # past its seq at once, folded at its own seq (eventmem.write.erase), then folds
            # the erasure again when it catches up; the record must end as a rebuild leaves it.
            record.updated_seq = seq
            # The caller's labels are caller text, gone with the content (a rebuild no longer
            # finds them); the record has left its session's working memory already.
            record.tags = record.refs = ()
            record.session = record.session_label = record.metadata = None
    if state.coretrieved:  # an erased memory leaves no trace, not even as a recall partner
        for key in [key for key in state.coretrieved
                    if not gone.isdisjoint(key.split("\x00"))]:
            del state.coretrieved[key]
    for conflict in state.conflicts.values():
        if conflict.memory_id in gone or conflict.other_id in gone:
            conflict.subject = conflict.attribute = conflict.old_value = conflict.new_value = ""
            if conflict.status == "open":  # nothing is left to settle
                conflict.status = "erased"


def _join_box(state: State, record: MemoryRecord, session: str) -> None:
    session = box_session(record.namespace, session)
    key = working_key(record.namespace, session)
    box_id = state.open_boxes.get(key)
    if box_id is None:
        box_id = state.open_boxes[key] = box_id_of(record.memory_id)
        state.boxes[box_id] = BoxRecord(box_id, record.namespace, session,
                                        [record.memory_id], record.created_at, record.created_at)
    else:
        box = state.boxes[box_id]
        box.members.append(record.memory_id)
        box.last_at = record.created_at
    record.box = box_id


def _seal_box(state: State, event: BoxSealed) -> None:
    """Close a box on the members the event names; those that joined after them (a later item
    of the same write batch) open the session's next box. A box this state does not hold is
    skipped (a consolidation's overlay holds no boxes)."""
    box = state.boxes.get(event.box_id)
    if box is None:
        return
    sealed = set(event.memory_ids)
    rest = [mid for mid in box.members if mid not in sealed]
    box.members = list(event.memory_ids)
    box.sealed_at = event.at if event.now is None else event.now
    box.reason, box.trace_id = event.reason, event.trace_id
    memories = state.memories
    if box.members and box.members[-1] in memories:
        box.last_at = memories[box.members[-1]].created_at
    key = working_key(box.namespace, box.session)
    if state.open_boxes.get(key) == box.box_id:
        del state.open_boxes[key]
    if rest:
        first, last = memories[rest[0]], memories[rest[-1]]
        box_id = state.open_boxes[key] = box_id_of(rest[0])
        state.boxes[box_id] = BoxRecord(box_id, box.namespace, box.session, rest,
                                        first.created_at, last.created_at)
        for mid in rest:
            memories[mid].box = box_id
    state.traces.setdefault(event.trace_id, []).append(box.box_id)
    recent = state.recent_traces.setdefault(box.namespace, [])
    if event.trace_id in recent:
        recent.remove(event.trace_id)
    recent.append(event.trace_id)


def _untag(state: State, record: MemoryRecord) -> None:
    key = working_key(record.namespace, record.session)
    tags = state.synaptic_tags.get(key)
    if tags is not None and tags.pop(record.memory_id, None) is not None and not tags:
        del state.synaptic_tags[key]


def _made_at(record: MemoryRecord, now: int, seq: int) -> None:
    """A memory the dream cycle made starts its clocks at the cycle's ``now`` (as every change of
    the cycle does), not at the append time: a cycle run for a later ``now`` must not see its
    own new memories as already fading."""
    record.last_access_at = record.status_since = record.utility_at = now
    record.updated_seq = seq


def as_accessed(records: Mapping[str, MemoryRecord], memory_ids: Sequence[str], at: int,
                stabilities: Sequence[float]) -> dict[str, MemoryRecord]:
    """Copies of the records an access of ``memory_ids`` at ``at`` (with ``stabilities``, or
    none recorded) will leave, without folding it: what decides the plasticity that is
    appended in the access's own transaction (eventmem.policies.plasticity.after_access)."""
    out: dict[str, MemoryRecord] = {}
    for i, mid in enumerate(memory_ids):
        record = msgspec.structs.replace(out.get(mid) or records[mid])
        _accessed(record, at, record.updated_seq, stabilities[i] if stabilities else None)
        out[mid] = record
    return out


def _accessed(record: MemoryRecord, at: int, seq: int, stability: float | None) -> None:
    """An access restores retrieval strength (the clock restarts), applies the stability the
    decay policy decided, and brings a stale, archived or dormant memory back."""
    record.last_access_at = at
    record.updated_seq = seq
    record.decay_done = 0.0
    if stability is not None:
        record.stability = stability
    if record.status in _REVIVED_BY_ACCESS:
        record.status, record.status_since = "active", at
    if record.tier == "dormant":
        record.tier = "episodic"


def _set_status(state: State, record: MemoryRecord, status: str, at: int, seq: int) -> None:
    if record.status == "erased":  # final: nothing brings erased content back
        return
    record.status = status  # type: ignore[assignment]
    record.status_since = at
    record.updated_seq = seq
    if status == "deleted" and record.deleted_at is None:
        record.deleted_at = at
    if status in _GONE:
        if record.tier == "working":  # no longer takes a place in its session
            _leave_working(state, record)
        # A deleted or superseded text may be remembered afresh: it no longer absorbs duplicates.
        slot = dedup_slot(record.namespace, record.dedup_key)
        if state.by_dedup.get(slot) == record.memory_id:
            del state.by_dedup[slot]

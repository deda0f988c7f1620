"""The write path's decisions for a batch of new texts, as events.

``check_items`` turns the caller's items into checked dicts (or raises InvalidInputError naming
the item). ``decide`` is a pure function of the projections, the checked items, the content
about to be stored (vectors), the time and the config: for each item it runs the gate (exact
duplicate: reinforce), the kind classifier, the valid-until inference for plans, importance
(novelty, arousal, reward, attention) with flashbulb memories, and working-memory admission and
eviction per session. It returns the events with their evidence; the engine appends them in one
transaction. Nothing here reads the clock or the disk.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, cast

import numpy as np

from eventmem import validation
from eventmem.blas import single_thread
from eventmem.config import Config
from eventmem.content import Content
from eventmem.errors import InvalidInputError
from eventmem.events import (
    Event,
    MemoryIngested,
    MemoryKind,
    MemoryReinforced,
    TierChange,
    TierChanged,
)
from eventmem.log import Head
from eventmem.policies import classify, gate, importance, tiers, timebound
from eventmem.policies.decay import progress, stability_after_access
from eventmem.results import Action
from eventmem.text import content_hash, dedup_key
from projections import Projections
from projections.state import MemoryRecord, dedup_slot, working_key

ITEM_FIELDS = frozenset({
    "text", "namespace", "kind", "source", "importance", "confidence", "valid_from",
    "valid_until", "pinned", "immutable", "tags", "refs", "session",
})
IMPORTANCE_CHANNELS = ("novelty", "arousal", "reward", "attention")  # the event's tuple order


class Decided(NamedTuple):
    events: list[Event]
    actions: list[tuple[str, Action]]  # (memory id, action) per item, in item order
    texts: dict[str, str]  # content hash -> text of the memories created


def check_items(items: Iterable[str | Mapping[str, Any]], namespace: str,
                config: Config) -> list[dict[str, Any]]:
    """Checked items; a bare text only has its text checked (its options are the defaults)."""
    plain = {
        "namespace": validation.namespace(namespace, config), "kind": None, "source": "user",
        "importance": None, "confidence": 1.0, "valid_from": None, "valid_until": None,
        "pinned": False, "immutable": False, "tags": (), "refs": (), "session": None,
    }
    checked = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, str):
                checked.append({**plain, "text": validation.text(item, config)})
            else:
                checked.append(_check_mapping(index, item, namespace, config))
        except InvalidInputError as exc:
            raise InvalidInputError(f"item {index}: {exc}" if index else str(exc)) from None
    return checked


def _check_mapping(index: int, raw: Any, default_ns: str, config: Config) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"expected a str or a mapping, got {type(raw).__name__}")
    unknown = set(raw) - ITEM_FIELDS
    if unknown:
        raise InvalidInputError(f"unknown fields {sorted(unknown)}")
    valid_from, valid_until = validation.interval(raw.get("valid_from"), raw.get("valid_until"))
    weight = raw.get("importance")
    session = raw.get("session")
    return {
        "text": validation.text(raw.get("text"), config),
        # Only a missing/None namespace means the default: "" or 0 is an error, never a silent
        # write into another tenant's "default" namespace.
        "namespace": validation.namespace(
            default_ns if raw.get("namespace") is None else raw["namespace"], config),
        "kind": validation.kind(raw.get("kind")),
        "source": validation.actor(raw.get("source", "user")),
        "importance": None if weight is None else validation.unit_float(weight, "importance"),
        "confidence": validation.unit_float(raw.get("confidence", 1.0), "confidence"),
        "valid_from": valid_from,
        "valid_until": valid_until,
        "pinned": validation.flag(raw.get("pinned", False), "pinned"),
        "immutable": validation.flag(raw.get("immutable", False), "immutable"),
        "tags": validation.labels(raw.get("tags", ()), "tags"),
        "refs": validation.labels(raw.get("refs", ()), "refs"),
        "session": None if session is None else validation.label(session, "session"),
    }


def decide(views: Projections, items: list[dict[str, Any]], contents: Mapping[str, Content],
           *, at: int, head: Head, config: Config) -> Decided:
    """The events that record what each item means (see the module docstring)."""
    memories = views.state.memories
    events: list[Event] = []
    actions: list[tuple[str, Action]] = []
    texts: dict[str, str] = {}
    pending: dict[str, str] = {}  # dedup slot -> id created earlier in this batch
    new_ids: set[str] = set()
    new_records: list[MemoryRecord] = []  # as the fold will make them (working-memory eviction)
    neighbours = _Neighbours(views, items, contents, config.novelty_window)
    for i, item in enumerate(items):
        text, ns = item["text"], item["namespace"]
        key = dedup_key(text)
        slot = dedup_slot(ns, key)
        chash = content_hash(text)
        decision = gate.decide(views.state.by_dedup.get(slot) or pending.get(slot))
        if decision.action == "reinforce":
            assert decision.neighbour is not None
            target = memories.get(decision.neighbour)
            events.append(MemoryReinforced(
                at=at, namespace=ns, actor=item["source"], memory_id=decision.neighbour,
                content_hash=chash, similarity=decision.similarity, rule=decision.rule,
                policy=decision.policy,
                stability=None if target is None else stability_after_access(target, at,
                                                                             config.decay)))
            actions.append((decision.neighbour, "reinforced"))
            continue
        memory_id = _new_memory_id(head, i, memories, new_ids)
        new_ids.add(memory_id)
        pending[slot] = memory_id
        texts[chash] = text
        event = _ingested(item, memory_id, chash, key, decision, neighbours.of(i, memories),
                          at=at, config=config)
        events.append(event)
        actions.append((memory_id, "created"))
        new_records.append(_provisional_record(event, head.seq + len(events)))
    events += _working_evictions(views, new_records, at, config)
    return Decided(events, actions, texts)


def _ingested(item: dict[str, Any], memory_id: str, chash: str, key: str,
              decision: gate.GateDecision, near: _Near, *, at: int,
              config: Config) -> MemoryIngested:
    text = item["text"]
    kind, kind_rule = (item["kind"], "caller") if item["kind"] else classify.classify(text)
    if kind_rule == classify.DEFAULT_RULE:
        kind = config.default_kind
    valid_until, until_rule = item["valid_until"], ""
    if valid_until is None and kind == "plan":  # only plans: "went to the gym today" stays true
        inferred = timebound.infer_valid_until(text, at)
        if inferred is not None:
            valid_until, until_rule = inferred
    scored = importance.score(text, neighbour_similarity=near.similarity,
                              neighbour_utilities=near.utilities,
                              session_similarity=near.session_similarity,
                              params=config.importance)
    weight = scored.effective if item["importance"] is None else item["importance"]
    stability = config.base_stability_days[kind]
    pinned = item["pinned"]
    if scored.flashbulb:  # a high-arousal memory: kept, important, slow to fade
        pinned = True
        weight = max(weight, importance.FLASHBULB_MIN_IMPORTANCE)
        stability *= config.importance.flashbulb_stability_boost
    return MemoryIngested(
        at=at, namespace=item["namespace"], actor=item["source"], memory_id=memory_id,
        content_hash=chash, dedup_key=key, kind=cast(MemoryKind, kind), kind_rule=kind_rule,
        source=item["source"], stability=stability, importance=weight,
        confidence=item["confidence"], valid_from=item["valid_from"], valid_until=valid_until,
        pinned=pinned, immutable=item["immutable"], tags=item["tags"], refs=item["refs"],
        rule=decision.rule, policy=decision.policy,
        tier="working" if item["session"] else "episodic", session=item["session"],
        priority=scored.priority, flashbulb=scored.flashbulb,
        importance_channels=tuple(scored.channels[c] for c in IMPORTANCE_CHANNELS),
        valid_until_rule=until_rule)


class _Near(NamedTuple):
    similarity: float | None  # to the nearest recent memory of the namespace
    utilities: list[float]  # of the nearest memory (the reward channel)
    session_similarity: float | None  # to the nearest memory of the same session


class _Neighbours:
    """Each new item's nearest neighbours among the most recent ``window`` memories of its
    namespace: one matrix product per namespace for the whole batch, so the cost of a write
    stays flat as the store grows."""

    def __init__(self, views: Projections, items: list[dict[str, Any]],
                 contents: Mapping[str, Content], window: int) -> None:
        self._items = items
        # item -> (similarities to the window, its nearest row, the window's ids and sessions)
        self._sims: dict[int, tuple[np.ndarray, int, list[str], np.ndarray | None]] = {}
        by_ns: dict[str, list[int]] = {}
        for i, item in enumerate(items):
            by_ns.setdefault(item["namespace"], []).append(i)
        for ns, rows in by_ns.items():
            space = views.vectors.spaces.get(ns)
            if space is None or space.count == 0 or window <= 0:
                continue
            start = max(0, space.count - window)
            recent = space.matrix[start:space.count]
            queries = np.stack([np.frombuffer(contents[content_hash(items[i]["text"])].vector
                                              or b"", dtype=np.float32) for i in rows])
            if queries.shape[1] != recent.shape[1]:
                continue
            with single_thread():
                sims = queries @ recent.T
            ids = space.ids[start:space.count]
            sessions = None
            if any(items[i]["session"] is not None for i in rows):
                sessions = np.array([views.state.memories[mid].session or "" for mid in ids],
                                    dtype=object)
            nearest = np.argmax(sims, axis=1)  # first maximum: ties go to the older memory
            for row, i in enumerate(rows):
                self._sims[i] = (sims[row], int(nearest[row]), ids, sessions)

    def of(self, i: int, memories: Mapping[str, MemoryRecord]) -> _Near:
        found = self._sims.get(i)
        if found is None:
            return _Near(None, [], None)
        sims, nearest, ids, sessions = found
        session = self._items[i]["session"]
        same = sims[sessions == session] if session is not None and sessions is not None else []
        return _Near(float(sims[nearest]), [memories[ids[nearest]].utility],
                     float(np.max(same)) if len(same) else None)


def _provisional_record(event: MemoryIngested, seq: int) -> MemoryRecord:
    """The record the state fold will create for ``event`` (for working-memory decisions)."""
    record = MemoryRecord(
        event.memory_id, event.namespace, event.content_hash, event.dedup_key, event.kind,
        event.kind_rule, event.source, event.stability, event.importance, event.confidence,
        event.pinned, event.immutable, event.valid_from, event.valid_until, event.tags,
        event.refs, event.at, seq, event.at, seq)
    record.tier, record.session = event.tier, event.session
    return record


def _working_evictions(views: Projections, new: list[MemoryRecord], at: int,
                       config: Config) -> list[TierChanged]:
    """Sessions over capacity lose their lowest-scoring working memories to episodic (one
    event per namespace)."""
    sessions = sorted({(r.namespace, r.session or "") for r in new if r.tier == "working"})
    changes: dict[str, list[TierChange]] = {}
    records = {r.memory_id: r for r in new}
    for ns, session in sessions:
        members = [views.state.memories[mid]
                   for mid in views.state.working.get(working_key(ns, session), ())]
        members += [r for r in new if r.namespace == ns and r.session == session
                    and r.tier == "working"]
        for mid in tiers.working_evictions(members, config.tiers.working_capacity, at,
                                           config.tiers):
            record = records.get(mid) or views.state.memories[mid]
            changes.setdefault(ns, []).append(TierChange(
                memory_id=mid, from_tier="working", to_tier="episodic", reason="working_capacity",
                decay_done=progress(record, at, config.decay)))
    return [TierChanged(at=at, namespace=ns, now=at, changes=tuple(found))
            for ns, found in sorted(changes.items())]


def _new_memory_id(head: Head, index: int, memories: Mapping[str, Any], taken: set[str]) -> str:
    """A new id derived from the chain head and the position in the batch: unique (the head
    changes with every append) and reproducible, so tests and replays see the same ids."""
    salt = 0
    while True:
        digest = hashlib.blake2b(head.hash + f"{index}:{salt}".encode(), digest_size=8).hexdigest()
        memory_id = f"mem_{digest}"
        if memory_id not in memories and memory_id not in taken:
            return memory_id
        salt += 1

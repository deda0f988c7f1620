"""The events that create a memory: what a new memory's ``memory.ingested`` records, and the
working-memory evictions its arrival causes.

:func:`ingested` settles everything a created memory gets beyond the gate's decision: its kind
(given, or classified), valid-until for plans, importance from its four channels, flashbulb
status, and what a merged or updated memory inherits from the one it replaces. The write path
(:mod:`eventmem.ingest`) and a conflict settled later by ``merge`` (:mod:`eventmem.conflicts`)
build their memories with it. Pure: nothing here reads the clock or the store.
"""

from __future__ import annotations

from typing import Any, cast

from eventmem.config import Config
from eventmem.events import (
    MemoryIngested,
    MemoryKind,
    MemoryLink,
    TierChange,
    TierChanged,
)
from eventmem.neighbours import Near
from eventmem.policies import classify, extract, gate, importance, tiers, timebound
from eventmem.policies.decay import progress
from eventmem.text import content_hash, dedup_key
from projections import Projections
from projections.state import MemoryRecord, working_key

IMPORTANCE_CHANNELS = ("novelty", "arousal", "reward", "attention")  # the event's tuple order


def ingested_event(item: dict[str, Any], text: str, memory_id: str, *, at: int, config: Config,
                   derived_from: tuple[str, ...], rule: str) -> MemoryIngested:
    """A memory the engine synthesizes outside the gate (a conflict settled by ``merge``)."""
    return ingested(item, text, memory_id, content_hash(text), dedup_key(text),
                     gate.GateDecision("merge", rule), Near([], None, None), (),
                     derived_from=derived_from, input_hash=None, rule=rule, inherited=None,
                     reward=None, at=at, config=config)


def ingested(item: dict[str, Any], text: str, memory_id: str, chash: str, key: str,
              decision: gate.GateDecision, near: Near, links: tuple[MemoryLink, ...], *,
              derived_from: tuple[str, ...], input_hash: str | None, rule: str | None,
              inherited: dict[str, Any] | None, reward: float | None, at: int,
              config: Config) -> MemoryIngested:
    kind, kind_rule = (item["kind"], "caller") if item["kind"] else classify.classify(text)
    if kind_rule == classify.DEFAULT_RULE:
        kind = config.default_kind
    if inherited is not None and not item["kind"]:
        kind, kind_rule = inherited["kind"], "inherited"
    valid_from = item["valid_from"]
    valid_until, until_rule = item["valid_until"], ""
    if valid_until is None and kind == "plan":  # only plans: "went to the gym today" stays true
        inferred = timebound.infer_valid_until(text, at)
        if inferred is not None:
            valid_until, until_rule = inferred
    best = near.window_best
    scored = importance.score(text, neighbour_similarity=None if best is None else best[1],
                              neighbour_utilities=[] if reward is None else [reward],
                              session_similarity=near.session_similarity,
                              params=config.importance)
    weight = scored.effective if item["importance"] is None else item["importance"]
    stability = config.base_stability_days[kind]
    pinned, tags, refs = item["pinned"], item["tags"], item["refs"]
    if inherited is not None:  # a new version keeps what its predecessor had earned
        weight = max(weight, inherited["importance"])
        stability = max(stability, inherited["stability"])
        pinned = pinned or inherited["pinned"]
        tags = union(inherited["tags"], tags)
        refs = union(inherited["refs"], refs)
        if valid_from is None and decision.action == "merge":
            valid_from = inherited["valid_from"]
    if scored.flashbulb:  # a high-arousal memory: kept, important, slow to fade
        pinned = True
        weight = max(weight, importance.FLASHBULB_MIN_IMPORTANCE)
        stability *= config.importance.flashbulb_stability_boost
    return MemoryIngested(
        at=at, namespace=item["namespace"], actor=item["source"], memory_id=memory_id,
        content_hash=chash, dedup_key=key, kind=cast(MemoryKind, kind), kind_rule=kind_rule,
        source=item["source"], stability=stability, importance=weight,
        confidence=item["confidence"], valid_from=valid_from, valid_until=valid_until,
        pinned=pinned, immutable=item["immutable"], tags=tags, refs=refs,
        rule=rule or decision.rule, policy=decision.policy,
        tier="working" if item["session"] else "episodic", session=item["session"],
        priority=scored.priority, flashbulb=scored.flashbulb,
        importance_channels=tuple(scored.channels[c] for c in IMPORTANCE_CHANNELS),
        valid_until_rule=until_rule, neighbour=decision.neighbour,
        similarity=None if decision.neighbour is None else round(decision.similarity, 6),
        derived_from=derived_from, input_hash=input_hash, links=links,
        extractor=extract.EXTRACTOR_VERSION)


def union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    return first + tuple(x for x in second if x not in first)


def provisional_record(event: MemoryIngested, seq: int) -> MemoryRecord:
    """The record the state fold will create for ``event`` (for working-memory decisions)."""
    record = MemoryRecord(
        event.memory_id, event.namespace, event.content_hash, event.dedup_key, event.kind,
        event.kind_rule, event.source, event.stability, event.importance, event.confidence,
        event.pinned, event.immutable, event.valid_from, event.valid_until, event.tags,
        event.refs, event.at, seq, event.at, seq)
    record.tier, record.session = event.tier, event.session
    return record


def working_evictions(views: Projections, new: list[MemoryRecord], retired: set[str], at: int,
                       config: Config) -> list[TierChanged]:
    """Sessions over capacity lose their lowest-scoring working memories to episodic (one
    event per namespace). Memories the batch superseded have left their session already."""
    new = [r for r in new if r.memory_id not in retired]
    sessions = sorted({(r.namespace, r.session or "") for r in new if r.tier == "working"})
    changes: dict[str, list[TierChange]] = {}
    records = {r.memory_id: r for r in new}
    for ns, session in sessions:
        members = [views.state.memories[mid]
                   for mid in views.state.working.get(working_key(ns, session), ())
                   if mid not in retired]
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

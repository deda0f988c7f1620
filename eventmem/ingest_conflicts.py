"""A write batch's contradictions: the neighbour a new text contradicts, and the conflict recorded.

:func:`contradiction` finds, for an item, the first of its nearest memories (or the latest naming
the same entities) whose claims it contradicts over an overlapping valid time
(:mod:`eventmem.policies.conflict` compares the claims); the gate (:mod:`eventmem.policies.gate`)
then decides it is a conflict. :func:`settle` records one: the new memory, ``conflict.flagged``
with its evidence, and the settlement by the item's strategy (``conflict.resolved`` and the
loser's supersession), or the conflict left open. Both work on a :class:`eventmem.ingest.Batch`,
whose later items see what they record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from eventmem.content import Content
from eventmem.events import ConflictEvidence, ConflictFlagged, ConflictResolved
from eventmem.neighbours import Near, eligible
from eventmem.policies import conflict, gate, merge
from eventmem.results import Action
from eventmem.text import content_hash

if TYPE_CHECKING:
    from eventmem.ingest import Batch


def contradiction(batch: Batch, item: dict[str, Any], near: Near
                  ) -> tuple[gate.Neighbour | None, conflict.Contradiction | None]:
    """The first of the nearest memories (similar enough to be about the same thing) that
    the new text contradicts, and the contradiction's evidence. Facts whose valid times do
    not overlap never conflict: "lived in London until March" and "lives in Berlin since
    March" are history, not a contradiction."""
    new_claims = _claims_in(batch, item["text"])
    if not new_claims.items:  # most texts state nothing comparable: no lookups
        return None, None
    interval = (item["valid_from"], item["valid_until"])
    for mid, sim in _candidates(batch, item, near):
        if mid in batch.retired or not _overlap(interval, _interval(batch, mid)):
            continue
        found = conflict.detect(new_claims, _claims_of(batch, mid))
        if found is not None:
            return batch.neighbour((mid, sim)), found
    return None, None


def _candidates(batch: Batch, item: dict[str, Any], near: Near) -> list[tuple[str, float]]:
    """The memories a contradiction is looked for in: the nearest few similar enough to be
    about the same thing, then the latest few naming one of the same entities (a
    contradiction is about a subject, and "Bob lives in Oslo" / "Bob moved to Paris"
    share little else), most similar first."""
    found = {mid: sim for mid, sim in near.ranked[: batch.params.conflict_neighbours]
             if sim >= batch.params.conflict_similarity}
    vector = batch.queries_by_text[item["text"]].vector
    for entity in batch.extract(item["text"])[0]:
        for mid in batch.memories_naming(item["namespace"], entity.key,
                                        batch.params.conflict_neighbours):
            if mid not in found and mid not in batch.retired \
                    and eligible(batch.views.state.memories.get(mid)):
                found[mid] = float(batch.vector_of(mid) @ vector)
    return sorted(found.items(), key=lambda pair: (-pair[1], pair[0]))


def _interval(batch: Batch, memory_id: str) -> tuple[int | None, int | None]:
    record = batch.views.state.memories.get(memory_id)
    source: Any = record if record is not None else batch.created[memory_id]
    return source.valid_from, source.valid_until


def _claims_of(batch: Batch, memory_id: str) -> conflict.Claims:
    claims = batch.claims_by_id.get(memory_id)
    if claims is None:  # a stored text costs a read: once per batch
        claims = batch.claims_by_id[memory_id] = _claims_in(batch, batch.text_of(memory_id))
    return claims


def _claims_in(batch: Batch, text: str) -> conflict.Claims:
    claims = batch.claims.get(text)
    if claims is None:
        claims = batch.claims[text] = conflict.claims(text)
    return claims


def settle(batch: Batch, i: int, item: dict[str, Any], chash: str,
           decision: gate.GateDecision, near: Near, found: conflict.Contradiction) -> None:
    """Record a contradiction the gate found: the new memory, the conflict flagged with its
    evidence, and its settlement by the item's strategy (the loser superseded), or left open."""
    old = decision.neighbour
    assert old is not None
    strategy = item["on_conflict"] or batch.params.strategy
    old_from, old_immutable = batch.valid_from_and_immutable(old)
    new_from = item["valid_from"] or batch.at
    resolution = gate.resolve(strategy, existing_valid_from=old_from,
                              new_valid_from=new_from, existing_immutable=old_immutable)
    conflict_id = batch.new_id("cf", i)
    # The new claim is dated: a winner is true from where the old fact ends, not since
    # forever; a loser's interval is closed below (empty when it was refused outright).
    starts = new_from
    if resolution.winner == "merged":
        text = merge.conflict_text(batch.text_of(old), item["text"])
        new = batch.create(i, item, text, chash, decision, near, derived_from=old,
                           rule=resolution.rule, valid_from=starts)
    else:
        new = batch.create(i, item, item["text"], chash, decision, near,
                           rule=resolution.rule, valid_from=starts)
    ns, source = item["namespace"], item["source"]
    first = len(batch.events) - 1  # the new memory's ingest records the decision
    # The evidence is words of the two texts: content, stored beside them, not in the event.
    evidence = evidence_text(found.subject, found.attribute, found.old_value, found.new_value)
    evidence_hash = content_hash(evidence)
    batch.stored.setdefault(evidence_hash, Content(evidence))
    batch.events.append(ConflictFlagged(
        at=batch.at, namespace=ns, actor=source, conflict_id=conflict_id, memory_id=old,
        other_id=new, content_hash=evidence_hash, rule=found.rule,
        similarity=decision.similarity, strategy=strategy, policy=gate.GATE_VERSION))
    if resolution.winner == "none":
        batch.outcome(new, "created", resolution.rule, neighbour=old,
                      similarity=decision.similarity, conflict_id=conflict_id, event=first)
        return
    winner, loser = (old, new) if resolution.winner == "existing" else (new, old)
    batch.events.append(ConflictResolved(
        at=batch.at, namespace=ns, actor=source, conflict_id=conflict_id, strategy=strategy,
        winner=winner, loser=loser, policy=gate.GATE_VERSION))
    if resolution.winner == "existing":
        # A late report of an older fact was true until the existing one began; a refused
        # claim gets an empty valid interval: it was never the store's belief.
        until = old_from if new_from < old_from else new_from
        batch.supersede(new, old, until, resolution.rule, decision.similarity, item,
                        conflict_id)
        batch.outcome(old, "skipped", resolution.rule, neighbour=old,
                      similarity=decision.similarity, conflict_id=conflict_id, event=first)
    else:
        batch.supersede(old, new, new_from, resolution.rule, decision.similarity, item,
                        conflict_id)
        action: Action = "merged" if resolution.winner == "merged" else "superseded"
        batch.outcome(new, action, resolution.rule, neighbour=old,
                      similarity=decision.similarity, conflict_id=conflict_id, event=first)


def evidence_text(subject: str, attribute: str, old_value: str, new_value: str) -> str:
    """A conflict's evidence as stored (by its content hash) beside ``conflict.flagged``."""
    return msgspec.json.encode(ConflictEvidence(subject=subject, attribute=attribute,
                                                old_value=old_value, new_value=new_value)).decode()


def _overlap(a: tuple[int | None, int | None], b: tuple[int | None, int | None]) -> bool:
    """Whether two valid intervals [from, until) share a moment (None: unbounded)."""
    (a_from, a_until), (b_from, b_until) = a, b
    return ((a_from is None or b_until is None or a_from < b_until)
            and (b_from is None or a_until is None or b_from < a_until))

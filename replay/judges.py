"""The recorded answers of pluggable judges, given back to an audit's re-run of a write.

A judge other than the rules (:mod:`eventmem.judges`) is an input to the write path, like an
LLM summary is to the dream cycle: the audit cannot re-ask it (it may be gone, or answer
otherwise today), and re-deciding with the rules would report its every decision. So where a
write batch names a judge (``judges`` on its items' decisions), the audit re-runs the batch
with a stand-in that gives back what the events recorded, and checks that the decisions follow
from those answers:

* contradiction: the conflicts the batch flagged (``conflict.flagged`` with the judge's id: the
  pair of texts, the evidence, the rule and the confidence); every other pair it was asked
  about, it had answered "no contradiction" (nothing was recorded for it);
* links: the links recorded on each new memory (the same-entity ones follow from the extraction
  and are re-derived);
* facts: nothing to stand in for: the extraction is stored with the text, and the re-run reads
  it from there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from eventmem.events import (
    ConflictEvidence,
    ConflictFlagged,
    Event,
    JudgeRef,
    MemoryIngested,
    MemoryReinforced,
    MemorySkipped,
)
from eventmem.policies.conflict.judge import (
    NO_CONTRADICTION,
    ContradictionAnswer,
    ContradictionQuestion,
)
from eventmem.policies.extract.judge import FactAnswer, FactQuestion
from eventmem.policies.links import JUDGED_RELATIONS, JudgedLink, LinkAnswer, LinkQuestion

_EVIDENCE = msgspec.json.Decoder(ConflictEvidence)


class ReplayedContradictions:
    """Gives back the recorded contradiction for the same pair of texts; no contradiction for
    any other pair."""

    def __init__(self, judge_id: str,
                 recorded: dict[tuple[str, str], ContradictionAnswer]) -> None:
        self.judge_id = judge_id
        self._recorded = recorded

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        """The recorded answer for this pair."""
        return self._recorded.get((question.new_text, question.old_text), NO_CONTRADICTION)


class ReplayedLinks:
    """Gives back the links recorded on the memory of the same text, to the candidates asked
    about."""

    def __init__(self, judge_id: str, recorded: dict[str, tuple[JudgedLink, ...]]) -> None:
        self.judge_id = judge_id
        self._recorded = recorded

    def links(self, question: LinkQuestion) -> LinkAnswer:
        """The recorded links of this text."""
        return LinkAnswer(links=self._recorded.get(question.text, ()))


class RecordedExtractor:
    """Names the fact extractor a batch recorded; never asked: each text's extraction was
    stored with it when the batch was written, and the re-run reads it from there."""

    def __init__(self, judge_id: str) -> None:
        self.judge_id = judge_id

    def facts(self, question: FactQuestion) -> FactAnswer:
        """Refuses: the answer is the stored extraction, not a new one."""
        raise ValueError(f"the extraction by {self.judge_id} was stored with the text; an "
                         "audit never asks the extractor again")


def judges_named(events: Sequence[Event]) -> dict[str, str]:
    """The judge id by role that a write batch's decisions name (empty: the rules decided)."""
    found: dict[str, str] = {}
    for event in events:
        if isinstance(event, MemoryIngested | MemoryReinforced | MemorySkipped):
            refs: tuple[JudgeRef, ...] = event.judges
            for ref in refs:
                found.setdefault(ref.role, ref.judge)
    return found


def replayed_contradictions(items: Sequence[Sequence[Event]], inputs: Sequence[str],
                            text_of: Callable[[str], str | None],
                            evidence_of: Callable[[str], str | None], judge_id: str
                            ) -> ReplayedContradictions:
    """The stand-in for a batch's contradiction judge: each item's flagged conflict (found by
    the judge) under its input text (``inputs``, in item order) and the contradicted memory's
    text (``text_of``: a memory id's text; ``evidence_of``: a content hash's)."""
    recorded: dict[tuple[str, str], ContradictionAnswer] = {}
    for item, new_text in zip(items, inputs, strict=True):
        for event in item:
            if not isinstance(event, ConflictFlagged) or not event.judge:
                continue
            old_text, evidence = text_of(event.memory_id), evidence_of(event.content_hash)
            if old_text is None or evidence is None:
                continue  # content gone: the re-run differs, and the audit says why
            said = _EVIDENCE.decode(evidence)
            recorded[new_text, old_text] = ContradictionAnswer(
                contradicts=True, subject=said.subject, attribute=said.attribute,
                old_value=said.old_value, new_value=said.new_value, rule=event.rule,
                confidence=1.0 if event.confidence is None else event.confidence)
    return ReplayedContradictions(judge_id, recorded)


def replayed_links(events: Sequence[Event], text_of: Callable[[str], str | None],
                   judge_id: str) -> ReplayedLinks:
    """The stand-in for a batch's link judge: the judged links of each memory it made, under
    the memory's text (``text_of``: a content hash's text)."""
    recorded: dict[str, tuple[JudgedLink, ...]] = {}
    for event in events:
        if not isinstance(event, MemoryIngested):
            continue
        text = text_of(event.content_hash)
        if text is None or text in recorded:
            continue
        recorded[text] = tuple(
            JudgedLink(memory_id=link.target, relation=link.relation, weight=link.weight)
            for link in event.links if link.relation in JUDGED_RELATIONS)
    return ReplayedLinks(judge_id, recorded)

"""The contradiction judge: does a new text contradict an existing one?

The write path asks it about each new text and the few memories it may be about
(:func:`eventmem.write.batch.contradiction`); a contradiction found becomes a conflict, settled by
the item's strategy. :data:`RULES`, the default, is the claim comparison of
:mod:`eventmem.policies.conflict.detect` (no model). Another judge (an LLM: see
:mod:`eventmem.judges.openai_compatible`) answers the same question; its answer is recorded in
``conflict.flagged`` (the evidence, the rule it names, its id and confidence), so replay never
asks it again, and audit checks the decision against that answer instead of re-asking.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import msgspec

from eventmem.policies.conflict.detect import CONFLICT_VERSION, detect_texts

__all__ = ["RULES", "ContradictionAnswer", "ContradictionJudge", "ContradictionQuestion",
           "RuleContradictionJudge"]


class ContradictionQuestion(msgspec.Struct, frozen=True, kw_only=True):
    """A new text and an existing memory's text that may be about the same thing."""

    new_text: str
    old_text: str


class ContradictionAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The judge's answer: whether the new text contradicts the old, and if so the evidence
    (whose, which attribute, the value each text gives) and a rule naming why."""

    contradicts: bool
    subject: str = ""
    attribute: str = ""
    old_value: str = ""
    new_value: str = ""
    rule: str = "contradiction"
    confidence: float = 1.0


NO_CONTRADICTION = ContradictionAnswer(contradicts=False)


@runtime_checkable
class ContradictionJudge(Protocol):
    """Decides whether a new text contradicts an existing one. ``judge_id`` names the method,
    model and version (recorded with every conflict it finds)."""

    judge_id: str

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        """The answer for one pair of texts."""
        ...


class RuleContradictionJudge:
    """The default: the claims of the two texts compared by rules
    (:func:`eventmem.policies.conflict.detect.detect_texts`). The write path runs the same
    comparison on claims it parses once per batch, which is why it is recognised by identity
    (:func:`is_rules`) rather than called through this method."""

    judge_id = CONFLICT_VERSION

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        """The first contradiction the rules find, or none."""
        found = detect_texts(question.new_text, question.old_text)
        if found is None:
            return NO_CONTRADICTION
        return ContradictionAnswer(contradicts=True, subject=found.subject,
                                   attribute=found.attribute, old_value=found.old_value,
                                   new_value=found.new_value, rule=found.rule)


RULES = RuleContradictionJudge()


def is_rules(judge: ContradictionJudge | None) -> bool:
    """Whether ``judge`` decides as the rules do (None is the default)."""
    return judge is None or isinstance(judge, RuleContradictionJudge)

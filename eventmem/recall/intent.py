"""The intent classifier: what kind of question a recall asks (factual, temporal, causal,
entity, preference, todo or general), which decides how it searches (:data:`plan.ROUTES`).

:data:`RULES`, the default, is the question's form read by rules (:func:`plan.classify`).
Another classifier (an LLM: :mod:`eventmem.judges.openai_compatible`) answers the same question;
:func:`plan.plan` uses its answer when it names a known intent, the rules' otherwise. The
engine records a non-default classifier's answer and id in the recall's ``memory.recalled``
event, so "what did the agent recall at T, and why" stays answerable without asking it again.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import msgspec

from eventmem.recall import plan as query_plan
from eventmem.text.timeexpr import find_time

__all__ = ["RULES", "IntentAnswer", "IntentClassifier", "IntentQuestion", "RuleIntentClassifier"]

INTENT_VERSION = "intent-1"


class IntentQuestion(msgspec.Struct, frozen=True, kw_only=True):
    """A recall's query, and when it is asked (epoch microseconds: "last May" depends on it)."""

    query: str
    now: int


class IntentAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The classifier's answer: one of :data:`eventmem.recall.plan.INTENTS`."""

    intent: str
    confidence: float = 1.0


@runtime_checkable
class IntentClassifier(Protocol):
    """Decides a query's intent. ``judge_id`` names the method, model and version (recorded
    with each recall it classified)."""

    judge_id: str

    def intent(self, question: IntentQuestion) -> IntentAnswer:
        """The intent of one query."""
        ...


class RuleIntentClassifier:
    """The default: the rules of :func:`eventmem.recall.plan.classify` on the query and the
    time it names. The query plan applies them inline (it has found the time already), which is
    why it is recognised by identity (:func:`is_rules`)."""

    judge_id = INTENT_VERSION

    def intent(self, question: IntentQuestion) -> IntentAnswer:
        """The intent the rules give."""
        return IntentAnswer(intent=query_plan.classify(
            question.query, find_time(question.query, question.now)))


RULES = RuleIntentClassifier()


def is_rules(classifier: IntentClassifier | None) -> bool:
    """Whether ``classifier`` decides as the rules do (None is the default)."""
    return classifier is None or isinstance(classifier, RuleIntentClassifier)

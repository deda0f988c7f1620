"""Pluggable judges: the decisions a model may make in place of the rules, each recorded.

Four judges, each a :class:`typing.Protocol` beside its deterministic default (the rules the
engine has always applied), with small msgspec Structs in and out and a ``judge_id``:

* contradiction: ``ContradictionJudge``, default ``RuleContradictionJudge``
  (:mod:`eventmem.policies.conflict.judge`); its answer is recorded in ``conflict.flagged``
  (judge, confidence, the evidence and rule);
* facts: ``FactExtractor``, default ``RuleFactExtractor`` (:mod:`eventmem.policies.extract.judge`);
  its answer is the text's stored extraction, named by ``memory.ingested.extractor``;
* links: ``LinkJudge``, default ``RuleLinkJudge`` (:mod:`eventmem.policies.links`); its answer
  is ``memory.ingested.links``;
* intent: ``IntentClassifier``, default ``RuleIntentClassifier`` (:mod:`eventmem.recall.intent`);
  its answer is recorded in ``memory.recalled`` (intent, intent_judge).

Give them to ``eventmem.open(path, judges=Judges(...))``; a role left None is decided by the
rules, and with every role None the log is byte for byte what it was before judges existed. A
write decided with a non-default judge names it on each item's decision (``judges``), so replay
folds the recorded answers without asking any judge, and audit re-derives the decision with the
recorded answers in the judge's place (it checks that the decision follows from them, and
re-derives everything else with the rules). A judge that raises fails the call before anything
is appended. :mod:`eventmem.judges.openai_compatible` adapts any OpenAI-compatible
chat-completions endpoint to all four.
"""

from __future__ import annotations

from dataclasses import dataclass

from eventmem.policies.conflict.judge import ContradictionJudge
from eventmem.policies.extract.judge import FactExtractor
from eventmem.policies.links import LinkJudge
from eventmem.recall.intent import IntentClassifier

__all__ = ["Judges"]


@dataclass(frozen=True, kw_only=True)
class Judges:
    """The pluggable judges of an engine, by role; None: the rules decide."""

    contradiction: ContradictionJudge | None = None
    facts: FactExtractor | None = None
    links: LinkJudge | None = None
    intent: IntentClassifier | None = None

    def check(self) -> None:
        """Raise TypeError naming the first judge that lacks its method or a str judge_id."""
        for role, judge, method in (("contradiction", self.contradiction, "contradiction"),
                                    ("facts", self.facts, "facts"),
                                    ("links", self.links, "links"),
                                    ("intent", self.intent, "intent")):
            if judge is None:
                continue
            if not callable(getattr(judge, method, None)) \
                    or not isinstance(getattr(judge, "judge_id", None), str) \
                    or not judge.judge_id:
                raise TypeError(f"the {role} judge must have a {method}(question) method and a "
                                f"non-empty str judge_id, got {type(judge).__name__}")


NO_JUDGES = Judges()

"""The pluggable intent classifier (eventmem.recall.intent): its answer decides how a recall
searches, and the recall's ``memory.recalled`` event records it with the classifier's id."""

from __future__ import annotations

import pytest

import eventmem
from eventmem import IntentAnswer, IntentQuestion, Judges
from eventmem.config import Config
from eventmem.events import MemoryRecalled
from eventmem.recall.plan import INTENTS, classify, plan
from eventmem.text.timeexpr import find_time


class Always:
    """A fake classifier: every query has the intent it was made with."""

    def __init__(self, intent: str) -> None:
        self.judge_id = f"always-{intent}"
        self.answer = intent
        self.asked: list[IntentQuestion] = []

    def intent(self, question: IntentQuestion) -> IntentAnswer:
        self.asked.append(question)
        return IntentAnswer(intent=self.answer)


def recalled(mem: eventmem.Engine) -> list[MemoryRecalled]:
    return [e for _, e in mem.events() if isinstance(e, MemoryRecalled)]


def test_the_classifier_decides_the_intent_and_the_recall_records_it(store_path, clock):
    classifier = Always("temporal")
    with eventmem.open(store_path, clock=clock, config=Config(sync=False),
                       judges=Judges(intent=classifier)) as mem:
        mem.remember("Bob lives in Oslo", namespace="a")
        mem.remember("Bob moved to Paris", namespace="a")
        hits = mem.recall("where did Bob live", namespace="a")
        [event] = recalled(mem)
        assert (event.intent, event.intent_judge) == ("temporal", "always-temporal")
        assert classifier.asked == [IntentQuestion(query="where did Bob live",
                                                   now=event.at)]
        # Temporal routing of a past-tense question also finds the value replaced since; the
        # rules call the question factual, which does not.
        assert len(hits) == 2
        assert mem.audit().ok and mem.verify().ok
    with eventmem.open(store_path.parent / "rules", clock=clock,
                       config=Config(sync=False)) as rules:
        rules.remember("Bob lives in Oslo", namespace="a")
        rules.remember("Bob moved to Paris", namespace="a")
        assert len(rules.recall("where did Bob live", namespace="a")) == 1
        [event] = recalled(rules)
        assert (event.intent, event.intent_judge) == ("", "")


def test_an_unknown_intent_falls_back_to_the_rules(store_path, clock):
    with eventmem.open(store_path, clock=clock, config=Config(sync=False),
                       judges=Judges(intent=Always("gossip"))) as mem:
        mem.remember("Bob lives in Oslo", namespace="a")
        mem.recall("why does Bob live in Oslo", namespace="a")
        [event] = recalled(mem)
        assert (event.intent, event.intent_judge) == ("causal", "always-gossip")


def test_a_greeting_asks_the_classifier_nothing(store_path, clock):
    classifier = Always("factual")
    with eventmem.open(store_path, clock=clock, config=Config(sync=False),
                       judges=Judges(intent=classifier)) as mem:
        assert mem.recall("thanks!", namespace="a") == []
        assert classifier.asked == [] and recalled(mem) == []


@pytest.mark.parametrize("query", ["when did Bob move", "why did Bob move", "who is Bob",
                                   "what does Bob like", "what is on my to do list",
                                   "where did Bob live", "Bob", "what did I do last May"])
def test_the_default_classifier_is_the_plans_rules(query):
    now = 1_735_689_600_000_000
    answer = eventmem.RuleIntentClassifier().intent(IntentQuestion(query=query, now=now))
    assert answer.intent in INTENTS
    assert answer.intent == classify(query, find_time(query, now)) == plan(query, now).intent

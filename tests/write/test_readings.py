"""The write path's remembered readings are the policies' own answers: a memo only saves the
work, it never changes what a decision reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.policies import classify, facts
from eventmem.policies.conflict import detect as conflict
from eventmem.write import readings
from ops.bench.log import generate_texts

# Texts that reach the short-lived kinds classify checks against the facts stated (a plan or a
# context that states a lasting fact), and a sample of the benchmark's chat turns.
STATED = ["Tomorrow I move to Lisbon", "I'm moving to Berlin next week",
          "Today I started working at Globex", "My name is Priya",
          "I'm vegetarian now", "Dentist appointment moved to Tuesday",
          "User lives in Denver", "My friend Jake still lives in Boston."]
TEXTS = STATED + generate_texts(120, seed=3)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(TEXTS), st.sampled_from((classify.CLASSIFY_1, classify.CLASSIFY_2,
                                                classify.CLASSIFY_3, classify.POLICY_VERSION)))
def test_a_remembered_reading_is_the_policy_answer(text: str, policy: str) -> None:
    assert readings.classified(text, policy) == classify.classify(text, policy)
    assert readings.facts_of(text) == facts.read(text)
    assert readings.values_in(text) == facts.values_of(text)
    assert readings.claims_of(text) == conflict.claims(text)


def test_a_reading_made_for_another_process_is_the_remembered_one() -> None:
    for text in TEXTS:
        made = readings.read(text)
        assert made == readings.Reading(readings.classified(text, classify.POLICY_VERSION),
                                        readings.facts_of(text), readings.claims_of(text),
                                        readings.values_in(text))


def test_classify_reads_facts_through_the_reader_it_is_given() -> None:
    asked: list[str] = []

    def reader(text: str) -> tuple[facts.Fact, ...]:
        asked.append(text)
        return facts.read(text)

    for text in STATED:
        assert classify.classify(text, read_facts=reader) == classify.classify(text)
    assert asked  # a short-lived kind was checked against the facts, through the reader
    assert set(asked) <= set(STATED)

"""The write gate and merge synthesis as pure functions: every tier and action, by example, and
the properties that make them safe to replay and audit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventmem.errors import InvalidInputError
from eventmem.policies import gate, merge
from eventmem.policies.gate import GateParams, Neighbour

TIERED = GateParams()
PE = GateParams(mode="prediction_error")


def decide(sim: float | None, *, params: GateParams = TIERED, adds: bool = True,
           exact: str | None = None, contradicted: Neighbour | None = None,
           immutable: bool = False) -> gate.GateDecision:
    nearest = None if sim is None else Neighbour("mem_old", sim, immutable)
    return gate.decide(exact, nearest, adds_information=adds, contradicted=contradicted,
                       params=params)


@pytest.mark.parametrize(("sim", "adds", "action", "rule"), [
    (None, True, "create", "new"),
    (0.2, True, "create", "new"),
    (0.849, True, "create", "new"),
    (0.85, True, "merge", "near_duplicate_merge"),
    (0.9, False, "skip", "near_duplicate_skip"),
    (0.9499, True, "merge", "near_duplicate_merge"),
    (0.95, True, "reinforce", "semantic_duplicate"),
    (1.0, False, "reinforce", "semantic_duplicate"),
])
def test_tiered_gate_maps_similarity_onto_the_three_tiers(sim, adds, action, rule):
    decision = decide(sim, adds=adds)
    assert (decision.action, decision.rule) == (action, rule)
    if sim is not None:
        assert decision.neighbour == "mem_old" and decision.similarity == sim


@pytest.mark.parametrize(("sim", "action", "rule"), [
    (0.5, "create", "new"),
    (0.7499, "create", "new"),
    (0.75, "update", "pe_update"),
    (0.92, "update", "pe_update"),
    (0.9201, "reinforce", "pe_reinforce"),
])
def test_prediction_error_gate(sim, action, rule):
    decision = decide(sim, params=PE)
    assert (decision.action, decision.rule) == (action, rule)


def test_exact_duplicate_wins_over_everything():
    decision = decide(0.1, exact="mem_same", contradicted=Neighbour("mem_x", 0.6))
    assert decision == gate.GateDecision("reinforce", "exact_hash", "mem_same", 1.0,
                                         gate.GATE_VERSION)


def test_a_contradiction_goes_to_the_conflict_strategy():
    decision = decide(0.97, contradicted=Neighbour("mem_x", 0.6))
    assert (decision.action, decision.neighbour, decision.similarity) == ("conflict", "mem_x", 0.6)


def test_an_immutable_neighbour_is_never_merged_or_updated():
    assert decide(0.9, immutable=True).action == "skip"
    assert decide(0.9, immutable=True).rule == "immutable_neighbour"
    assert decide(0.8, params=PE, immutable=True).action == "skip"


@pytest.mark.parametrize(("strategy", "existing_from", "new_from", "winner", "rule"), [
    ("keep_existing", 0, 10, "existing", "conflict_keep_existing"),
    ("use_new", 10, 0, "new", "conflict_use_new"),
    ("merge", 0, 10, "merged", "conflict_merge"),
    ("ask", 0, 10, "none", "conflict_ask"),
    ("temporal", 0, 10, "new", "conflict_temporal"),
    ("temporal", 10, 10, "new", "conflict_temporal"),
    ("temporal", 10, 5, "existing", "conflict_temporal"),
])
def test_the_five_conflict_strategies(strategy, existing_from, new_from, winner, rule):
    resolution = gate.resolve(strategy, existing_valid_from=existing_from,
                              new_valid_from=new_from, existing_immutable=False)
    assert resolution == gate.Resolution(winner, rule)


@pytest.mark.parametrize("strategy", gate.STRATEGIES)
def test_an_immutable_memory_always_wins_its_conflicts(strategy):
    resolution = gate.resolve(strategy, existing_valid_from=0, new_valid_from=1,
                              existing_immutable=True)
    assert resolution.winner == "existing"


def test_bad_gate_parameters_are_refused():
    with pytest.raises(InvalidInputError, match="strategy"):
        GateParams(strategy="newest")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="mode"):
        GateParams(mode="fuzzy")  # type: ignore[arg-type]


@given(st.floats(0.0, 1.0), st.booleans(), st.sampled_from([TIERED, PE]))
def test_the_gate_is_a_function_of_its_inputs(sim, adds, params):
    assert decide(sim, adds=adds, params=params) == decide(sim, adds=adds, params=params)


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_more_similarity_never_means_a_more_novel_action(low, high):
    """Monotone: create < merge/skip/update < reinforce as similarity grows."""
    order = {"create": 0, "merge": 1, "skip": 1, "update": 1, "reinforce": 2}
    low, high = sorted((low, high))
    for params in (TIERED, PE):
        assert order[decide(low, params=params).action] <= order[decide(high,
                                                                        params=params).action]


# -- merge synthesis ---------------------------------------------------------------------------


def test_merge_appends_only_the_sentences_that_add_something():
    old = "Alice lives in Berlin. She works at Acme."
    new = "Alice lives in Berlin! She has two cats."
    assert merge.merged_text(old, new) == \
        "Alice lives in Berlin. She works at Acme. She has two cats."
    assert merge.adds_information(old, new)


def test_a_new_text_that_says_all_the_old_one_did_is_the_merge():
    old = "Alice lives in Berlin. She works at Acme."
    new = "Alice lives in Berlin! She has two cats. She works at Acme."
    assert merge.merged_text(old, new) == new
    # gate-3's merge (still audited as it decided) appended the sentence
    assert merge.appended_text(old, new) == \
        "Alice lives in Berlin. She works at Acme. She has two cats."


def test_a_merge_never_says_the_same_sentence_twice():
    # issue 13: the merge was both sentences one after the other
    old = "Marco works as a data engineer at Zalando in Berlin"
    new = "Marco works as a data engineer at Zalando, based in Berlin"
    assert merge.merged_text(old, new) == new
    old = "Marco works as a data engineer at Zalando in Berlin with his dog."
    assert merge.merged_text(old, new) == \
        "Marco works as a data engineer at Zalando in Berlin with his dog. Based in Berlin."
    assert merge.merged_text("I live in Berlin with my wife.",
                             "I live in Berlin, and I work at SAP.") == \
        "I live in Berlin with my wife. I work at SAP."


def test_merge_of_a_restatement_adds_nothing():
    old = "Alice lives in Berlin and works at Acme."
    assert not merge.adds_information(old, "alice works at acme, lives in berlin")
    assert merge.merged_text(old, "Alice lives in Berlin.") == old


def test_conflict_text_keeps_both_sides():
    assert merge.conflict_text("Alice lives in Berlin", "Alice moved to Paris.") == \
        "Alice moved to Paris. (previously: Alice lives in Berlin)"


VOCABULARY = ("alice", "bob", "lives", "works", "berlin", "paris", "acme", "cats", "dogs",
              "likes", "tea", "coffee", "the", "a", "is", "in", "at")
words = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8)
texts = st.lists(words.map(" ".join), min_size=1, max_size=4).map(". ".join)


@given(texts, texts)
def test_a_merge_keeps_every_fact_of_both_texts(old, new):
    merged = merge.merged_text(old, new)
    # the old text, extended; or the new one, when it says everything the old one did
    assert merged.startswith(old.rstrip()) or merged == new
    assert merge.content_terms(old) | merge.content_terms(new) <= merge.content_terms(merged)
    assert not merge.adds_information(merged, new)
    assert merge.merged_text(merged, new) == merged  # merging the same input again is a no-op

"""value_difference: the kind of value two near-identical texts differ in, or None when they say
the same thing; and the gate's use of it (a text differing in a value is never absorbed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventmem.policies import gate
from eventmem.policies.gate import GateParams, Neighbour
from eventmem.policies.values import value_difference


@pytest.mark.parametrize(("old", "new", "kind"), [
    ("I prefer coffee over tea.", "I prefer tea over coffee.", "order"),
    ("I prefer coffee over tea.", "I prefer tea over coffee now.", "change"),
    ("The meeting moved from Monday to Friday.", "The meeting moved from Friday to Monday.",
     "order"),
    ("Bob owes Alice 50 dollars.", "Alice owes Bob 50 dollars.", "order"),
    ("Bob owes Alice 50 dollars.", "Bob owes Alice 70 dollars.", "number"),
    ("I own 3 bikes.", "I own four bikes.", "number"),
    ("My flight is at 9am.", "My flight is at 9pm.", "time"),
    ("My flight is at 9:30 a.m.", "My flight is at 10:30 a.m.", "time"),
    ("The dentist is on Monday.", "The dentist is on Tuesday.", "weekday"),
    ("Renew my passport by March 3.", "Renew my passport by March 5.", "date"),
    ("I started in 2019.", "I started in 2021.", "date"),
    ("Dana lives in Denver.", "Dana lives in Boston.", "entity"),
    ("Dana lives in Denver.", "Jake lives in Denver.", "entity"),
    ("I eat meat.", "I don't eat meat.", "negation"),
    ("I eat meat.", "I never eat meat.", "negation"),
    ("I eat meat.", "I no longer eat meat.", "change"),
    ("I work at Globex.", "I switched jobs, I work at Globex.", "change"),
])
def test_a_differing_value_is_named(old, new, kind):
    assert value_difference(old, new) == kind


@pytest.mark.parametrize(("old", "new"), [
    ("I live in Berlin.", "I live in Berlin!"),
    ("I live in Berlin.", "i live in berlin"),
    ("I own 3 bikes.", "I own three bikes."),
    ("My flight is at 9pm.", "My flight is at 21:00."),
    ("Yesterday I went to the gym.", "I went to the gym yesterday."),
    ("Marco works as a data engineer at Zalando in Berlin",
     "Marco works as a data engineer at Zalando, based in Berlin"),
    ("I prefer tea over coffee now.", "I prefer tea over coffee."),  # no change word is no news
    ("", ""),
])
def test_the_same_values_in_other_words_are_no_difference(old, new):
    assert value_difference(old, new) is None


TEXT = st.text(st.sampled_from("ab AB 12 .,:!?'"), max_size=40)


@given(TEXT)
def test_a_text_differs_from_itself_in_nothing(text):
    assert value_difference(text, text) is None


@given(TEXT, TEXT)
def test_it_is_a_pure_function(old, new):
    assert value_difference(old, new) == value_difference(old, new)


@pytest.mark.parametrize(("sim", "params", "absorbed"), [
    (0.99, GateParams(), "reinforce"),
    (0.9, GateParams(), "skip"),
    (0.97, GateParams(mode="prediction_error"), "reinforce"),
])
def test_the_gate_updates_where_it_would_absorb_a_changed_value(sim, params, absorbed):
    nearest = Neighbour("mem_old", sim)
    kwargs = {"adds_information": False, "contradicted": None, "params": params}
    assert gate.decide(None, nearest, **kwargs).action == absorbed
    decision = gate.decide(None, nearest, value="time", **kwargs)
    assert decision == gate.GateDecision("update", "value_time", "mem_old", sim)


def test_the_gate_merges_no_changed_value_and_keeps_exact_and_immutable_rules():
    kwargs = {"contradicted": None, "params": GateParams()}
    merged = gate.decide(None, Neighbour("m", 0.9), adds_information=True, value="number",
                         **kwargs)
    assert (merged.action, merged.rule) == ("update", "value_number")
    exact = gate.decide("m", None, adds_information=False, value="number", **kwargs)
    assert (exact.action, exact.rule) == ("reinforce", "exact_hash")
    beside = gate.decide(None, Neighbour("m", 0.99, immutable=True), adds_information=False,
                         value="entity", **kwargs)
    assert (beside.action, beside.rule) == ("create", "value_entity")
    far = gate.decide(None, Neighbour("m", 0.3), adds_information=False, value="entity",
                      **kwargs)
    assert (far.action, far.rule) == ("create", "new")

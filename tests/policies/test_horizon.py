"""The default window of a plan that names no time (eventmem.policies.horizon)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventmem.clock import MICROS_PER_DAY, to_micros
from eventmem.policies.horizon import RULE, default_until, open_ended, short_horizon

AT = to_micros(datetime(2025, 3, 5, 10, tzinfo=UTC))

SHORT = [
    "I'm going to call the plumber",
    "Planning to pick up groceries",
    "I need to renew my passport",
    "Remind me to email Sam",
    "I have to finish the report",
    "I’ll take the car to the garage",  # a curly apostrophe
]
OPEN = [
    "Learn to sail one day",
    "I want to visit Japan someday",
    "I'm planning to learn Spanish",
    "I will write a novel",
    "My goal is to run a marathon",
    "I'm going to save up for a house eventually",
    "We hope to start a family",
    "I'd like to become a pilot",
    "I'm going to travel around the world when I retire",
    "I need to get in shape in the long run",
]


@pytest.mark.parametrize("text", SHORT)
def test_a_short_errand_gets_the_window(text: str) -> None:
    assert short_horizon(text)
    assert default_until(text, AT, 7.0) == (AT + 7 * MICROS_PER_DAY, RULE)


@pytest.mark.parametrize("text", OPEN)
def test_an_open_ended_intention_gets_none(text: str) -> None:
    assert open_ended(text)
    assert default_until(text, AT, 7.0) is None


def test_no_modal_no_window() -> None:
    assert default_until("The plumber is nice", AT, 7.0) is None


def test_a_window_of_zero_is_off() -> None:
    assert default_until("I'm going to call the plumber", AT, 0.0) is None


def test_the_window_is_as_long_as_configured() -> None:
    assert default_until("I need to call Bob", AT, 2.5) == (AT + 5 * MICROS_PER_DAY // 2, RULE)


@given(st.sampled_from(SHORT + OPEN), st.sampled_from(OPEN))
def test_an_open_ended_clause_anywhere_takes_the_window_away(first: str, second: str) -> None:
    assert default_until(f"{first}. {second}", AT, 7.0) is None

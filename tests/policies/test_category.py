"""Retention categories and the procedural tier (eventmem.policies.category), one example per
rule, and the category-1 rules as the write path records them."""

from __future__ import annotations

import pytest

from eventmem.errors import InvalidInputError
from eventmem.policies.category import NONE, CategoryParams, categorize, tier_of
from eventmem.policies.classify import classify


def category_of(text: str) -> tuple[str, str]:
    kind, rule = classify(text)
    return categorize(text, kind, rule)


@pytest.mark.parametrize(("text", "expected"), [
    ("Actually, the standup is at 9:30", "correction"),
    ("The deadline should be March 4, not March 3", "correction"),
    ("I was wrong about the venue: it is the Rex", "correction"),
    ("How to deploy: run make release, then tag it", "procedure"),
    ("Always use UTC in log timestamps", "procedure"),
    ("Never push straight to main", "procedure"),
    ("We decided to go with Postgres for the backend", "decision"),
    ("Going with the blue logo for the launch", "decision"),
    ("I love spicy food", "preference"),
    ("Finally settled in Geneva after the move", "fact"),
])
def test_each_category_has_its_rule(text: str, expected: str) -> None:
    category, rule = category_of(text)
    assert category == expected
    assert rule.startswith(expected + ":")


def test_a_habit_is_not_a_rule_and_a_plan_or_an_unread_statement_is_no_category() -> None:
    assert category_of("I always take the bus to work")[0] != "procedure"
    assert category_of("I need to renew my passport by March 3") == ("", "")
    # the classifier read nothing: a context memory as the kinds define it, not a fact
    assert category_of("The office is on the third floor") == ("", "")


def test_the_first_matching_category_wins() -> None:
    # a correction that states a rule is kept as a correction (it must not fade)
    assert category_of("Actually, always use UTC")[0] == "correction"


def test_no_category_before_category_1() -> None:
    assert categorize("Actually, it is Tuesday", "context", "context:default", NONE) == ("", "")


def test_the_tier_a_new_memory_gets() -> None:
    assert tier_of("semantic", "s1", "procedure") == ("semantic", "caller")
    assert tier_of(None, "s1", "procedure") == ("working", "")
    assert tier_of(None, None, "procedure") == ("procedural", "procedure")
    assert tier_of(None, None, "fact") == ("episodic", "")


def test_category_params_are_checked() -> None:
    with pytest.raises(InvalidInputError):
        CategoryParams(stability_days={"opinion": 3.0})
    with pytest.raises(InvalidInputError):
        CategoryParams(stability_days={"fact": 0.0})
    assert CategoryParams().stability_days == {"decision": 45.0, "fact": 14.0}

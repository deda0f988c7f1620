"""Compound statements about different entities, split into clauses (eventmem.policies.split)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventmem.policies.split import clauses


@pytest.mark.parametrize(("text", "parts"), [
    ("Alice moved to Paris and Bob started a job at Google.",
     ("Alice moved to Paris.", "Bob started a job at Google.")),
    ("Sarah loves hiking, but Tom prefers swimming.",
     ("Sarah loves hiking.", "Tom prefers swimming.")),
    ("Alice works at Acme; Carol lives in Rome", ("Alice works at Acme", "Carol lives in Rome")),
])
def test_clauses_about_different_entities_are_split(text: str, parts: tuple[str, ...]) -> None:
    assert clauses(text) == parts


@pytest.mark.parametrize("text", [
    "I like tea and coffee.",  # a list inside one clause
    "Alice and Bob moved to Paris.",  # one clause, two subjects
    "The meeting is between Alice and Bob.",
    "Bob moved to Paris and started a job.",  # the second part has no subject
    "Bob moved to Paris and Bob started a job.",  # one entity
    "Alice moved to Paris and he started a job.",  # a pronoun is no named subject
    "Caroline: I went home and Mel stayed.",  # "I" is no named subject
    "Alice moved to Paris. Bob started a job.",  # two sentences: not a compound statement
    "",
])
def test_what_is_never_split(text: str) -> None:
    assert clauses(text) is None


NAMES = ["Alice", "Bob", "Chen Wei", "Maria", "Tom"]
VERBS = ["moved to Paris", "works at Google", "started a job", "has a dog", "lives in Rome"]


@given(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(VERBS)), min_size=2,
                max_size=3, unique_by=lambda p: p[0]),
       st.sampled_from([" and ", ", and ", ", but ", "; "]))
def test_the_parts_are_the_texts_own_words(parts: list[tuple[str, str]], joiner: str) -> None:
    text = joiner.join(f"{n} {v}" for n, v in parts) + "."
    split = clauses(text)
    assert split == tuple(f"{n} {v}." for n, v in parts)

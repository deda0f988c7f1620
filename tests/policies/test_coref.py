"""Simple coreference in one text (eventmem.policies.extract.coref), through the extractor."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from eventmem.policies.extract.coref import resolved
from eventmem.policies.extract.relations import EXTRACT_1, extract


def _triples(text: str, version: str | None = None) -> set[tuple[str, str, str]]:
    _, relations = extract(text) if version is None else extract(text, version)
    return {(r.subject, r.relation, r.object) for r in relations}


def test_a_pronoun_opening_a_sentence_is_the_person_named_last() -> None:
    text = "Bob moved to Paris. He works at Google now."
    assert ("bob", "works_at", "google") in _triples(text)
    assert ("bob", "lives_in", "paris") in _triples(text)


def test_a_pronoun_after_and_is_resolved_too() -> None:
    assert ("anna", "works_at", "google") in _triples(
        "Anna moved to Berlin last year and she works at Google")


def test_extract_1_reads_no_coreference() -> None:
    assert ("bob", "works_at", "google") not in _triples(
        "Bob moved to Paris. He works at Google now.", EXTRACT_1)


@pytest.mark.parametrize("text", [
    "He works at Google now.",  # no one named before it
    "I moved to Paris. He works at Google now.",  # "I" is the user, never an antecedent
    "Caroline: He works at Google now.",  # the speaker of the line is "I", not "he"
])
def test_nothing_is_resolved_without_a_named_person_before_it(text: str) -> None:
    assert not any(r[0] != "self" and r[1] == "works_at" for r in _triples(text)), text


def test_the_stored_text_is_not_rewritten() -> None:
    text = "Bob moved to Paris. He works at Google now."
    entities, _ = extract(text)
    assert [e.name for e in entities] == ["Bob", "Paris", "Google"]


def test_a_possessive_pronoun_reads_as_the_persons() -> None:
    working = resolved("Tom called. His sister lives in Rome.", [(0, 3)])
    assert working == "Tom called. Tom's sister lives in Rome."


def test_the_speaker_label_is_never_an_antecedent() -> None:
    assert resolved("Mel: He is nice.", [(0, 3)], speaker_end=3) is None


@given(st.sampled_from(["Alice", "Bob", "Chen Wei", "Maria Lopez"]),
       st.sampled_from(["He", "She"]))
def test_any_named_person_is_taken(name: str, pronoun: str) -> None:
    text = f"{name} moved to Paris. {pronoun} works at Google now."
    key = name.lower()
    assert (key, "works_at", "google") in _triples(text)

"""Compound words matched by their parts and parts by their compound, against the words a
namespace's memories use (eventmem.recall.compounds), alone and through recall."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import given
from hypothesis import strategies as st

import eventmem
from eventmem.recall.compounds import MIN_PART, compound_forms
from eventmem.text.normalize import term_id, tokenize

DAY = timedelta(days=1)


def known(*words: str) -> set[int]:
    return {term_id(w) for w in words}


def test_a_compound_splits_into_two_words_the_memories_use() -> None:
    assert compound_forms("Would Melanie go on another roadtrip soon?",
                          known("road", "trip")) == "road trip"


def test_two_words_join_into_the_compound_the_memories_use() -> None:
    assert compound_forms("What did she do after the road trip?", known("roadtrip")) == "roadtrip"


def test_nothing_when_the_memories_use_no_other_form() -> None:
    assert compound_forms("Would Melanie go on another roadtrip soon?", known("road")) == ""
    assert compound_forms("", known("road", "trip")) == ""


def test_a_split_needs_two_content_words_of_min_part_letters() -> None:
    # "week|end": "end" is too short; "some|thing": "some" is a stopword.
    assert compound_forms("every weekend", known("week", "end")) == ""
    assert compound_forms("something", known("some", "thing")) == ""
    assert MIN_PART == 4


def test_the_most_even_split_wins() -> None:
    # "bookshelf" splits as "book|shelf", not "books|helf", when both are known.
    assert compound_forms("bookshelf", known("book", "shelf", "books", "helf")) == "book shelf"


@given(st.lists(st.sampled_from(["road", "trip", "roadtrip", "book", "shelf", "bookshelf",
                                 "the", "a", "soon", "policymaking", "policy", "making"]),
                max_size=8),
       st.sets(st.sampled_from(["road", "trip", "roadtrip", "book", "shelf", "bookshelf",
                                "policy", "making", "policymaking"])))
def test_every_form_given_is_made_of_known_words(words: list[str], vocabulary: set[str]) -> None:
    ids = known(*vocabulary)
    forms = compound_forms(" ".join(words), ids)
    assert all(term_id(w) in ids for w in tokenize(forms))


def test_recall_finds_the_parts_of_a_compound(tmp_path, clock: eventmem.ManualClock) -> None:
    for weight, found in ((0.5, True), (0.0, False)):
        config = eventmem.Config(compound_weight=weight)
        with eventmem.open(tmp_path / str(weight), clock=clock, config=config) as mem:
            trip = mem.remember("Melanie: our trip to the coast got off to a bad start",
                                namespace="n").memory_id
            clock.advance(DAY)
            mem.remember("Melanie: the road was closed for repairs", namespace="n")
            hits = [h.memory_id for h in mem.recall("How was the roadtrip?", namespace="n", k=5)]
            assert (trip in hits) is found

"""The hyponym lexicon: a question's category noun and the words it stands for."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import eventmem
from eventmem.text.hyponyms import category_of, members


@pytest.mark.parametrize(("question", "category", "member"), [
    ("What martial arts has John done?", "martial arts", "kickboxing"),
    ("Which instruments does she play?", "instruments", "clarinet"),
    ("What European countries has Maria been to?", "european countries", "spain"),
    ("Which states has he driven through?", "states", "oregon"),
    ("What are your pets called?", "pets", "hamster"),
    ("What SPORTS do the kids play?", "sports", "soccer"),
    ("Which city have both of them visited?", "city", "rome"),
    ("What games did they play at the picnic?", "games", "charades"),
])
def test_a_category_noun_stands_for_its_members(question: str, category: str,
                                                member: str) -> None:
    assert category_of(question) == category
    assert member in members(question).split(", ")


def test_the_longest_category_wins() -> None:
    # "European countries" names Europe's countries, not every country.
    words = members("What European countries has she visited?").split(", ")
    assert "france" in words and "japan" not in words


def test_a_vague_noun_or_none_gives_no_words() -> None:
    assert members("What activities did we do on the trip?") == ""
    assert members("Where does Bob live?") == ""
    assert category_of("Where does Bob live?") is None


def test_the_words_the_question_says_are_not_repeated() -> None:
    words = members("Besides karate, what martial arts has he done?").split(", ")
    assert "karate" not in words and "judo" in words


@given(st.text(max_size=80))
def test_members_never_repeat_the_question(text: str) -> None:
    said = text.lower()
    words = members(text)
    if category_of(text) is None:
        assert words == ""
    for word in filter(None, words.split(", ")):
        assert re.search(rf"\b{re.escape(word)}\b", said) is None


def test_recall_finds_a_member_of_the_asked_category(tmp_path,
                                                     clock: eventmem.ManualClock) -> None:
    turns = ["John: I'm doing kickboxing and it gives me so much energy.",
             "John: The weather was lovely on our walk today.",
             "John: I made pasta for the whole family tonight.",
             "John: My brother called me about the festival."]
    for weight, first in ((0.5, True), (0.0, False)):
        with eventmem.open(tmp_path / f"s{weight}", clock=clock,
                           config=eventmem.Config(hyponym_weight=weight)) as mem:
            kick = mem.remember_many(turns, namespace="n")[0].memory_id
            hits = mem.recall("What martial arts has John done?", namespace="n", k=4)
            assert (hits[0].memory_id == kick) is first

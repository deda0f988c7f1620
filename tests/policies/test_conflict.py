"""Contradiction detection between two memory texts (eventmem.policies.conflict.detect).

Tables pin what must and must not be flagged, with the exact attribute, values and rule; hypothesis
checks purity, that a text never contradicts itself, that nothing raises on arbitrary unicode, and
that the negation and attribute_value rules are symmetric. A loose false-positive bound runs over
real conversation (LoCoMo dev turns) when the file is present.

Run this file as a script for the cost figures and the LoCoMo report:
``python -m tests.policies.test_conflict``.
"""

from __future__ import annotations

import doctest
import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.policies.conflict import detect as conflict
from eventmem.policies.conflict.detect import (
    CONFLICT_VERSION,
    Claims,
    Contradiction,
    claims,
    detect,
    detect_texts,
)

LOCOMO = Path("/work/shared/bench/locomo-dev/turns.jsonl")
SETTINGS = settings(max_examples=300, deadline=None)

# (old text, new text, subject, attribute, old value, new value, rule)
POSITIVE = [
    # negation
    ("Alice likes coffee", "Alice doesn't like coffee", "alice", "likes:coffee", "true", "false",
     "negation"),
    ("Alice likes coffee", "Alice does not like coffee anymore", "alice", "likes:coffee", "true",
     "false", "negation"),
    ("Alice drinks coffee", "Alice never drinks coffee", "alice", "drinks:coffee", "true", "false",
     "negation"),
    ("I am vegetarian", "I'm not vegetarian", "self", "is:vegetarian", "true", "false", "negation"),
    ("Im a vegan", "im not vegan anymore", "self", "is:vegan", "true", "false", "negation"),
    ("Alice is married", "Alice is not married", "alice", "is:married", "true", "false",
     "negation"),
    ("Alice is married", "Alice isn't married", "alice", "is:married", "true", "false", "negation"),
    ("I love jazz", "I hate jazz", "self", "likes:jazz", "true", "false", "negation"),
    ("I can't stand olives", "I love olives", "self", "likes:olives", "false", "true", "negation"),
    ("I’m a big fan of opera", "I'm not a fan of opera", "self", "likes:opera", "true", "false",
     "negation"),
    ("I smoke", "I don't smoke anymore", "self", "smokes", "true", "false", "negation"),
    ("I play guitar every day", "I don't play guitar", "self", "plays:guitar", "true", "false",
     "negation"),
    ("I live in Berlin", "I used to live in Berlin", "self", "lives_in", "berlin", "not berlin",
     "negation"),
    ("I haven't lived in Lyon", "I live in Lyon", "self", "lives_in", "not lyon", "lyon",
     "negation"),
    # change markers
    ("Alice lives in Berlin", "Alice moved to Paris", "alice", "lives_in", "berlin", "paris",
     "change_marker"),
    ("Bob uses Windows", "Bob switched to Linux", "bob", "uses", "windows", "linux",
     "change_marker"),
    ("I work at Acme", "I no longer work at Acme", "self", "works_at", "acme", "not acme",
     "change_marker"),
    ("Carol works at Google", "Carol now works at Meta", "carol", "works_at", "google", "meta",
     "change_marker"),
    ("We live in Berlin", "We moved to Hamburg last year", "we", "lives_in", "berlin", "hamburg",
     "change_marker"),
    ("My wife works at Google", "My wife now works at Apple", "self's wife", "works_at", "google",
     "apple", "change_marker"),
    ("Bob lives in New York City", "Bob moved from New York to Boston", "bob", "lives_in",
     "new york city", "boston", "change_marker"),
    ("The meeting is on Friday", "The meeting was moved to Monday", "the meeting", "date:meeting",
     "friday", "monday", "change_marker"),
    ("I live in Rome. I am 30.", "I'm 31 now.", "self", "age", "30", "31", "change_marker"),
    ("Dana lives in Oslo", "Now Dana lives in Bergen", "dana", "lives_in", "oslo", "bergen",
     "change_marker"),
    # a different value of a single-valued attribute
    ("I live in Berlin", "I live in Munich", "self", "lives_in", "berlin", "munich",
     "attribute_value"),
    ("Dana is based in London", "Dana lives in Leeds", "dana", "lives_in", "london", "leeds",
     "attribute_value"),
    ("Tom works for Initech", "Tom is employed by Globex", "tom", "works_at", "initech", "globex",
     "attribute_value"),
    ("I work at Acme", "I joined Globex last month", "self", "works_at", "acme", "globex",
     "attribute_value"),
    ("I live in Berlin and work at Acme", "I work at Initech", "self", "works_at", "acme",
     "initech", "attribute_value"),
    ("I think Alice lives in Rome", "Alice lives in Milan", "alice", "lives_in", "rome", "milan",
     "attribute_value"),
    ("I'm from Ohio originally", "I'm from Texas", "self", "from", "ohio", "texas",
     "attribute_value"),
    ("Alice has 2 kids", "Alice has 3 kids", "alice", "count:kids", "2", "3", "attribute_value"),
    ("I have two little kids", "I have no kids", "self", "count:kids", "2", "0",
     "attribute_value"),
    ("I don't have any children", "I have kids", "self", "count:kids", "0", ">0",
     "attribute_value"),
    ("I have 2 dogs", "I've got three dogs", "self", "count:dogs", "2", "3", "attribute_value"),
    ("Alice is 30 years old", "Alice is 31 years old", "alice", "age", "30", "31",
     "attribute_value"),
    ("I'm 30", "My age is 31", "self", "age", "30", "31", "attribute_value"),
    ("I just turned 31!", "I'm 32 years old", "self", "age", "31", "32", "attribute_value"),
    ("My birthday is May 3", "My birthday is June 5", "self", "date:birthday", "05-03", "06-05",
     "attribute_value"),
    ("Alice's birthday is on March 3rd", "Alice's birthday is March 4", "alice", "date:birthday",
     "03-03", "03-04", "attribute_value"),
    ("I was born on May 3, 1990", "My birthday is the 5th of June", "self", "date:birthday",
     "1990-05-03", "06-05", "attribute_value"),
    ("The wedding is on 2024-05-01", "The wedding is on 2024-06-01", "the wedding",
     "date:wedding", "2024-05-01", "2024-06-01", "attribute_value"),
    ("Our anniversary is on May 1, 2024", "Our anniversary is May 1 2025", "we",
     "date:anniversary", "2024-05-01", "2025-05-01", "attribute_value"),
    ("Alice is married", "Alice is single", "alice", "marital_status", "married", "single",
     "attribute_value"),
    ("I'm engaged to Sam", "I'm married to Sam", "self", "marital_status", "engaged", "married",
     "attribute_value"),
    ("The party is confirmed", "The party is cancelled", "the party", "status", "confirmed",
     "cancelled", "attribute_value"),
    ("My name is Priya", "My name is Sam", "self", "name", "priya", "sam", "attribute_value"),
    ("My favorite color is blue", "My favourite color is green", "self", "favorite:color", "blue",
     "green", "attribute_value"),
    ("Alice's car is red", "Alice's car is blue", "alice", "color:car", "red", "blue",
     "attribute_value"),
    ("I was born in Lagos", "I was born in Accra", "self", "born_in", "lagos", "accra",
     "attribute_value"),
]  # fmt: skip

# (old text, new text): never a contradiction
NEGATIVE = [
    ("Alice lives in Berlin", "Alice has lived in Berlin for years"),  # restatement
    ("Alice lives in Berlin", "Alice lives in Berlin, Germany"),
    ("I work at Acme", "I work at Acme Corp"),
    ("Alice moved to Paris", "Alice lives in Paris"),
    ("I live in Paris", "I used to live in Berlin, now I live in Paris"),
    ("I live in Paris now", "I moved from Berlin to Paris"),
    ("Alice is 30 years old", "Alice's 30 now"),
    ("Alice lives in Berlin", "Bob lives in Paris"),  # different subjects
    ("Alice is married", "Bob is single"),
    ("My wife works at Google", "I work at Apple"),
    ("She lives in Berlin", "She lives in Paris"),  # unresolved pronoun
    ("My sister lives in Oslo", "My sister lives in Rome"),  # maybe two sisters
    ("The party is cancelled", "Alice's party is on Friday"),
    ("Alice likes coffee", "Alice likes tea"),  # multi-valued
    ("Bob uses Windows", "Bob uses Linux"),
    ("I play guitar", "I play piano"),
    ("I love painting", "I love painting landscapes"),
    ("Alice likes coffee", "Alice doesn't like cold coffee"),  # a different object
    ("I have 2 kids", "I have 2 dogs"),
    ("I have 2 kids", "I have kids"),
    ("I don't live in Berlin", "I live in Paris"),
    ("I don't live in Berlin", "I don't live in Paris"),
    ("My birthday is May 3", "My birthday is on 2024-05-03"),  # a date without a year
    ("The meeting is on Friday", "The meeting is on 2024-06-07"),  # weekday vs date
    ("Alice lives in Berlin", "Does Alice live in Paris?"),  # questions
    ("The wedding is on June 5", "Is the wedding on May 3?"),
    ("Alice lives in Berlin", "Do Alice and Bob live in Paris"),
    ("I live in Berlin", "I lived in Paris for two years"),  # past, modal, hypothetical
    ("I live in Berlin", "I'd love to live in Paris"),
    ("I live in Berlin", "I want to move to Paris"),
    ("I live in Berlin", "If I moved to Paris I would be happier"),
    ("I live in Berlin", "When I moved to Paris I was lonely"),
    ("I like the movie", "I didn't like the movie"),
    ("I drink coffee", "I drank tea yesterday"),
    ("I live in Berlin", "I can live in Paris"),
    ("I live in Berlin", "I moved to a new apartment"),  # vague values
    ("I live in Berlin", "I live in the city"),
    ("I work at Acme", "I work at home"),
    ("I work at Acme", "I joined the book club"),
    ("I love you", "I don't love you"),  # pronoun objects
    ("I love it", "I don't like it"),
    ("I'm married", "I'm engaged in a big project"),
    ("I'm 31", "I'm 30 minutes late"),
    ("I'm 31", "I'm 100% sure"),
    ("I'm married", "I'm so happy"),
    ("Alice lives in Berlin", "The weather in Paris is lovely"),  # unrelated
    ("Unconditional love is so important", "Unconditional love isn't easy"),
    ("", "Alice lives in Berlin"),
]


def _claims_of(text: str) -> list[tuple[object, ...]]:
    return [tuple(c) for c in claims(text).items]


# ---------------------------------------------------------------- the tables


def test_tables_are_large_enough() -> None:
    assert len(POSITIVE) >= 30 and len(NEGATIVE) >= 30
    assert {row[6] for row in POSITIVE} == {"negation", "change_marker", "attribute_value"}


@pytest.mark.parametrize(("old", "new", "subject", "attribute", "old_v", "new_v", "rule"), POSITIVE)
def test_positive_pairs(
    old: str, new: str, subject: str, attribute: str, old_v: str, new_v: str, rule: str
) -> None:
    assert detect_texts(new, old) == Contradiction(subject, attribute, old_v, new_v, rule)


@pytest.mark.parametrize(("old", "new"), NEGATIVE)
def test_negative_pairs(old: str, new: str) -> None:
    assert detect_texts(new, old) is None
    assert detect_texts(old, new) is None


@pytest.mark.parametrize(("old", "new"), [(o, n) for o, n, *_ in POSITIVE])
def test_each_text_alone_is_consistent(old: str, new: str) -> None:
    for text in (old, new):
        assert detect(claims(text), claims(text)) is None
        assert claims(text).items  # every positive example is parsed into a claim


def test_negative_examples_are_not_vacuous() -> None:
    # Most negative pairs must parse into claims on both sides: they are rejected by the
    # comparison, not by the parser seeing nothing.
    both = sum(1 for old, new in NEGATIVE if claims(old).items and claims(new).items)
    assert both >= 20


# ---------------------------------------------------------------- documented behaviours


def test_public_surface() -> None:
    assert CONFLICT_VERSION == "conflict-1"
    assert Contradiction._fields == ("subject", "attribute", "old_value", "new_value", "rule")
    parsed = claims("Alice lives in Berlin")
    assert isinstance(parsed, Claims) and isinstance(parsed.items, tuple)
    assert hash(parsed) == hash(claims("Alice lives in Berlin"))  # immutable, usable as a key
    with pytest.raises(AttributeError):
        parsed.items = ()  # type: ignore[misc]
    assert doctest.testmod(conflict).failed == 0


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("I live in Oslo", "self"),
        ("i live in oslo", "self"),  # chat casing for "I"
        ("We live in Oslo", "we"),
        ("Alice lives in Oslo", "alice"),
        ("Alice Smith lives in Oslo", "alice smith"),
        ("Yeah, Alice lives in Oslo", "alice"),  # discourse words are skipped
        ("I heard that Alice lives in Oslo", "alice"),  # a reporting frame is skipped
        ("My husband lives in Oslo", "self's husband"),  # a one-per-person relation
        ("Alice's mom lives in Oslo", "alice's mom"),
        ("My birthday is May 3", "self"),  # a possessed attribute: the owner is the subject
        ("Alice's birthday is May 3", "alice"),
        ("The meeting is on Friday", "the meeting"),
    ],
)
def test_subject_resolution(text: str, subject: str) -> None:
    assert [c[0] for c in _claims_of(text)] == [subject]


@pytest.mark.parametrize(
    "text",
    [
        "alice lives in oslo",  # a name needs its capital
        "He lives in Oslo",
        "They live in Oslo",
        "You live in Oslo",
        "My friend lives in Oslo",  # not one per person
        "The people who live in Oslo",
        "Where do you live?",
        "Alice lives in Oslo?",  # a question sentence
        "I would live in Oslo",
        "I'm going to live in Oslo",
        "I lived in Oslo",
        "I'm 30 minutes late",
        "I've been one for years",
        "I'm 100% behind you",
    ],
)
def test_texts_without_claims(text: str) -> None:
    assert claims(text).items == ()


def test_a_transcript_line_speaks_for_its_speaker() -> None:
    assert [c[0] for c in _claims_of("Caroline: I live in Oslo. My wife works at Acme.")] == [
        "caroline",
        "caroline's wife",
    ]
    assert _claims_of("Jo Lee: We live in Oslo")[0][0] == "we:jo lee"
    assert _claims_of("Caroline: Melanie lives in Oslo")[0][0] == "melanie"
    assert _claims_of("Hey: I live in Oslo")[0][0] == "self"  # not a name
    # two speakers' first person are two subjects; a speaker and her name are one
    assert detect_texts("Melanie: I live in Paris", "Caroline: I live in Oslo") is None
    found = detect_texts("Caroline: I moved to Paris", "Caroline lives in Oslo")
    assert found == Contradiction("caroline", "lives_in", "oslo", "paris", "change_marker")


def test_values_are_normalized() -> None:
    assert _claims_of("Alice lives in the Netherlands.") == [
        ("alice", "lives_in", "netherlands", True, "", True)
    ]
    assert _claims_of("Bo works at Bank of America!") == [
        ("bo", "works_at", "bank of america", True, "", True)
    ]
    assert _claims_of("I LOVE Jazz") == [("self", "likes:jazz", "", True, "", False)]


def test_a_clause_after_and_inherits_the_subject() -> None:
    assert [c[1] for c in _claims_of("Alice lives in Oslo and works at Equinor")] == [
        "lives_in",
        "works_at",
    ]
    # ... only from a clause that made a claim: "enjoy" here is not Nature's
    assert _claims_of("Nature's beauty reminds me to slow down and enjoy the small stuff") == []


def test_a_text_that_contradicts_itself_keeps_neither_claim() -> None:
    assert _claims_of("I live in Berlin. I live in Paris.") == []
    # ... but a change told in one text is consistent: "not berlin" and "paris" agree
    assert {c[2] for c in _claims_of("I moved from Berlin to Paris")} == {"berlin", "paris"}


def test_change_marker_is_the_only_asymmetric_rule() -> None:
    forward = detect_texts("Bob switched to Linux", "Bob uses Windows")
    assert forward is not None and forward.rule == "change_marker"
    assert detect_texts("Bob uses Windows", "Bob switched to Linux") is None  # additive use
    backward = detect_texts("Alice lives in Berlin", "Alice moved to Paris")
    assert backward == Contradiction("alice", "lives_in", "paris", "berlin", "attribute_value")


def test_first_contradiction_in_new_text_order() -> None:
    old = claims("Alice lives in Berlin and works at Acme")
    new = claims("Alice works at Globex. Alice lives in Rome.")
    found = detect(new, old)
    assert found is not None and found.attribute == "works_at"


def test_empty_claims_never_conflict() -> None:
    assert detect(Claims(), claims("I live in Oslo")) is None
    assert detect(claims("I live in Oslo"), Claims()) is None


# ---------------------------------------------------------------- properties

_unicode = st.text(alphabet=st.characters(codec="utf-8"), max_size=300)  # no lone surrogates
_SUBJECTS = ("I", "Alice", "We", "My wife", "Alice's mom")
_PREDICATES = (
    "live in {p}", "moved to {p}", "used to live in {p}", "no longer live in {p}",
    "work at {o}", "now work at {o}", "joined {o}", "don't work at {o}",
    "like {x}", "don't like {x}", "hate {x}", "never drink {x}", "drink {x}",
    "use {x}", "switched to {x}", "switched from {x} to {p}",
    "have {n} kids", "have no kids", "am {n} years old", "turned {n}",
    "am married", "am not married", "am single", "am vegetarian", "am not vegetarian anymore",
)  # fmt: skip
_FILL = {
    "p": ("Berlin", "Paris", "New York", "Paris France", "a new city"),
    "o": ("Acme", "Globex", "Acme Corp"),
    "x": ("coffee", "tea", "Linux", "it"),
    "n": ("2", "3", "two", "30", "31"),
}


_THIRD_PERSON = (("am ", "is "), ("have ", "has "), ("don't ", "doesn't "), ("live ", "lives "),
                 ("work ", "works "), ("like ", "likes "), ("hate ", "hates "),
                 ("drink ", "drinks "), ("use ", "uses "))  # fmt: skip


def _make(subject: str, predicate: str, fill: dict[str, str]) -> str:
    """One sentence of the grammar, with third person agreement (enough for the parser)."""
    verb = predicate.format(**fill)
    if subject == "We":
        verb = verb.replace("am ", "are ", 1)
    elif subject != "I":
        for base, third in _THIRD_PERSON:
            if f" {base}" in f" {verb}":
                verb = verb.replace(base, third, 1)
                break
    return f"{subject} {verb}"


_sentence = st.builds(
    _make,
    st.sampled_from(_SUBJECTS),
    st.sampled_from(_PREDICATES),
    st.fixed_dictionaries({key: st.sampled_from(values) for key, values in _FILL.items()}),
)
_texts = st.lists(_sentence, min_size=1, max_size=4).map(". ".join)
_WORDS = (  # noqa: SIM905 - a word list reads better as prose
    "I i'm im Alice Bob's my we the wedding is on May 3 2024-05-01 , . ? and but not never no "
    "longer now moved switched to from live lives in at work works like hate drink have has 2 "
    "three kids married single vegetarian am years old a an Berlin Paris Acme coffee tea "
    "birthday name favorite color red used don't doesn't 's ’ é 東京 İ"
).split()
_chatty = st.lists(st.sampled_from(_WORDS), max_size=30).map(" ".join)


@SETTINGS
@given(_unicode, _unicode)
def test_never_raises_and_is_pure(a: str, b: str) -> None:
    ca, cb = claims(a), claims(b)
    assert ca == claims(a) and cb == claims(b)
    assert detect(ca, cb) == detect(ca, cb) == detect_texts(a, b)
    assert detect(ca, ca) is None


@SETTINGS
@given(_texts | _chatty)
def test_a_text_never_contradicts_itself(text: str) -> None:
    parsed = claims(text)
    assert detect(parsed, parsed) is None


@pytest.mark.slow
@SETTINGS
@given(_texts | _chatty, _texts | _chatty)
def test_negation_and_attribute_value_are_symmetric(a: str, b: str) -> None:
    found = detect(claims(a), claims(b))
    if found is not None and found.rule in ("negation", "attribute_value"):
        assert detect(claims(b), claims(a)) is not None
    if found is not None:
        assert found.old_value != found.new_value


def test_symmetry_over_a_grid_of_sentences() -> None:
    """Every ordered pair of a fixed grid: exhaustive where hypothesis samples, and a check that
    the grid does produce all three rules, so the symmetry check is not vacuous."""
    sentences = [
        _make(subject, predicate, {key: values[pick] for key, values in _FILL.items()})
        for subject, predicate, pick in itertools.product(("I", "Alice"), _PREDICATES, (0, 1))
    ]
    parsed = [claims(s) for s in sentences]
    rules = set()
    for a, b in itertools.product(range(len(parsed)), repeat=2):
        found = detect(parsed[a], parsed[b])
        if found is None:
            continue
        rules.add(found.rule)
        assert found.subject == ("self" if sentences[a].startswith("I ") else "alice")
        if found.rule != "change_marker":
            assert detect(parsed[b], parsed[a]) is not None, (sentences[a], sentences[b])
    assert rules == {"negation", "attribute_value", "change_marker"}


def test_independent_of_hash_seed() -> None:
    code = (
        "from eventmem.policies.conflict.detect import claims, detect\n"
        "texts = ['Alice lives in Berlin and works at Acme. Alice likes tea.', "
        "'Alice moved to Paris. Alice works at Globex. Alice hates tea.']\n"
        "c = [claims(t) for t in texts]\n"
        "print(repr(c), repr(detect(c[1], c[0])))\n"
    )
    outputs = set()
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


# ---------------------------------------------------------------- real conversation


def _locomo_pairs(
    window: int = 20, prefixed: bool = False
) -> tuple[int, list[tuple[str, str, Contradiction]]]:
    """Compare each LoCoMo turn with the previous ``window`` turns of the same speaker, or with
    ``prefixed``, of the whole conversation as "Speaker: text" (one namespace per conversation)."""
    rows = [json.loads(line) for line in LOCOMO.read_text().splitlines() if line.strip()]
    history: dict[tuple[str, str], list[tuple[str, Claims]]] = {}
    pairs, flagged = 0, []
    for row in rows:
        text = f"{row['speaker']}: {row['text']}" if prefixed else row["text"]
        new = claims(text)
        earlier = history.setdefault((row["conv_id"], "" if prefixed else row["speaker"]), [])
        for old_text, old in earlier[-window:]:
            pairs += 1
            if (found := detect(new, old)) is not None:
                flagged.append((old_text, text, found))
        earlier.append((text, new))
    return pairs, flagged


@pytest.mark.skipif(not LOCOMO.exists(), reason="LoCoMo dev turns not present")
def test_few_flags_on_real_conversation() -> None:
    for prefixed in (False, True):
        pairs, flagged = _locomo_pairs(prefixed=prefixed)
        assert pairs > 10_000
        assert len(flagged) <= pairs // 200  # loose: these turns are mostly not contradictions


def _report() -> None:  # pragma: no cover - run by hand, prints figures
    rows = [json.loads(line) for line in LOCOMO.read_text().splitlines() if line.strip()]
    texts = [row["text"] for row in rows]
    sized = [t for t in texts if 100 <= len(t) <= 200]

    def best(fn: Callable[..., object], items: Sequence[tuple[Any, ...]], repeat: int = 9) -> float:
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            for item in items:
                fn(*item)
            runs.append(time.perf_counter() - start)
        return min(runs) / len(items) * 1e6

    cost = best(claims, [(t,) for t in sized])
    print(f"claims(), {len(sized)} turns of 100-200 chars: {cost:.1f} us")
    print(f"claims(), all {len(texts)} turns: {best(claims, [(t,) for t in texts]):.1f} us")
    parsed = [claims(t) for t in texts]
    window = [(parsed[i], parsed[j]) for i in range(len(parsed)) for j in range(max(0, i - 20), i)]
    print(f"detect(), {len(window)} pairs: {best(detect, window):.2f} us")
    full = [(p, q) for p, q in window if p.items and q.items] or window
    print(f"detect(), {len(full)} pairs with claims on both sides: {best(detect, full):.2f} us")
    with_claims = sum(1 for p in parsed if p.items)
    print(f"turns with claims: {with_claims} / {len(parsed)}")
    for prefixed in (False, True):
        pairs, flagged = _locomo_pairs(prefixed=prefixed)
        how = "whole conversation, 'Speaker: text'" if prefixed else "same speaker"
        print(f"LoCoMo pairs ({how}, window 20): {pairs}, flagged: {len(flagged)}")
        for old, new, found in flagged[:10]:
            print(f"  OLD: {old}\n  NEW: {new}\n  -> {found}")
    print("claims found on LoCoMo turns:")
    for text, one in zip(texts, parsed, strict=True):
        for claim in one.items:
            print(f"  {tuple(claim)}  <- {text[:90]}")


if __name__ == "__main__":  # pragma: no cover
    _report()

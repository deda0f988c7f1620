"""The kind classifier (eventmem/policies/classify.py): every rule by example, stable rule names,
order and edges, total and fast on any text; its fast normalization is exactly the plain one."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.events import MEMORY_KINDS
from eventmem.policies import classify as classifier
from eventmem.policies.classify import CLASSIFY_1, DEFAULT_RULE, KIND_ORDER, RULES, classify
from tests.strategies import chat_texts, fast_path_texts, unicode_texts

SETTINGS = settings(max_examples=200, deadline=None)


CLASSIFY_EXAMPLES = [
    ("Have to renew my passport before March 22.", "plan:task"),
    ("My name is Priya Raman", "identity:my_name_is"),
    ("Please call me Sam", "identity:call_me"),
    ("My pronouns are they/them", "identity:pronouns"),
    ("I was born in Lagos in 1990", "identity:born"),
    ("My birthday is on June 2", "identity:birthday"),
    ("I'm 34 years old", "identity:age"),
    ("Im from Ohio originally", "identity:from"),
    ("I live in Berlin", "identity:live_in"),
    ("I work as a nurse", "identity:i_work_as"),
    ("I work at Acme Corp", "identity:i_work_at"),
    ("I am allergic to peanuts", "identity:allergy"),
    ("I’m a software engineer", "identity:i_am_a"),
    ("I prefer window seats", "preference:i_prefer"),
    ("I really don't like mushrooms", "preference:i_like"),
    ("I love hiking in the Alps", "preference:i_like"),
    ("I hate cold coffee", "preference:i_hate"),
    ("My favourite colour is green", "preference:my_favorite"),
    ("I'd rather take the train", "preference:would_rather"),
    ("I can't stand loud music", "preference:cannot_stand"),
    ("I'm a huge fan of jazz", "preference:fan_of"),
    ("I'm really into bouldering", "preference:into"),
    ("I'm vegan", "preference:diet"),
    ("Sam is my older brother", "relationship:x_is_my"),
    ("I'm Bob's brother", "relationship:i_am_xs"),
    ("I am married to Dana", "relationship:married_to"),
    ("I'm dating someone from work", "relationship:dating"),
    ("I have two kids", "relationship:i_have"),
    ("My sister lives in Oslo", "relationship:my_relation"),
    ("The report is due by Friday", "plan:by_deadline"),
    ("Tomorrow I will call the bank", "plan:tomorrow"),
    ("Tonight we watch the finale", "plan:later_today"),
    ("We fly to Rome next week", "plan:next_period"),
    ("Remind me to buy milk", "plan:remind_me"),
    ("I'm going to learn the piano", "plan:going_to"),
    ("I plan to repaint the kitchen", "plan:plan_to"),
    ("I want to visit Japan", "plan:want_to"),
    ("I need to renew my passport by the 10th", "plan:need_to_by"),
    ("I have to call the plumber", "plan:need_to"),
    ("I'll send the invoice", "plan:i_will"),
    ("Dentist appointment at 3pm", "plan:scheduled"),
    ("I'm training for a marathon", "activity:training_for"),
    ("I've been learning Spanish since last year", "activity:learning"),
    ("I'm working on a novel", "activity:working_on"),
    ("I have been renovating the attic", "activity:working_on"),
    ("We have been saving for a house", "activity:have_been_ing"),
    ("I'm currently traveling through Peru", "activity:currently_ing"),
    ("Every morning I run 5k", "activity:routine"),
    ("I usually take the bus", "activity:habit"),
    ("Yesterday we went hiking", "event:yesterday"),
    ("Last week I saw a concert", "event:last_period"),
    ("The office flooded three days ago", "event:ago"),
    ("I went to Paris", "event:went_to"),
    ("We just graduated", "event:milestone"),
    ("I visited Rome in 2019", "event:past_with_time"),
    # classify-3: a lasting attribute of the person (eventmem.policies.facts) is never filed
    # under a short-lived kind.
    ("Finally settled in Geneva after the move", "identity:fact"),
    ("We got married", "relationship:fact"),
    ("Picked up my new car today, a Nissan Leaf", "identity:fact"),
    ("User now prefers beaches over mountains", "preference:fact"),
    ("My flight was moved from 4pm to 2pm.", "event:fact"),
    ("Right now the build is red", "ephemeral:right_now"),
    ("At the moment the build is red", "ephemeral:at_the_moment"),
    ("currently feeling a bit off", "ephemeral:feeling"),
    ("I am so tired", "ephemeral:state"),
    ("brb", "ephemeral:away"),
    ("hi there!", "ephemeral:greeting"),
    ("The weather in Berlin is cloudy", "context:default"),
]


@pytest.mark.parametrize(("text", "rule"), CLASSIFY_EXAMPLES)
def test_classify_examples(text: str, rule: str) -> None:
    assert classify(text) == (rule.partition(":")[0], rule)


def test_every_rule_has_an_example() -> None:
    assert {rule for _, rule in CLASSIFY_EXAMPLES} == set(RULES)


def test_rule_names_are_stable() -> None:
    # The names are stored in events: this list changes only by adding names (new policy version).
    assert RULES == tuple(
        "identity:my_name_is identity:call_me identity:pronouns identity:born identity:birthday "  # noqa: SIM905
        "identity:age identity:from identity:live_in identity:i_work_as identity:i_work_at "
        "identity:allergy identity:i_am_a preference:i_prefer preference:i_like preference:i_hate "
        "preference:my_favorite preference:would_rather preference:cannot_stand preference:fan_of "
        "preference:into preference:diet relationship:x_is_my relationship:i_am_xs "
        "relationship:married_to relationship:dating relationship:i_have relationship:my_relation "
        "plan:by_deadline plan:tomorrow plan:later_today plan:next_period plan:remind_me "
        "plan:going_to plan:plan_to plan:want_to plan:need_to_by plan:need_to plan:i_will "
        "plan:scheduled activity:training_for activity:learning activity:working_on "
        "activity:have_been_ing activity:currently_ing activity:routine activity:habit "
        "event:yesterday event:last_period event:ago event:went_to event:milestone "
        "event:past_with_time ephemeral:right_now ephemeral:at_the_moment ephemeral:feeling "
        "ephemeral:state ephemeral:away ephemeral:greeting context:default identity:fact "
        "relationship:fact preference:fact event:fact plan:task".split()
    )
    assert sorted(KIND_ORDER) == sorted(MEMORY_KINDS)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I am a bit tired", "ephemeral"),  # "a bit" is not a role
        ("Call me back tomorrow", "plan"),  # a request, not a name
        ("I would like to book a table", "context"),  # a request, not a preference
        ("I love my wife", "preference"),  # preference is tried before relationship
        ("I went to the doctor, next week I'll go back", "plan"),  # plan before event
        ("MY NAME IS ADA", "identity"),  # case-insensitive
        ("I am from Ohio", "identity"),  # contraction-tolerant both ways
        ("", "context"),
    ],
)
def test_classify_order_and_edges(text: str, kind: str) -> None:
    assert classify(text)[0] == kind


@SETTINGS
@given(st.one_of(unicode_texts(200), chat_texts()))
def test_classify_total_on_any_text(text: str) -> None:
    kind, rule = classify(text)
    assert kind in MEMORY_KINDS
    assert rule in RULES and rule.startswith(kind + ":")
    assert classify(text) == (kind, rule)


def test_classify_is_fast_on_adversarial_text() -> None:
    # No pattern backtracks quadratically: the longest allowed text classifies at once.
    for text in ("a" * 16_000, "i " * 8_000, "hi!" * 5_000 + "x", "x's " * 4_000):
        assert classify(text)[0] == "context"


# -- the fast normalization ------------------------------------------------------------------------


def _reference_normalize(value: str) -> str:
    """classify's normalization as it was: every step on every text."""
    folded = unicodedata.normalize("NFKC", value).casefold().translate(classifier._APOSTROPHES)
    folded = classifier._CONTRACTION.sub(lambda m: classifier._CONTRACTIONS[m.group()], folded)
    return " ".join(folded.split())


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(fast_path_texts())
def test_classify_normalization_is_unchanged(value: str) -> None:
    assert classifier._normalize(value) == _reference_normalize(value)


def test_classify_keeps_its_answers() -> None:
    assert classify("I`m allergic to peanuts") == ("identity", "identity:allergy")
    assert classify("I'm   gonna call   Mom tomorrow")[0] == "plan"
    assert re.fullmatch(r"\w+:\w+", classify("hello there")[1])


# -- one subject: third person and extraction style (classify-2) ---------------------------------


@pytest.mark.parametrize(
    ("first", "others", "kind"),
    [
        ("I'm allergic to peanuts.", ["The user is allergic to peanuts.",
                                      "Dana is allergic to peanuts.", "Dana's allergic to peanuts",
                                      "User is allergic to peanuts"], "identity"),
        ("I prefer window seats.", ["User prefers window seats.", "Dana prefers window seats",
                                    "The user usually prefers window seats"], "preference"),
        ("My daughter is named Mia.", ["User's daughter is named Mia.",
                                       "The user's daughter is named Mia",
                                       "Dana's daughter is named Mia"], "relationship"),
        ("I work at Acme", ["Alice works at Acme", "User works at Acme"], "identity"),
        ("I enjoy hiking", ["Carol enjoys hiking", "User enjoys hiking"], "preference"),
        ("I live in Denver", ["User lives in Denver", "Dana lives in Denver",
                              "On March 3, 2025, User lives in Denver"], "identity"),
        ("I have a daughter named Mia", ["Dana has a daughter named Mia",
                                         "User has a daughter named Mia"], "relationship"),
        ("I don't eat meat", ["User doesn't eat meat", "Dana does not eat meat"], "preference"),
        ("My favorite color is blue", ["The user's favorite color is blue",
                                       "Dana's favorite color is blue"], "preference"),
        ("I moved to Denver", ["Dana moved to Denver", "User moved to Denver"], "identity"),
        ("I was born in Ohio", ["User was born in Ohio", "Dana Smith was born in Ohio"],
         "identity"),
        ("I watch films every day", ["Dana watches films every day"], "activity"),
    ],
)
def test_third_person_and_extraction_style_classify_as_the_first_person(
        first: str, others: list[str], kind: str) -> None:
    assert classify(first)[0] == kind
    for text in others:
        assert classify(text) == classify(first), text


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The spare key is under the blue pot", "context"),  # "The" is no name
        ("Monday works for me", "context"),  # nor a day
        ("Tomorrow is my birthday", "plan"),  # the text as written still counts
        ("It works at last", "context"),
        ("Paris is lovely in May", "context"),
    ],
)
def test_only_a_name_or_the_user_is_taken_for_the_subject(text: str, kind: str) -> None:
    assert classify(text)[0] == kind


def test_classify_1_decides_as_it_did() -> None:
    # An audit re-classifies a recorded text with the version recorded beside its kind.
    assert classify("The user is allergic to peanuts.", CLASSIFY_1) == ("context", DEFAULT_RULE)
    assert classify("User prefers window seats.", CLASSIFY_1) == ("context", DEFAULT_RULE)
    assert classify("I'm allergic to peanuts.", CLASSIFY_1) == ("identity", "identity:allergy")


@pytest.mark.parametrize("name", ["Zara", "Joaquín", "Hélène", "Ana-Sofía", "Łukasz"])
def test_a_named_persons_plan_is_a_plan_whatever_letters_spell_the_name(name: str) -> None:
    # classify-4: read as "I have to file ..."; classify-3 took "Joaquín" for no name and filed
    # the plan as context, which decays within days.
    assert classify(f"{name} has to file the expense report by February 4.")[0] == "plan"
    assert classify(f"{name} needs to sort out their fishing licence soon.")[0] == "plan"
    if not name.isascii():
        assert classify(f"{name} needs to sort out their fishing licence soon.",
                        classifier.CLASSIFY_3)[0] == "context"

"""The query plan without a model (eventmem/recall/plan.py): expansion (past tense, third person,
the declarative form of a question), the small-talk gate, intent, compound questions, and the
plan that separates time from content."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.clock import from_micros, to_micros
from eventmem.recall.facts import former_asked
from eventmem.recall.plan import (
    asks_former,
    asks_hypothetical,
    asks_list,
    asks_past,
    classify,
    declarative,
    is_chitchat,
    past_tense,
    plan,
    split_compound,
    templates,
    third_person,
    without_frame,
)
from eventmem.text.timeexpr import TimeRange, find_time

# Thursday 15 June 2023, 15:30 UTC
NOW = to_micros(datetime(2023, 6, 15, 15, 30, tzinfo=UTC))


def day(y: int, m: int, d: int) -> int:
    return to_micros(datetime(y, m, d, tzinfo=UTC))


# -- expansion -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("verb", "past"), [
    ("go", "went"), ("adopt", "adopted"), ("bake", "baked"), ("study", "studied"),
    ("stop", "stopped"), ("play", "played"), ("buy", "bought"), ("visit", "visited"),
])
def test_past_tense(verb: str, past: str) -> None:
    assert past_tense(verb) == past


def test_third_person() -> None:
    assert [third_person(v) for v in ("like", "go", "study", "watch", "have", "play")] == [
        "likes", "goes", "studies", "watches", "has", "plays"]


@pytest.mark.parametrize(("question", "statement"), [
    ("When did Caroline go to the LGBTQ support group?",
     "Caroline went to the LGBTQ support group"),
    ("When did Melanie's friend adopt a child?", "Melanie's friend adopted a child"),
    ("What did Caroline research?", "Caroline researched"),
    ("Does Bob like green tea?", "Bob likes green tea"),
    ("Where is Alice's office?", "Alice's office is"),
    ("Has she finished the marathon?", "she has finished the marathon"),
    ("Will Dana visit Porto?", "Dana will visit Porto"),
])
def test_declarative_form_of_a_question(question: str, statement: str) -> None:
    assert declarative(question) == statement


@pytest.mark.parametrize("text", ["Alice moved to Berlin", "What setback did she face?", "tea"])
def test_no_template_no_expansion(text: str) -> None:
    assert declarative(text) is None


# -- the gate, intent, splitting -----------------------------------------------------------------


@pytest.mark.parametrize("text", ["hi", "Hello!", "thanks!", "Thank you so much", "ok cool",
                                  "okay", "good morning", "lol", "got it, thanks"])
def test_small_talk_is_gated(text: str) -> None:
    assert is_chitchat(text)
    assert plan(text, NOW).chitchat


@pytest.mark.parametrize("text", ["hi, where does Alice live?", "thanks for the tea recipe",
                                  "cool story about Paris", "ok what is my passport number"])
def test_a_question_is_not_small_talk(text: str) -> None:
    assert not is_chitchat(text)
    assert not plan(text, NOW).chitchat


@pytest.mark.parametrize(("text", "intent"), [
    ("When did Alice move to Berlin?", "temporal"),
    ("How long have Mel and her husband been married?", "temporal"),
    ("what did I do last May", "temporal"),
    ("Why did Maria join the military?", "causal"),
    ("Who is Priya?", "entity"),
    ("Tell me about Caroline", "entity"),
    ("What is Sam's favourite drink?", "preference"),
    ("Does Bob like tea?", "preference"),
    ("Where does Alice work?", "factual"),
    ("How many kids does Melanie have?", "factual"),
    ("Alice Berlin office", "general"),
    # what is still to do, asked by what is due or left open
    ("Anything left on my plate?", "todo"),
    ("Do I have anything due soon?", "todo"),
    ("What tasks does the user still have open?", "todo"),
    ("Any deadlines coming up for me?", "todo"),
    ("Is anything left of the cake?", "factual"),
])
def test_intent(text: str, intent: str) -> None:
    assert classify(text, find_time(text, NOW)) == intent


@pytest.mark.parametrize(("text", "parts"), [
    ("Where does Alice live and what is her job?", ["Where does Alice live",
                                                    "what is her job"]),
    ("Where does Alice live and what does she do?", []),  # "what does she do" has no content
    ("Alice's job; also where does Bob live", ["Alice's job", "where does Bob live"]),
    ("Where is the key? When is the party?", ["Where is the key", "When is the party"]),
    ("Did Alice and Bob go to Paris?", []),
    ("tea and coffee", []),
    ("what is it and?", []),
])
def test_compound_questions_split(text: str, parts: list[str]) -> None:
    assert split_compound(text) == parts


def test_plan_separates_time_from_content() -> None:
    p = plan("What setback did Melanie face in October 2023?", NOW)
    assert p.intent == "temporal"  # what happened at a named time (tests/recall/test_dates.py)
    assert p.content == "What setback did Melanie face ?"
    assert plan("Melanie's setback in October 2023", NOW).intent == "temporal"  # no rule fits
    assert isinstance(p.time, TimeRange)
    assert from_micros(p.time.start) == datetime(2023, 10, 1, tzinfo=UTC)
    # a query of nothing but its time keeps its words
    only = plan("what did we do yesterday?", NOW)
    assert only.content == "what did we do yesterday?" and only.intent == "temporal"
    assert only.time is not None
    assert from_micros(only.time.start) == from_micros(NOW).replace(
        hour=0, minute=0) - timedelta(days=1)


def test_plan_of_a_compound_question_has_parts_and_no_expansion() -> None:
    p = plan("When did Alice move and what is her job?", NOW)
    assert p.parts == ("When did Alice move", "what is her job")
    assert p.expansion is None
    assert plan("When did Alice move?", NOW).expansion == "Alice moved"


@pytest.mark.parametrize(("question", "expected"), [
    ("When did Andrew and his girlfriend go fishing?", "Andrew and his girlfriend went fishing"),
    ("How long have Jolene and her partner been together?",
     "Jolene and her partner have been together"),
    ("Where do Jon and Gina live?", "Jon and Gina live"),
    ("When did Melanie and Caroline meet?", "Melanie and Caroline met"),
])
def test_a_subject_joined_by_and_is_one_subject(question: str, expected: str) -> None:
    assert declarative(question) == expected


_SUBJECTS = ["Andrew", "Andrew and his girlfriend", "Jon and Gina", "my sister", "they",
             "the team", "Melanie's friend"]
_VERBS = ["go", "meet", "buy", "study", "stop", "and", "his", "visit"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["When did", "Where does", "How long have", "What do", "Why did"]),
       st.sampled_from(_SUBJECTS), st.sampled_from(_VERBS),
       st.lists(st.sampled_from(["to", "the", "park", "fishing", "with", "Tom"]), max_size=3))
def test_the_declarative_form_never_makes_up_a_word(opening: str, subject: str, verb: str,
                                                    tail: list[str]) -> None:
    question = f"{opening} {subject} {verb} {' '.join(tail)}?"
    answer = declarative(question)
    if answer is None:
        return
    said = {w.lower() for w in question.rstrip("?").split()}
    for word in answer.split():
        w = word.lower()
        assert w in said or any(w in (past_tense(v), third_person(v)) for v in said), (
            question, answer)


@pytest.mark.parametrize("question", [
    "What activities has Melanie done with her family?",
    "Which cities has Jon visited?",
    "What European countries has Maria been to?",
    "What types of pottery have they made?",
    "In what ways is Caroline helping the community?",
    "What instruments does Melanie play?",
])
def test_a_question_for_a_list_of_things(question: str) -> None:
    assert asks_list(question)
    assert plan(question, 0).listing


@pytest.mark.parametrize("question", [
    "What does Melanie do to destress?",  # "does" is no plural noun
    "What is Caroline's identity?",
    "What kind of art does Caroline make?",  # one kind
    "What did Caroline research?",
    "Where does Bob live?",
])
def test_a_question_for_one_thing(question: str) -> None:
    assert not asks_list(question)


def test_a_question_in_the_past_tense_may_ask_about_a_replaced_value() -> None:
    assert asks_past("When did Bob live in Oslo?")
    assert asks_past("Where was the meeting held?")
    assert not asks_past("When is Theo seeing the dentist?")
    assert not asks_past("What time does the flight depart?")
    assert plan("When did Bob live in Oslo?", 0).past
    # How things turned out asks the last value, not a replaced one.
    assert not asks_past("What day did my dentist appointment end up on?")
    assert not asks_past("Which city did Dana move to in the end?")


@pytest.mark.parametrize(("question", "former"), [
    ("Where did I use to live?", "before"),
    ("What was my previous job title?", "before"),
    ("What car did I have before the Camry?", "before"),
    ("What was my old address?", "before"),
    ("Which company did Dana leave?", "left"),
    ("What was the original time of the Tashkent flight?", "first"),
    ("What day was the eye test first booked for?", "first"),
    ("What city did I originally live in?", "first"),
    # the value as it is: no old value, the current one
    ("How old is Victor?", None),
    ("Where do I live?", None),
])
def test_a_question_may_ask_a_value_replaced_since(question, former) -> None:
    assert asks_former(question) == former
    assert plan(question, NOW).former == former


@pytest.mark.parametrize(("question", "former"), [
    ("Which company did Dana leave?", "before"),
    ("What was the original time of my flight?", "first"),
    ("Where did I use to work?", "before"),  # read as "Where did I work?"
    # a departure's leaving, a hometown (it never changes), no personal attribute
    ("When does my flight leave?", None),
    ("Where is Theo from originally?", None),
    ("What did I do before the meeting?", None),
])
def test_recall_reads_a_replaced_value_for_a_personal_attribute_that_changes(
        question, former) -> None:
    assert former_asked(plan(question, NOW)) == former


def test_hyde_templates_per_intent() -> None:
    assert templates("causal", "Why did Dana quit her job?", "Dana quit her job") == (
        "Dana quit her job because", "the reason Dana quit her job was", "Dana quit her job so")
    assert templates("entity", "Who is Alice?") == ("Alice is a", "Alice works as",
                                                     "Alice lives in")
    assert templates("preference", "Does Bob like tea?", "Bob likes tea") == (
        "Bob loves", "Bob favourite is", "Bob prefers")
    assert len(templates("temporal", "When did Bob live in Oslo?", "Bob lived in Oslo")) == 3
    # No name to build on, or an intent without templates: none, never a garbled phrase.
    assert templates("preference", "What is my favourite colour?", "my favourite is colour") == ()
    assert templates("factual", "Where does Bob live?", "Bob lives") == ()
    assert plan("Why did Dana quit her job?", 0).variants[0] == "Dana quit her job because"


# -- inference questions ---------------------------------------------------------------------------


@pytest.mark.parametrize("question", [
    "Would Caroline pursue writing as a career option?",
    "What might John's financial status be?",
    "Would John be considered a patriotic person?",
    "What would Caroline's political leaning likely be?",
    "Is Ana likely to move abroad?",
    "Could Bob probably run a marathon?",
])
def test_an_inference_question_is_told_by_its_frame(question: str) -> None:
    assert asks_hypothetical(question)
    assert plan(question, NOW).hypothetical


@pytest.mark.parametrize("question", [
    "Where does Bob live?",
    "What did Caroline research?",
    "When did Melanie go camping?",
    "Does John live close to a beach?",
])
def test_a_question_of_fact_is_no_inference(question: str) -> None:
    assert not asks_hypothetical(question)
    assert not plan(question, NOW).hypothetical


@pytest.mark.parametrize(("question", "left"), [
    ("Would John be considered a patriotic person?", "Would John a patriotic person?"),
    ("What might John's financial status be?", "What John's financial status be?"),
    ("Is Ana likely to move abroad?", "Is Ana to move abroad?"),
    ("Would Bob probably enjoy jazz?", "Would Bob enjoy jazz?"),
    # Nothing but the frame: the question stays as it is.
    ("Is it likely?", "Is it likely?"),
])
def test_without_frame_drops_the_frame_words_only(question: str, left: str) -> None:
    assert without_frame(question) == left


_FRAME = {"likely", "unlikely", "probably", "possibly", "perhaps", "might", "considered"}


@given(st.lists(st.sampled_from(["would", "John", "be", "likely", "considered", "enjoy",
                                 "jazz", "might", "a", "patriotic", "person", "perhaps", "?"]),
                max_size=12))
def test_without_frame_keeps_every_other_word_in_order(words: list[str]) -> None:
    text = " ".join(words)
    left = without_frame(text)
    kept = [w for w in words if w not in _FRAME and w != "be"]
    # What goes is only frame words (and the "be" of "be considered"); the rest stays in order,
    # unless nothing but the frame would be left, when the text stays whole.
    assert [w for w in left.split() if w != "be"] == kept or left == text

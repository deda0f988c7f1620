"""Text policies: the kind classifier, the importance score and the inferred ``valid_until``.

All three are pure functions of their arguments: examples pin each rule, hypothesis checks they
never fail and stay in range on arbitrary text.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.clock import from_micros, to_micros
from eventmem.errors import InvalidInputError
from eventmem.events import MEMORY_KINDS
from eventmem.policies.classify import KIND_ORDER, RULES, classify
from eventmem.policies.importance import (
    FLASHBULB_MIN_IMPORTANCE,
    Importance,
    ImportanceParams,
    score,
)
from eventmem.policies.timebound import RULES as TIME_RULES
from eventmem.policies.timebound import infer_valid_until

SETTINGS = settings(max_examples=200, deadline=None)
_unicode = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=200)
_chatty = st.lists(
    st.sampled_from(
        "I i'm am a my name is call me tomorrow next week yesterday we went to love hate sister "  # noqa: SIM905
        "boss urgent breach !! ASAP Friday by in 3 days right now brb hi working on every morning "
        "May 3 2025-02-10 ’ ' . , ? é 東京".split()
    ),
    max_size=25,
).map(" ".join)

# ---------------------------------------------------------------- classify

CLASSIFY_EXAMPLES = [
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
    ("We got married", "event:milestone"),
    ("I moved house in 2019", "event:past_with_time"),
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
        "ephemeral:state ephemeral:away ephemeral:greeting context:default".split()
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
@given(st.one_of(_unicode, _chatty))
def test_classify_total_on_any_text(text: str) -> None:
    kind, rule = classify(text)
    assert kind in MEMORY_KINDS
    assert rule in RULES and rule.startswith(kind + ":")
    assert classify(text) == (kind, rule)


def test_classify_is_fast_on_adversarial_text() -> None:
    # No pattern backtracks quadratically: the longest allowed text classifies at once.
    for text in ("a" * 16_000, "i " * 8_000, "hi!" * 5_000 + "x", "x's " * 4_000):
        assert classify(text)[0] == "context"


# ---------------------------------------------------------------- importance

P = ImportanceParams()


def _score(
    text: str,
    similarity: float | None = None,
    utilities: tuple[float, ...] = (),
    session: float | None = None,
) -> Importance:
    return score(
        text,
        neighbour_similarity=similarity,
        neighbour_utilities=utilities,
        session_similarity=session,
        params=P,
    )


def test_urgent_security_breach_is_a_critical_flashbulb() -> None:
    r = _score("URGENT: security breach, all passwords leaked!!!")
    assert r.flashbulb and r.priority == "critical"
    assert {"security:breach", "urgency:urgent", "emphasis:!"} <= set(r.cues)
    assert r.channels["arousal"] >= P.flashbulb_arousal
    assert r.effective >= FLASHBULB_MIN_IMPORTANCE > r.score


def test_bland_sentence_is_normal() -> None:
    r = _score("The sky was blue and we had lunch.")
    assert (r.priority, r.flashbulb, r.cues) == ("normal", False, ())
    assert r.channels == {"novelty": 1.0, "arousal": 0.0, "reward": 0.5, "attention": 0.5}
    assert r.effective == r.score == pytest.approx(0.475)


def test_security_cue_alone_is_at_least_high() -> None:
    r = _score("rotate the password", similarity=0.9, utilities=(0.1,), session=0.1)
    assert r.score < P.high_from and r.priority == "high" and not r.flashbulb


def test_grief_is_flashbulb_without_being_critical() -> None:
    r = _score("My grandmother passed away, I'm devastated")
    assert r.flashbulb and r.priority == "high"


def test_novelty_falls_with_a_near_duplicate() -> None:
    assert _score("x").channels["novelty"] == 1.0
    assert _score("x", similarity=0.97).channels["novelty"] == pytest.approx(0.03)
    assert _score("x", similarity=0.97).score < _score("x").score


def test_reward_follows_neighbour_utilities() -> None:
    assert _score("x", utilities=(0.9, 0.7)).channels["reward"] == pytest.approx(0.8)
    assert _score("x", utilities=(0.9, 0.7)).score > _score("x", utilities=(0.1,)).score
    assert _score("x", utilities=(0.2, math.nan)).channels["reward"] == pytest.approx(0.2)


def test_attention_is_session_relevance() -> None:
    assert _score("x", session=0.9).channels["attention"] == pytest.approx(0.9)
    assert _score("x", session=0.9).score > _score("x", session=0.1).score


def test_shouting_alone_is_not_a_flashbulb() -> None:
    r = _score("WHY WOULD ANYONE EVER DO THIS!!!!!!!!!!")
    assert not r.flashbulb and r.channels["arousal"] < 0.3


def test_params_are_validated_and_embeddable() -> None:
    with pytest.raises(InvalidInputError):
        ImportanceParams(high_from=0.9, critical_from=0.8)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"novelty_weight": -1.0}, ImportanceParams)
    assert msgspec.convert(msgspec.to_builtins(P), ImportanceParams) == P


_floats = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True))


@SETTINGS
@given(
    st.one_of(_unicode, _chatty),
    _floats,
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5),
    _floats,
)
def test_score_in_range_on_any_input(
    text: str, similarity: float | None, utilities: list[float], session: float | None
) -> None:
    r = score(
        text,
        neighbour_similarity=similarity,
        neighbour_utilities=utilities,
        session_similarity=session,
        params=P,
    )
    assert 0.0 <= r.score <= 1.0 and 0.0 <= r.effective <= 1.0
    assert list(r.channels) == ["novelty", "arousal", "reward", "attention"]
    assert all(0.0 <= v <= 1.0 for v in r.channels.values())
    assert r.priority in ("low", "normal", "high", "critical")
    assert list(r.cues) == sorted(c for c in r.cues if not c.startswith("emphasis:")) + [
        c for c in r.cues if c.startswith("emphasis:")
    ]
    rev = score(
        text,
        neighbour_similarity=similarity,
        neighbour_utilities=utilities[::-1],
        session_similarity=session,
        params=P,
    )
    assert rev == r  # the order of the neighbours does not matter


# ---------------------------------------------------------------- timebound

WED = to_micros(datetime(2025, 1, 1, 15, 30, tzinfo=UTC))  # a Wednesday afternoon


def _until(text: str, now: int = WED) -> tuple[str, str] | None:
    found = infer_valid_until(text, now)
    return None if found is None else (from_micros(found[0]).date().isoformat(), found[1])


@pytest.mark.parametrize(
    ("text", "until", "rule"),
    [
        ("finish it today", "2025-01-02", "today"),
        ("dinner tonight", "2025-01-02", "today"),
        ("Tomorrow I will call the bank", "2025-01-03", "tomorrow"),
        ("the day after tomorrow", "2025-01-04", "day_after_tomorrow"),
        ("by the end of the week", "2025-01-06", "this_week"),
        ("this weekend", "2025-01-06", "this_week"),
        ("We fly to Rome next week", "2025-01-13", "next_week"),
        ("I need to finish the report by Friday", "2025-01-04", "weekday"),
        ("on Wednesday", "2025-01-02", "weekday"),  # today is Wednesday: today
        ("on Monday", "2025-01-07", "weekday"),
        ("next Friday", "2025-01-11", "weekday"),  # Friday of next week
        ("in 3 days", "2025-01-05", "in_n_units"),
        ("within two weeks", "2025-01-16", "in_n_units"),
        ("in a couple of months", "2025-03-02", "in_n_units"),
        ("this month", "2025-02-01", "this_month"),
        ("by the end of the month", "2025-02-01", "this_month"),
        ("next month", "2025-03-01", "next_month"),
        ("later this year", "2026-01-01", "this_year"),
        ("next year", "2027-01-01", "next_year"),
        ("by May 3", "2025-05-04", "date"),
        ("before the 3rd of May", "2025-05-04", "date"),
        ("May 3rd, 2024", "2024-05-04", "date"),  # an explicit year is kept, even if past
        ("due 2025-02-10", "2025-02-11", "iso_date"),
        ("tomorrow, and the flight is next month", "2025-03-01", "next_month"),  # latest wins
    ],
)
def test_timebound_examples(text: str, until: str, rule: str) -> None:
    assert _until(text) == (until, f"timebound:{rule}")


def test_timebound_sub_day_units_are_exact() -> None:
    assert infer_valid_until("back in 3 hours", WED) == (
        WED + 3 * 3_600_000_000,
        "timebound:in_n_units",
    )


def test_timebound_date_rolls_to_next_year_once_past() -> None:
    may4 = to_micros(datetime(2025, 5, 4, 9, tzinfo=UTC))
    assert _until("by May 3", may4) == ("2026-05-04", "timebound:date")
    assert _until("by May 4", may4) == ("2025-05-05", "timebound:date")


@pytest.mark.parametrize("text", ["", "I like tea", "by Feb 30", "meet at 3:30", "May 2025"])
def test_timebound_none(text: str) -> None:
    assert infer_valid_until(text, WED) is None


@SETTINGS
@given(st.one_of(_unicode, _chatty), st.integers(0, to_micros(datetime(9000, 1, 1, tzinfo=UTC))))
def test_timebound_total_and_in_the_future(text: str, now: int) -> None:
    found = infer_valid_until(text, now)
    assert found == infer_valid_until(text, now)
    if found is not None:
        assert found[1] in TIME_RULES
        explicit_year = found[1] in ("timebound:date", "timebound:iso_date")
        assert found[0] > now or explicit_year

"""Time expressions (eventmem/text/timeexpr.py): phrases resolved against ``now`` into spans,
anchored offsets, named months and days (a leap day without a year is the latest one), and
texts without a time."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.clock import MICROS_PER_DAY, from_micros, to_micros
from eventmem.text.timeexpr import (
    Anchored,
    TimeRange,
    find_time,
    mentions_time,
    stated_time,
    strip_phrase,
)

# Thursday 15 June 2023, 15:30 UTC
NOW = to_micros(datetime(2023, 6, 15, 15, 30, tzinfo=UTC))


def day(y: int, m: int, d: int) -> int:
    return to_micros(datetime(y, m, d, tzinfo=UTC))


def span(text: str, now: int = NOW) -> tuple[int, int]:
    found = find_time(text, now)
    assert isinstance(found, TimeRange), (text, found)
    return found.start, found.end


# -- time expressions ----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "start", "end"), [
    ("what did I do yesterday", day(2023, 6, 14), day(2023, 6, 15)),
    ("anything today?", day(2023, 6, 15), day(2023, 6, 16)),
    ("what happened the day before yesterday", day(2023, 6, 13), day(2023, 6, 14)),
    ("trips in 2022", day(2022, 1, 1), day(2023, 1, 1)),
    ("what did Alice do last May", day(2023, 5, 1), day(2023, 6, 1)),
    ("the concert in August", day(2022, 8, 1), day(2022, 9, 1)),  # the August that has been
    ("plans for next May", day(2024, 5, 1), day(2024, 6, 1)),
    ("on 7 May 2023", day(2023, 5, 7), day(2023, 5, 8)),
    ("on the 7th of May, 2023", day(2023, 5, 7), day(2023, 5, 8)),
    ("May 7, 2023", day(2023, 5, 7), day(2023, 5, 8)),
    ("on 16 June", day(2022, 6, 16), day(2022, 6, 17)),  # tomorrow's date: last year's
    ("what happened in October 2023?", day(2023, 10, 1), day(2023, 11, 1)),
    ("meeting on 2023-05-07", day(2023, 5, 7), day(2023, 5, 8)),
    ("3 days ago", day(2023, 6, 12), day(2023, 6, 13)),
    ("two weeks ago", day(2023, 5, 29), day(2023, 6, 5)),
    ("a month ago", day(2023, 5, 1), day(2023, 6, 1)),
    ("two years ago", day(2021, 1, 1), day(2022, 1, 1)),
    ("last week", day(2023, 6, 5), day(2023, 6, 12)),
    ("this week", day(2023, 6, 12), day(2023, 6, 19)),
    ("last weekend", day(2023, 6, 10), day(2023, 6, 12)),
    ("last month", day(2023, 5, 1), day(2023, 6, 1)),
    ("next month", day(2023, 7, 1), day(2023, 8, 1)),
    ("last year", day(2022, 1, 1), day(2023, 1, 1)),
    ("on Monday", day(2023, 6, 12), day(2023, 6, 13)),
    ("last Thursday", day(2023, 6, 8), day(2023, 6, 9)),  # today is a Thursday
    ("next Friday", day(2023, 6, 16), day(2023, 6, 17)),
])
def test_time_expressions_resolve_against_now(text: str, start: int, end: int) -> None:
    assert span(text) == (start, end)


def test_the_past_n_days_ends_now() -> None:
    assert span("what did we talk about in the past 10 days") == (NOW - 10 * MICROS_PER_DAY,
                                                                  NOW + 1)


def test_an_offset_from_an_event_is_anchored() -> None:
    found = find_time("what did Bob buy two weeks before the trip to Japan?", NOW)
    assert found == Anchored(-14 * MICROS_PER_DAY, 7 * MICROS_PER_DAY, "the trip to japan",
                             "two weeks before the trip to japan")
    after = find_time("3 days after my birthday", NOW)
    assert isinstance(after, Anchored) and after.offset == 3 * MICROS_PER_DAY
    assert after.anchor == "my birthday"


@pytest.mark.parametrize("text", [
    "what does Alice like", "I may go to the gym", "the band will march forward",
    "when did Caroline go to the support group?", "room 101", "31 degrees",
])
def test_no_time_where_there_is_none(text: str) -> None:
    assert find_time(text, NOW) is None


PAST = ["yesterday", "the day before yesterday", "3 days ago", "a week ago", "two months ago",
        "last week", "last weekend", "last month", "last year", "last Monday", "last May"]

# A named month or day may be the current one: it starts by today, it may end later.
NAMED = ["in August", "on 3 March", "during December", "since January"]


@settings(max_examples=60, deadline=None)
@given(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1),
                    timezones=st.just(UTC)), st.sampled_from(PAST))
def test_past_expressions_are_nonempty_spans_before_today(now: datetime, text: str) -> None:
    at = to_micros(now)
    start, end = span(text, at)
    assert start < end
    today = to_micros(datetime(now.year, now.month, now.day, tzinfo=UTC))
    assert end <= today + MICROS_PER_DAY  # never later than today
    assert start < today  # and it starts in the past
    assert span(text, at) == (start, end)  # a pure function of text and now


@settings(max_examples=40, deadline=None)
@given(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 1, 1),
                    timezones=st.just(UTC)), st.sampled_from(NAMED))
def test_a_named_month_or_day_is_the_latest_that_has_begun(now: datetime, text: str) -> None:
    start, end = span(text, to_micros(now))
    assert start < end <= start + 31 * MICROS_PER_DAY
    assert start <= to_micros(now)
    assert to_micros(now) - start < 366 * MICROS_PER_DAY


def test_strip_phrase_leaves_the_content() -> None:
    assert strip_phrase("What did Melanie do in October 2023?", "in october 2023") == \
        "What did Melanie do ?"
    assert strip_phrase("nothing here", "") == "nothing here"


def test_mentions_time() -> None:
    assert mentions_time("I went to a support group yesterday")
    assert mentions_time("We moved in 2019")
    assert mentions_time("see you on Friday")
    assert not mentions_time("I love painting sunsets")
    assert not mentions_time("you may be right")


# -- a leap day without a year is the latest one ---------------------------------------------------


@pytest.mark.parametrize("now,year", [
    (datetime(2025, 3, 1, tzinfo=UTC), 2024),   # the year after a leap year, after February
    (datetime(2025, 12, 31, tzinfo=UTC), 2024),
    (datetime(2028, 2, 28, tzinfo=UTC), 2024),  # before this year's has come
    (datetime(2028, 2, 29, 9, tzinfo=UTC), 2028),  # on the day itself
    (datetime(2101, 1, 1, tzinfo=UTC), 2096),   # 2100 is not a leap year
])
@pytest.mark.parametrize("text", ["what did I do on 29 February", "February 29th"])
def test_a_leap_day_without_a_year_is_the_latest_leap_day(now: datetime, year: int,
                                                          text: str) -> None:
    found = find_time(text, to_micros(now))
    assert isinstance(found, TimeRange)
    assert (from_micros(found.start), from_micros(found.end)) == (
        datetime(year, 2, 29, tzinfo=UTC), datetime(year, 3, 1, tzinfo=UTC))


# -- stated_time: the past day a statement says its fact began ------------------------------------

STATED_AT = datetime(2025, 3, 5, 15, 30, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize("text,day", [
    ("Yesterday I moved to Denver", date(2025, 3, 4)),
    ("Last night we adopted a kitten", date(2025, 3, 4)),
    ("The day before yesterday I quit", date(2025, 3, 3)),
    ("Last Friday I sold my car", date(2025, 2, 28)),
    ("On March 3 I joined the choir", date(2025, 3, 3)),
    ("On March 6 I joined the choir", date(2024, 3, 6)),  # the latest March 6 gone by
    ("March 3, 2025: I switched jobs", date(2025, 3, 3)),
    ("on 2025-02-10 I got a phone", date(2025, 2, 10)),
    ("3 days ago I ran a marathon", date(2025, 3, 2)),
    ("Two weeks ago I started at Globex", date(2025, 2, 19)),
    ("A couple of months ago I moved", date(2025, 1, 5)),
    ("Since March 1 I live in Lyon", date(2025, 3, 1)),
])
def test_stated_time_is_the_day_the_text_names(text: str, day: date) -> None:
    found = stated_time(text, to_micros(STATED_AT))
    assert found is not None and from_micros(found.start).date() == day
    assert found.end - found.start == MICROS_PER_DAY


@pytest.mark.parametrize("text", [
    "I bought a red bicycle",
    "I moved to Denver today",  # today: the time of recording says as much
    "This morning I had coffee",
    "On 2025-04-10 I will move",  # still to come
    "I need to renew my passport by March 3",  # a deadline
    "I live here until March 1",
    "The report is due March 1",
    "Next Friday I fly to Rome",
    "On Friday I fly to Rome",  # as often the coming Friday
    "In 2023 I lived in Oslo",  # a span: when in it?
    "Last month I started running",
])
def test_stated_time_passes_over_what_is_no_past_day(text: str) -> None:
    assert stated_time(text, to_micros(STATED_AT)) is None

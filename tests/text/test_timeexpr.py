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
    statement_times,
    states_duration,
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


@pytest.mark.parametrize(("text", "start"), [
    ("what was my job on 4/15/2023?", day(2023, 4, 15)),  # month first, as English writes it
    ("where did I live on 4/15/23", day(2023, 4, 15)),
    ("on 15/4/2023", day(2023, 4, 15)),  # 15 is no month: day first
    ("as of 15.04.2023", day(2023, 4, 15)),  # dots: day first
    ("what happened on 6/16", day(2022, 6, 16)),  # no year: the most recent such day
    ("two days before 4/15/2023", day(2023, 4, 13)),
])
def test_a_date_in_digits_in_a_question_is_that_day(text: str, start: int) -> None:
    assert span(text) == (start, start + MICROS_PER_DAY)


@given(st.dates(min_value=date(1990, 1, 1), max_value=date(2060, 12, 31)))
def test_any_day_written_in_digits_is_that_day(when: date) -> None:
    start = to_micros(datetime(when.year, when.month, when.day, tzinfo=UTC))
    for text in (f"what happened on {when.month}/{when.day}/{when.year}?",
                 f"as of {when.day:02d}.{when.month:02d}.{when.year}"):
        assert span(text) == (start, start + MICROS_PER_DAY), text


@pytest.mark.parametrize("text", ["add 1/2 cup of sugar", "score was 3/4", "on 2/30/2023"])
def test_digits_that_are_no_date_are_not_read_as_one(text: str) -> None:
    found = find_time(text, NOW)
    assert found is None or found.phrase == "2023"  # "2/30" is no day; the year still is


def test_a_date_in_digits_is_read_in_questions_only() -> None:
    # The write path's readings are part of its recorded policy (times-1), which read no such date.
    assert stated_time("Moved to Lyon on 4/15/2023.", NOW) is None


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


# -- tomorrow, "in N units", and a date moved by an offset ----------------------------------------


@pytest.mark.parametrize(("text", "start", "end"), [
    ("what am I doing tomorrow", day(2023, 6, 16), day(2023, 6, 17)),
    ("the day after tomorrow", day(2023, 6, 17), day(2023, 6, 18)),
    ("in 3 days", day(2023, 6, 18), day(2023, 6, 19)),
    ("in two weeks", day(2023, 6, 26), day(2023, 7, 3)),  # about then: a week-wide window
    ("in a month", day(2023, 7, 1), day(2023, 8, 1)),
    ("a few days ago", day(2023, 6, 10), day(2023, 6, 15)),  # "a few" is not three exactly
])
def test_days_to_come_and_vague_counts(text: str, start: int, end: int) -> None:
    assert span(text) == (start, end)


@pytest.mark.parametrize(("text", "start", "end"), [
    # Monday 14 August 2023: the Friday before it is the 11th
    ("the Friday before 14 August 2023", day(2023, 8, 11), day(2023, 8, 12)),
    ("the Sunday before 25 May 2023", day(2023, 5, 21), day(2023, 5, 22)),
    # Friday 20 October: the weekend before is the 14th-15th
    ("the weekend before 20 October 2023", day(2023, 10, 14), day(2023, 10, 16)),
    ("last weekend before April 10, 2023", day(2023, 4, 8), day(2023, 4, 10)),
    ("two weekends before 17 July 2023", day(2023, 7, 8), day(2023, 7, 10)),
    ("the week before 2 April 2023", day(2023, 3, 26), day(2023, 4, 2)),
    ("two weeks before August 11, 2023", day(2023, 7, 25), day(2023, 8, 1)),
    ("the day after May 3, 2023", day(2023, 5, 4), day(2023, 5, 5)),
    ("the weekend after 2023-05-03", day(2023, 5, 6), day(2023, 5, 8)),
    ("a month after May 2023", day(2023, 6, 1), day(2023, 7, 1)),
    ("the year before May 2023", day(2022, 1, 1), day(2023, 1, 1)),
])
def test_an_offset_moves_the_date_after_it(text: str, start: int, end: int) -> None:
    assert span(text) == (start, end)


def test_a_moved_date_is_one_phrase() -> None:
    found = find_time("What did Maria do the Friday before 14 August 2023?", NOW)
    assert isinstance(found, TimeRange)
    assert found.phrase == "the friday before 14 august 2023"
    assert strip_phrase("What did Maria do the Friday before 14 August 2023?",
                        found.phrase) == "What did Maria do ?"


@settings(max_examples=80, deadline=None)
@given(st.dates(min_value=date(1990, 1, 1), max_value=date(2090, 1, 1)),
       st.sampled_from(["day", "week", "weekend", "month", "year", "friday", "monday"]),
       st.sampled_from(["the", "two", "a few"]), st.booleans())
def test_an_offset_lands_on_its_side_of_the_date(when: date, unit: str, count: str,
                                                 after: bool) -> None:
    written = f"{count} {unit}s" if count == "two" else f"{count} {unit}"
    text = f"{written} {'after' if after else 'before'} {when.isoformat()}"
    start, end = span(text)
    of_day = day(when.year, when.month, when.day)
    assert start < end <= start + 366 * MICROS_PER_DAY
    if unit in ("day", "weekend", "friday", "monday"):  # a point wholly on one side
        assert (start >= of_day + MICROS_PER_DAY) if after else (end <= of_day)
    else:  # a window or a calendar span on that side
        assert (end > of_day + MICROS_PER_DAY) if after else (start < of_day)
    assert span(text) == (start, end)  # a pure function of the text


# -- statement_times: every time a statement speaks of ------------------------------------------

SAID = to_micros(datetime(2022, 3, 17, 15, 0, tzinfo=UTC))  # a Thursday


def spoken(text: str, at: int = SAID) -> list[tuple[date, int]]:
    """(first day, width in days) of each time ``text`` speaks of."""
    return [(from_micros(s.start).date(), (s.end - s.start) // MICROS_PER_DAY)
            for s in statement_times(text, at)]


@pytest.mark.parametrize(("text", "expected"), [
    ("James: Yesterday I went hiking with my dog.", [(date(2022, 3, 16), 1)]),
    ("I went to a support group last week", [(date(2022, 3, 7), 7)]),
    ("Two days ago I started a new job", [(date(2022, 3, 15), 1)]),
    ("We are moving next month", [(date(2022, 4, 1), 30)]),
    ("See you the day after tomorrow", [(date(2022, 3, 19), 1)]),
    ("That roadtrip this past weekend was insane!", [(date(2022, 3, 12), 2)]),
    ("Back in 2016 I started painting", [(date(2016, 1, 1), 366)]),
    ("I got my degree the week before March 3, 2022", [(date(2022, 2, 24), 7)]),
    ("My exam is in two weeks", [(date(2022, 3, 28), 7)]),
    ("On March 16, 2022 we met, and on 2022-03-20 we fly",
     [(date(2022, 3, 16), 1), (date(2022, 3, 20), 1)]),
])
def test_a_statement_speaks_of_the_times_it_names(text: str,
                                                  expected: list[tuple[date, int]]) -> None:
    assert spoken(text) == expected


@pytest.mark.parametrize(("text", "day_"), [
    ("I will fly to Rome on Friday", date(2022, 3, 18)),  # to come
    ("I'm flying to Rome on Friday", date(2022, 3, 18)),
    ("I flew to Rome on Friday", date(2022, 3, 11)),  # gone by
    ("We plan to visit Spain on 1 August", date(2022, 8, 1)),
    ("On March 3 I joined the choir", date(2022, 3, 3)),
    ("We met on 20 March", date(2021, 3, 20)),  # past tense: the one gone by
    ("The concert is on March 20", date(2022, 3, 20)),  # no tense: the nearer
])
def test_an_open_date_takes_the_tense_of_its_sentence(text: str, day_: date) -> None:
    [(first, width)] = spoken(text)
    assert (first, width) == (day_, 1)


def test_a_month_is_the_past_or_coming_one_by_tense() -> None:
    assert spoken("In August we visited Spain") == [(date(2021, 8, 1), 31)]
    assert spoken("We plan to visit Spain in August") == [(date(2022, 8, 1), 31)]


@pytest.mark.parametrize("text", [
    "I ran 2000 steps",  # a number, not a year
    "Today I feel great, this week was rough",  # the time of recording says as much
    "We finished it in two weeks",  # how long, not when
    "I love painting sunsets",
    "Over the past 10 days I read a lot",  # a span ending now
    "Two weeks before the trip I got sick",  # an offset from an event: the retrieval's to find
])
def test_a_statement_that_names_no_other_time_speaks_of_none(text: str) -> None:
    assert statement_times(text, SAID) == ()


TIME_WORDS = ["yesterday", "last week", "two days ago", "next month", "on Friday", "in August",
              "March 3", "March 3, 2021", "in 2019", "the weekend before May 2, 2022",
              "tomorrow", "in 3 weeks", "last Monday", "this weekend", "a few days ago",
              "I will", "I went", "and", "then", "we met", "12", "2000"]


@settings(max_examples=150, deadline=None)
@given(st.datetimes(min_value=datetime(1950, 1, 1), max_value=datetime(2090, 1, 1),
                    timezones=st.just(UTC)),
       st.lists(st.sampled_from(TIME_WORDS), max_size=10))
def test_statement_times_are_bounded_and_deterministic(when: datetime,
                                                       words: list[str]) -> None:
    text, at = " ".join(words), to_micros(when)
    found = statement_times(text, at)
    assert found == statement_times(text, at)  # a pure function of the text and the time
    assert len(found) <= 8
    assert [(s.start, s.end) for s in found] == sorted({(s.start, s.end) for s in found})
    for s in found:
        assert 0 < s.end - s.start <= 366 * MICROS_PER_DAY  # never wider than a year
        assert not s.start <= at < s.end  # never the span of the recording itself
        assert abs(s.start - at) < 200 * 366 * MICROS_PER_DAY  # within the calendar's reach


@pytest.mark.parametrize(("text", "says"), [
    ("I've known these friends for 4 years, since I moved", True),
    ("Seven years now, and I've found my muses", True),
    ("5 years already! Time flies", True),
    ("Since I was 17 or so", True),
    ("A friend made it for my 18th birthday ten years ago", True),
    ("We started dating in college", True),
    ("I love painting sunsets", False),
    ("See you at the party", False),
])
def test_states_duration(text: str, says: bool) -> None:
    assert states_duration(text) is says


def test_a_back_before_a_time_goes_with_it() -> None:
    assert strip_phrase("Where did I live back in February?", "February") == "Where did I live ?"


def test_each_forms_needles_are_in_every_match_of_it() -> None:
    # The statement readers skip a form when the text holds none of its NEEDLES: sound only if
    # every string its pattern needs (literals.necessary) holds one of them.
    from eventmem.policies.literals import necessary
    from eventmem.text import timeexpr

    patterns = dict(timeexpr._PATTERNS)
    for kind, needles in timeexpr.NEEDLES.items():
        need = necessary(patterns[kind].pattern, patterns[kind].flags)
        assert need is not None and not need.opening, kind
        assert all(any(n in s for n in needles) for s in need.strings), kind



def test_a_text_may_speak_of_time_by_a_digit_or_a_word_of_time() -> None:
    from eventmem.text.timeexpr import MONTHS, WEEKDAYS, _may_speak_of_time

    words = [*MONTHS, *WEEKDAYS, "yesterday", "today", "tonight", "tomorrow", "this morning",
             "afternoon", "evening", "last night", "a fortnight", "weeks", "months", "years",
             "3", "٣"]
    assert all(_may_speak_of_time(f"we met {w} here") for w in words)
    assert not _may_speak_of_time("we spoke at length about the plan")
    assert statement_times("We spoke at length about the plan", NOW) == ()

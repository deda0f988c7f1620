"""Time expressions in a query, resolved against the reader's ``now``, without a model.

``find_time("what did I do last May", now)`` is the span of last May; ``"two weeks before the
trip"`` is an :class:`Anchored` offset from an event the retrieval finds ("the trip"). Everything is
a pure function of the text and ``now`` (microseconds, UTC); calendar arithmetic is in UTC, since
the store keeps no time zone. Spans are half-open ``[start, end)``.

Understood: ISO dates; "7 May 2023", "May 7, 2023", "May 2023", "in 2023"; dates in digits in a
query ("on 4/15/2025", "15.04.2025", "on 4/15"); a month after a
preposition or determiner ("in August", "last May"); "yesterday", "today", "tonight", "last night",
"tomorrow"; "N days/weeks/months/years ago", "in N days/weeks..."; "last/this/next week, weekend,
month, year"; "the past N days"; weekdays ("on Monday", "last Friday"); a date moved by an offset
("two weeks before August 11, 2023", "the Friday before 14 August", "the weekend after May 3");
and "N units before/after <event>".

:func:`stated_time` reads a statement rather than a query: the past day its text says a fact
began ("yesterday I moved", "two weeks ago", "on March 3"), for the write path's valid time.
:func:`statement_times` reads every time a statement speaks of, past or to come ("yesterday",
"next month", "on Friday" in the tense of its clause), for the write path to record.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime, timedelta
from typing import NamedTuple

from eventmem.clock import MICROS_PER_DAY, from_micros, to_micros
from eventmem.text.lazyre import lazy_re

__all__ = ["Anchored", "TimeRange", "find_time", "mentions_time", "stated_time", "statement_times",
           "states_duration", "strip_phrase"]


class TimeRange(NamedTuple):
    """A resolved span of time: ``[start, end)`` in epoch microseconds, and the words it came
    from."""

    start: int
    end: int
    phrase: str


class Anchored(NamedTuple):
    """A span relative to an event named in the query ("two weeks before the trip"): the event's
    time plus ``offset`` (microseconds, negative for "before"), ``width`` wide around that point."""

    offset: int
    width: int
    anchor: str  # the event's words, e.g. "the trip"
    phrase: str


MONTHS: dict[str, int] = {
    name: number
    for number in range(1, 13)
    for name in (calendar.month_name[number].lower(), calendar.month_abbr[number].lower())
} | {"sept": 9}
WEEKDAYS: dict[str, int] = {calendar.day_name[d].lower(): d for d in range(7)}
NUMBERS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2,
    "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 3,
}
UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}

_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_NUM = r"(\d+|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
_UNIT = r"(day|week|fortnight|month|year)s?"
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
# A bare month name counts only after one of these: "may" and "march" are also verbs.
_MONTH_LEAD = r"(?:in|during|last|this|next|since|of|early|late|mid|until|before|after|by)"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", lazy_re(r"\b(\d{4})-(\d{2})-(\d{2})\b")),
    ("day_month", lazy_re(rf"\b{_ORD}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?\b")),
    ("month_day", lazy_re(rf"\b{_MONTH}\s+{_ORD}\b(?:,?\s+{_YEAR}\b)?")),
    ("month_year", lazy_re(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b")),
    ("anchored", lazy_re(
        rf"\b{_NUM}\s+{_UNIT}\s+(before|after|prior to)\s+((?:the|my|our|his|her|their|your)"
        r"(?:\s+[a-z0-9'-]+){1,4})")),
    ("ago", lazy_re(rf"\b{_NUM}\s+{_UNIT}\s+ago\b")),
    ("ahead", lazy_re(rf"\bin\s+{_NUM}\s+{_UNIT}(?:'s?)?(?:\s+time)?\b")),
    ("past_n", lazy_re(rf"\b(?:the\s+)?(?:past|last)\s+{_NUM}\s+{_UNIT}\b")),
    ("relative_day", lazy_re(
        r"\b(the day before yesterday|yesterday|the day after tomorrow|tomorrow|today|tonight|"
        r"this morning|this afternoon|this evening|last night)\b")),
    ("relative_unit", lazy_re(
        r"\b(last|past|previous|this|next)\s+(week|weekend|month|year)\b")),
    ("lead_month", lazy_re(rf"\b({_MONTH_LEAD})\s+{_MONTH}\b")),
    ("weekday", lazy_re(
        r"\b(last|this|next|on)\s+(" + "|".join(WEEKDAYS) + r")\b")),
    ("year", lazy_re(rf"\b(?:in|during|since|of|from|by)\s+{_YEAR}\b|\b{_YEAR}\b")),
]
# Strings one of which every match of a form holds (a month's name, a unit of time...), for the
# statement readers: a text holding none of a form's is not searched for it (a search of a form
# costs about as much as all these tests together). tests/text/test_timeexpr.py checks each
# against the strings the form's pattern needs (eventmem.policies.literals.necessary). A form
# not listed is always searched.
_MONTH_NAMES = tuple(calendar.month_abbr[number].lower() for number in range(1, 13))
NEEDLES: dict[str, tuple[str, ...]] = {
    "iso": ("-",),
    "day_month": _MONTH_NAMES, "month_day": _MONTH_NAMES, "month_year": _MONTH_NAMES,
    "lead_month": _MONTH_NAMES,
    "ago": ("ago",),
    "ahead": ("day", "week", "fortnight", "month", "year"),
    "relative_day": ("day", "tomorrow", "night", "morning", "afternoon", "evening"),
    "relative_unit": ("week", "month", "year"),
    "weekday": ("day",),
}


def _may_match(kind: str, lowered: str, held: dict[tuple[str, ...], bool]) -> bool:
    """Whether ``lowered`` holds one of the strings form ``kind`` needs (``held``: what this
    text was found to hold, by set of strings: the month forms share theirs)."""
    needles = NEEDLES.get(kind)
    if needles is None:
        return True
    found = held.get(needles)
    if found is None:
        found = held[needles] = any(needle in lowered for needle in needles)
    return found


# Dates written in digits, read in questions only ("on 4/15/2025", "as of 15.04.2025", "on
# 4/15"): the write path's readings (stated_time, statement_times) are part of the recorded ingest
# policy and keep _PATTERNS. Slashes read month first (the English default), unless the first
# number cannot be a month; dots read day first, as the languages that write them do. A slash date
# without a year only after "on": "1/2" alone is as likely a fraction.
_NUMERIC: list[tuple[str, re.Pattern[str]]] = [
    ("slash_date", lazy_re(r"(?<![\d/.])(\d{1,2})/(\d{1,2})/((?:19|20)?\d\d)(?![\d/])")),
    ("dot_date", lazy_re(r"(?<![\d.])(\d{1,2})\.(\d{1,2})\.((?:19|20)\d\d)(?![\d.])")),
    ("slash_day", lazy_re(r"(?<=\bon\s)(\d{1,2})/(\d{1,2})(?![\d/])")),
]
_QUERY_PATTERNS = [_PATTERNS[0], *_NUMERIC, *_PATTERNS[1:]]


# What moves the date after it: "two weeks before", "the Friday before", "the weekend after",
# "a few days prior to". Read backwards from a date's first character.
_OFFSET = lazy_re(
    rf"\b(?:(the|last|that)\s+|{_NUM}\s+)?(day|week|weekend|fortnight|month|year|"
    + "|".join(WEEKDAYS) + r")s?\s+(before|after|prior to)\s+(?:on\s+|the\s+)?$")
# The forms an offset may move: a day or a month named by the calendar.
_MOVABLE = frozenset({"iso", "day_month", "month_day", "month_year", "slash_date", "dot_date",
                      "slash_day"})


def find_time(text: str, now: int) -> TimeRange | Anchored | None:
    """The first time expression of ``text`` (most specific forms first), resolved at ``now``;
    None when the text names no time."""
    lowered = text.lower()
    today = from_micros(now).date()
    for kind, pattern in _QUERY_PATTERNS:
        for match in pattern.finditer(lowered):
            found = _resolve(kind, match, today, now)
            if isinstance(found, TimeRange) and kind in _MOVABLE:
                found = moved(lowered, match.start(), found)
            if found is not None:
                return found
    return None


def moved(text: str, start: int, found: TimeRange) -> TimeRange:
    """``found`` (a date that begins at ``start`` in lowercase ``text``) moved by the offset
    written just before it ("two weeks before", "the Friday after"), its phrase grown to cover
    the offset; ``found`` itself when none is written there."""
    m = _OFFSET.search(text, max(0, start - 48), start)
    if m is None:
        return found
    n = _number(m[2]) if m[2] else 1
    unit, after = m[3], m[4] == "after"
    # The day counted from: the span's first day going back, its last going forward.
    ref = from_micros(found.end - 1).date() if after else from_micros(found.start).date()
    sign = 1 if after else -1
    phrase = text[m.start():start] + found.phrase
    try:
        if unit == "day":
            return _about_day(ref + timedelta(days=sign * n), m[2], phrase)
        if unit in ("week", "fortnight"):
            days = UNIT_DAYS[unit]
            if m[2] is None:  # "the week before": the whole week up to the date
                lo = ref - timedelta(days=days) if not after else ref + timedelta(days=1)
                return _days(lo, lo + timedelta(days=days), phrase)
            center = ref + timedelta(days=sign * n * days)
            half = timedelta(days=days // 2)
            return _days(center - half, center + half + timedelta(days=1), phrase)
        if unit == "weekend":
            if after:  # the first Saturday after the date
                saturday = ref + timedelta(days=(5 - ref.weekday()) % 7 or 7)
            else:  # the last Saturday whose weekend ends by the date
                saturday = ref - timedelta(days=(ref.weekday() - 5) % 7)
                if saturday + timedelta(days=2) > ref:
                    saturday -= timedelta(days=7)
            saturday += timedelta(weeks=sign * (n - 1))
            return _days(saturday, saturday + timedelta(days=2), phrase)
        if unit == "month":
            return _month_span(*_shift_months(ref, sign * n), phrase)
        if unit == "year":
            return _days(date(ref.year + sign * n, 1, 1), date(ref.year + sign * n + 1, 1, 1),
                         phrase)
        weekday = WEEKDAYS[unit]  # "the Friday before": the last Friday before the date
        if after:
            step = (weekday - ref.weekday()) % 7 or 7
        else:
            step = -((ref.weekday() - weekday) % 7 or 7)
        day = ref + timedelta(days=step) + timedelta(weeks=sign * (n - 1))
        return _days(day, day + timedelta(days=1), phrase)
    except (ValueError, OverflowError):
        return found


# The forms that date a statement to one past day. Left out: spans ("last month", "in 2023", "in
# August": when in them?), today ("today", "this morning": the recorded time says as much), and
# weekdays other than "last Friday" ("on Friday" is as often the coming one).
_STATED = frozenset({"iso", "day_month", "month_day", "ago", "relative_day", "weekday"})
# A date after one of these words bounds or schedules something; it does not say when a fact began.
_NOT_A_START = lazy_re(r"\b(?:by|until|till|before|after|due|next)\s+(?:on\s+)?$")


def stated_time(text: str, now: int) -> TimeRange | None:
    """The day a statement says its fact began, as ``[start of that day, next day)``, when its
    text names one strictly before ``now``'s day ("yesterday", "last Friday", "on March 3",
    "March 3, 2025", "2025-04-10", "3 days ago", "two weeks ago"); None otherwise. A date after
    "by", "until", "before"... is a deadline or a bound, not a start, and is passed over, as are
    dates that have not come yet."""
    lowered = text.lower()
    if not _may_speak_of_time(lowered):  # every stated form holds one of its words
        return None
    today = from_micros(now).date()
    held: dict[tuple[str, ...], bool] = {}
    for kind, pattern in _PATTERNS:
        if kind not in _STATED or not _may_match(kind, lowered, held):
            continue
        for match in pattern.finditer(lowered):
            if _NOT_A_START.search(lowered[: match.start()]):
                continue
            day = _stated_day(kind, match, today)
            if day is not None and day < today:
                return _days(day, day + timedelta(days=1), match.group(0))
    return None


def _stated_day(kind: str, m: re.Match[str], today: date) -> date | None:
    """The one day a statement's expression names (an "ago" counts back exactly, not the
    window a query would search)."""
    if kind == "weekday" and m[1] != "last":
        return None
    if kind == "relative_day" and m[1] not in ("yesterday", "last night",
                                               "the day before yesterday"):
        return None
    if kind == "ago":
        n, unit = _number(m[1]), m[2]
        try:
            if unit == "month":
                year, month = _shift_months(today, -n)
                return date(year, month, min(today.day, calendar.monthrange(year, month)[1]))
            if unit == "year":
                return today.replace(year=today.year - n, day=28) if (today.month, today.day) \
                    == (2, 29) else today.replace(year=today.year - n)
            return today - timedelta(days=n * UNIT_DAYS[unit])
        except (ValueError, OverflowError):
            return None
    found = _resolve(kind, m, today, _micros(today))
    return from_micros(found.start).date() if isinstance(found, TimeRange) else None


# -- statement_times: every time a statement speaks of -----------------------------------------

# Tense of the clause around a date the text leaves open ("on Friday", "in August", "March 3"):
# words that put it to come, then words that put it past; neither: the nearest such date.
_FUTURE = lazy_re(
    r"\b(?:will|won't|shall|going to|gonna|plan(?:s|ning)? (?:to|on)|about to|can't wait|"
    r"cannot wait|looking forward|hop(?:e|es|ing) to|intend(?:s|ing)? to|upcoming|next|"
    r"tomorrow|soon)\b|\w'll\b")
_PAST = lazy_re(
    r"\b(?:was|were|did|had|went|got|came|took|made|saw|met|found|bought|brought|left|told|"
    r"said|felt|ran|began|became|flew|drove|ate|drank|wrote|spent|sold|sent|sang|won|lost|gave|"
    r"heard|held|kept|knew|paid|rode|sat|slept|spoke|stood|swam|threw|woke|wore|broke|built|"
    r"chose|drew|fell|fought|forgot|grew|taught|thought|caught|ago|yesterday|last|"
    r"(?:i|we|he|she|they|you)\s+(?:\w+ed|\w+'ve))\b")
_PROGRESSIVE = lazy_re(r"\b(?:am|is|are|'m|'re|'s)\s+(?!being\b)\w+ing\b")
_SENTENCE = lazy_re(r"[.!?;\n]")
# A statement's year needs a preposition, or nothing after it but punctuation: "2000 steps" and
# "$2019" are numbers.
_STATEMENT_YEAR = lazy_re(
    rf"\b(?:in|during|since|of|from|by|until|around)\s+{_YEAR}\b|(?<![$\d.,])\b{_YEAR}\b"
    r"(?=\s*(?:[.,;:!?)]|$))")
# Forms a statement does not record: a span ending now ("the past 10 days": about now, as its
# recording is) and an offset from an event (which event is the retrieval's to find).
_NOT_RECORDED = frozenset({"past_n", "anchored"})
# What every form statement_times reads holds one of: a digit, a month or weekday name, a unit
# of time or a word for a part of a day. A text with none (most) is passed over at once. The
# words are the shortest such strings ("yesterday" and weekdays hold "day", "fortnight" and
# "tonight" "night", a month's every name its abbreviation), looked for one by one: one regex
# of their alternatives cost a fifth of reading a statement's times.
_TIME_WORDS = ("day", "night", "tomorrow", "morning", "afternoon", "evening", "week", "month",
               "year", *_MONTH_NAMES)
_DIGIT = lazy_re(r"\d")


def _may_speak_of_time(lowered: str) -> bool:
    return _DIGIT.search(lowered) is not None or any(word in lowered for word in _TIME_WORDS)


# A reference wider than this says too little about when (and a year is the widest form).
MAX_WIDTH_DAYS = 366
MAX_TIMES = 8  # the most references one statement records


def _tense(text: str, start: int, end: int) -> str:
    """"future", "past" or "" (neither) for the sentence of ``text`` around ``[start, end)``."""
    lo = max((m.end() for m in _SENTENCE.finditer(text, 0, start)), default=0)
    found = _SENTENCE.search(text, end)
    sentence = text[lo:found.start() if found else len(text)]
    if _FUTURE.search(sentence):
        return "future"
    if _PAST.search(sentence):
        return "past"
    return "future" if _PROGRESSIVE.search(sentence) else ""


def statement_times(text: str, at: int) -> tuple[TimeRange, ...]:
    """Every time the statement ``text`` speaks of, resolved against ``at``, when it was said:
    "yesterday", "last week", "two days ago", "next month", "in two weeks", "on Friday", "March
    16, 2022", "the weekend before May 3". A date the text leaves open ("on Friday", "in
    August", "March 3") is the one in the tense of its sentence: the coming one in "I will fly
    on Friday", the past one in "I flew on Friday", else the nearer. Sorted by start, without
    repeats; a span that holds ``at`` itself ("today", "this week": the time of recording says
    as much), is wider than :data:`MAX_WIDTH_DAYS`, or has no room in the calendar is left out.
    A pure function of the text and ``at``."""
    lowered = text.lower()
    if not _may_speak_of_time(lowered):
        return ()
    today = from_micros(at).date()
    taken: list[tuple[int, int]] = []
    found: set[tuple[int, int]] = set()
    held: dict[tuple[str, ...], bool] = {}
    for kind, pattern in _PATTERNS:
        if kind in _NOT_RECORDED or not _may_match(kind, lowered, held):
            continue
        if kind == "year":
            pattern = _STATEMENT_YEAR
        for match in pattern.finditer(lowered):
            lo, hi = match.span()
            if any(lo < b and a < hi for a, b in taken):
                continue  # a more specific form read these words already
            tense = _tense(lowered, lo, hi)
            span = _statement_span(kind, match, today, at, tense)
            if span is None:
                continue
            if kind in _MOVABLE:
                span = moved(lowered, lo, span)
                lo -= len(span.phrase) - len(match.group(0))
            taken.append((lo, hi))
            if not span.start <= at < span.end \
                    and span.end - span.start <= MAX_WIDTH_DAYS * MICROS_PER_DAY:
                found.add((span.start, span.end))
    return tuple(TimeRange(start, end, "") for start, end in sorted(found)[:MAX_TIMES])


def _statement_span(kind: str, m: re.Match[str], today: date, at: int,
                    tense: str) -> TimeRange | None:
    """One expression of a statement resolved in its sentence's tense (see
    :func:`statement_times`); the forms that leave nothing open resolve as in a query."""
    phrase = m.group(0)
    try:
        if kind in ("day_month", "month_day") and not m[3]:
            day_text, month_text = (m[1], m[2]) if kind == "day_month" else (m[2], m[1])
            past = _day_of_month(int(day_text), MONTHS[month_text], None, today, phrase)
            coming = _day_of_month(int(day_text), MONTHS[month_text], None,
                                   _next_year_day(today), phrase)
            if coming.start < _micros(today):  # the latest by a year from now is still past
                coming = past
            return _by_tense(past, coming, tense, at)
        if kind == "lead_month" and m[1] not in ("last", "next", "this"):
            month = MONTHS[m[2]]
            past = _named_month(m[1], month, today, phrase)
            year = today.year + (1 if month < today.month else 0)
            return _by_tense(past, _month_span(year, month, phrase), tense, at)
        if kind == "weekday" and m[1] in ("on", "this"):
            weekday = WEEKDAYS[m[2]]
            past = _weekday("on", weekday, today, phrase)
            coming = _weekday("next", weekday, today - timedelta(days=1), phrase)
            return _by_tense(past, coming, tense, at)
        if kind == "relative_unit" and m[1] == "this" and m[2] == "weekend":
            saturday = today - timedelta(days=(today.weekday() - 5) % 7)  # the latest begun
            past = _days(saturday, saturday + timedelta(days=2), phrase)
            coming = past if today.weekday() >= 5 else _days(
                saturday + timedelta(days=7), saturday + timedelta(days=9), phrase)
            return _by_tense(past, coming, tense, at)
        if kind == "ahead" and tense == "past":
            return None  # "we finished it in two weeks": how long, not when
    except (ValueError, OverflowError):
        return None
    found = _resolve(kind, m, today, at)
    return found if isinstance(found, TimeRange) else None


def _next_year_day(today: date) -> date:
    """The day a year after ``today`` (the 28th for a leap day): the latest date by it is the
    coming one."""
    try:
        return today.replace(year=today.year + 1)
    except ValueError:
        return today.replace(year=today.year + 1, day=28)


def _by_tense(past: TimeRange, coming: TimeRange, tense: str, at: int) -> TimeRange:
    """The past or the coming reading, by tense; with none, the one nearer ``at``."""
    if tense == "past":
        return past
    if tense == "future":
        return coming
    return past if at - past.start <= coming.start - at else coming


_MENTION = lazy_re(
    r"\b(yesterday|today|tonight|tomorrow|ago|recently|lately|weekend|last (week|month|year|"
    r"night|time)|next (week|month|year)|this (morning|afternoon|evening|week|month|year)|"
    r"(19|20)\d\d|" + "|".join(WEEKDAYS) + "|"
    + "|".join(calendar.month_name[m].lower() for m in range(1, 13) if m != 5)
    + r"|in may|since|until|when i was|years? old)\b")


# A length of time, or a start it is counted from: "for 4 years", "seven years now", "since
# 2016", "since I was 17", "ten years ago", "started", "began", "when I was little".
_DURATION = lazy_re(
    rf"\b{_NUM}\s+(?:(?:more|whole|full|long)\s+)?(?:second|minute|hour|day|week|weekend|"
    r"fortnight|month|year|decade)s?\b|\b(?:since|ago|started|starting|began|begun|"
    r"anniversary|decades?|ages|forever|lifetime|all my life|my whole life|childhood|"
    r"growing up|when (?:i|we|he|she|they) (?:was|were)|years? old)\b")


def states_duration(text: str) -> bool:
    """Whether ``text`` states a length of time or the start it runs from ("I've known them
    for 4 years", "since 2016", "ten years ago", "we started in May"): a memory that does is
    likely to answer a "how long" question."""
    return _DURATION.search(text.lower()) is not None


def mentions_time(text: str) -> bool:
    """Whether ``text`` refers to a time ("yesterday", "last week", "in 2022", "on Monday"...):
    a memory that does is likely to answer a "when" question."""
    return _MENTION.search(text.lower()) is not None


def strip_phrase(text: str, phrase: str) -> str:
    """``text`` without the words of ``phrase`` (case-insensitive), spaces collapsed: the query
    left for matching content once its time expression is handled by the time channel."""
    if not phrase:
        return text
    # The preposition that introduced it goes too ("in October 2023"), and a "back" before it
    # ("back on March 7th" is a time, not a return).
    lead = r"(?:\bback\s+)?(?:\b(?:in|on|during|at|since|from|by|of|for)\s+)?"
    cut = re.sub(lead + re.escape(phrase), " ", text, count=1, flags=re.IGNORECASE)
    return " ".join(cut.split())


# -- resolution ----------------------------------------------------------------------------------


def _micros(day: date) -> int:
    return to_micros(datetime(day.year, day.month, day.day, tzinfo=UTC))


def _days(start: date, end: date, phrase: str) -> TimeRange:
    return TimeRange(_micros(start), _micros(end), phrase)


def _month_span(year: int, month: int, phrase: str) -> TimeRange:
    end = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return _days(date(year, month, 1), end, phrase)


def _shift_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def _number(word: str) -> int:
    return int(word) if word.isdigit() else NUMBERS[word]


def _resolve(kind: str, m: re.Match[str], today: date, now: int) -> TimeRange | Anchored | None:
    phrase = m.group(0)
    try:
        match kind:
            case "iso":
                day = date(int(m[1]), int(m[2]), int(m[3]))
                return _days(day, day + timedelta(days=1), phrase)
            case "day_month" | "month_day":
                day_text, month_text = (m[1], m[2]) if kind == "day_month" else (m[2], m[1])
                year = int(m[3]) if m[3] else None
                return _day_of_month(int(day_text), MONTHS[month_text], year, today, phrase)
            case "month_year":
                return _month_span(int(m[2]), MONTHS[m[1]], phrase)
            case "slash_date" | "slash_day":
                first, second = int(m[1]), int(m[2])
                month, day_of = (second, first) if first > 12 else (first, second)
                year = _full_year(m[3]) if kind == "slash_date" else None
                return _day_of_month(day_of, month, year, today, phrase)
            case "dot_date":
                return _day_of_month(int(m[1]), int(m[2]), int(m[3]), today, phrase)
            case "anchored":
                sign = 1 if m[3] == "after" else -1
                days = _number(m[1]) * UNIT_DAYS[m[2]]
                # As wide as the offset is vague: "two weeks before" means about a week either way.
                width = max(1, days // 2) * MICROS_PER_DAY
                return Anchored(sign * days * MICROS_PER_DAY, width, m[4].strip(), phrase)
            case "ago":
                return _ago(_number(m[1]), m[2], today, phrase, m[1])
            case "ahead":
                return _ahead(_number(m[1]), m[2], today, phrase, m[1])
            case "past_n":
                days = _number(m[1]) * UNIT_DAYS[m[2]]
                return TimeRange(now - days * MICROS_PER_DAY, now + 1, phrase)
            case "relative_day":
                return _relative_day(m[1], today, phrase)
            case "relative_unit":
                return _relative_unit(m[1], m[2], today, phrase)
            case "lead_month":
                return _named_month(m[1], MONTHS[m[2]], today, phrase)
            case "weekday":
                return _weekday(m[1], WEEKDAYS[m[2]], today, phrase)
            case "year":
                year = int(m[1] or m[2])
                return _days(date(year, 1, 1), date(year + 1, 1, 1), phrase)
    except (ValueError, OverflowError):  # "31 February", a year out of range: not a time
        return None
    return None


def _full_year(text: str) -> int:
    """A year written in two digits or four: "25" is 2025, "99" 1999 (the nearer century)."""
    year = int(text)
    return year if year >= 100 else 2000 + year if year < 70 else 1900 + year


def _day_of_month(day: int, month: int, year: int | None, today: date,
                  phrase: str) -> TimeRange:
    if year is None:  # the most recent such day, this year or last
        year = today.year if (month, day) <= (today.month, today.day) else today.year - 1
        if (month, day) == (2, 29):  # a leap day: the latest one, up to eight years back
            year = next((y for y in range(year, year - 9, -1) if calendar.isleap(y)), year)
    start = date(year, month, day)
    return _days(start, start + timedelta(days=1), phrase)


# Counts that are not numbers: "a few days ago" is about then, not three days exactly.
VAGUE = frozenset({"a few", "few", "several", "a couple of", "a couple", "couple of"})


def _about_day(day: date, count: str | None, phrase: str) -> TimeRange:
    """The one ``day``, or the days around it when the count was vague ("a few days")."""
    if count in VAGUE:
        return _days(day - timedelta(days=2), day + timedelta(days=3), phrase)
    return _days(day, day + timedelta(days=1), phrase)


def _ago(n: int, unit: str, today: date, phrase: str, count: str | None = None) -> TimeRange:
    if unit == "day":
        return _about_day(today - timedelta(days=n), count, phrase)
    if unit in ("week", "fortnight"):
        center = today - timedelta(days=n * UNIT_DAYS[unit])
        half = timedelta(days=3 if unit == "week" else 7)  # about then, a week-wide window
        return _days(center - half, center + half + timedelta(days=1), phrase)
    if unit == "month":
        return _month_span(*_shift_months(today, -n), phrase)
    return _days(date(today.year - n, 1, 1), date(today.year - n + 1, 1, 1), phrase)


def _ahead(n: int, unit: str, today: date, phrase: str, count: str | None = None) -> TimeRange:
    """"in N units": the day, week-wide window, month or year that far ahead (as :func:`_ago`
    looks back)."""
    if unit == "day":
        return _about_day(today + timedelta(days=n), count, phrase)
    if unit in ("week", "fortnight"):
        center = today + timedelta(days=n * UNIT_DAYS[unit])
        half = timedelta(days=3 if unit == "week" else 7)
        return _days(center - half, center + half + timedelta(days=1), phrase)
    if unit == "month":
        return _month_span(*_shift_months(today, n), phrase)
    return _days(date(today.year + n, 1, 1), date(today.year + n + 1, 1, 1), phrase)


def _relative_day(word: str, today: date, phrase: str) -> TimeRange:
    back = {"the day before yesterday": 2, "yesterday": 1, "last night": 1, "tomorrow": -1,
            "the day after tomorrow": -2}.get(word, 0)
    day = today - timedelta(days=back)
    return _days(day, day + timedelta(days=1), phrase)


def _relative_unit(which: str, unit: str, today: date, phrase: str) -> TimeRange:
    step = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1}[which]
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday())
        if unit == "week":
            start = monday + timedelta(weeks=step)
            return _days(start, start + timedelta(days=7), phrase)
        # "last weekend" is the one before this week began (on a Sunday too: the one before
        # today's); "this weekend" the one ending this week.
        saturday = monday + timedelta(days=5) + timedelta(weeks=step)
        return _days(saturday, saturday + timedelta(days=2), phrase)
    if unit == "month":
        return _month_span(*_shift_months(today, step), phrase)
    year = today.year + step
    return _days(date(year, 1, 1), date(year + 1, 1, 1), phrase)


def _named_month(lead: str, month: int, today: date, phrase: str) -> TimeRange:
    year = today.year
    if lead == "next":
        year += 1 if month <= today.month else 0
    elif lead == "this":
        pass
    elif month > today.month or (lead == "last" and month == today.month):
        year -= 1  # "in August" asked in May: the August that has been, last year's
    return _month_span(year, month, phrase)


def _weekday(lead: str, weekday: int, today: date, phrase: str) -> TimeRange:
    if lead == "next":
        ahead = (weekday - today.weekday()) % 7 or 7
        day = today + timedelta(days=ahead)
    else:
        back = (today.weekday() - weekday) % 7
        if lead == "last" and back == 0:
            back = 7
        day = today - timedelta(days=back)
    return _days(day, day + timedelta(days=1), phrase)

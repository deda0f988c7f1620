"""When a plan stops being true: ``valid_until`` from its time phrases, relative to ``now``.

``infer_valid_until(text, now)`` returns ``(micros, rule)`` or ``None``. The bound is exclusive and
is the END of the period the text names: "tomorrow" gives the first instant of the day after
tomorrow, "this week" the Monday after this one at 00:00. All calendar arithmetic is in UTC
(stored times are UTC; a store that wants local days passes a shifted ``now``).

Decisions a reader might question:

* Weeks run Monday to Sunday (ISO). "by Friday" / "on Monday" mean the next such day, today
  included; "next Friday" means the Friday of next week, the later of its two common readings.
* "before May 3" is read like "by May 3" (the end of May 3), and a date without a year is this
  year's, or next year's once its end has passed (from gate-15, once it passed over a month
  ago: one passed days ago is a deadline missed, and the plan's valid time is over).
* Units of a day or more end at the end of the target day ("in 3 days": the end of now + 3 days);
  hours and minutes end at the exact instant.
* When several phrases occur, the latest bound wins, so a memory is never invalidated while a
  period it names is still open; ties go to the rule listed first in :data:`RULES`.

The caller decides which memories get a bound (plans; the text "I went to the gym today" has a
time phrase but is not time-bounded). Pure and deterministic: no clock, no locale.
"""

from __future__ import annotations

import re
from calendar import monthrange
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Final

from eventmem.clock import from_micros, to_micros
from eventmem.errors import CorruptRecordError
from eventmem.policies.literals import Prefilter
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import folded as text_folded

__all__ = ["POLICY_VERSION", "RULES", "infer_valid_until"]

POLICY_VERSION: Final = "timebound-1"

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_ABBR = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4,
             "sat": 5, "sun": 6} | {name: i for i, name in enumerate(_DAYS)}  # fmt: skip
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")  # fmt: skip
_MONTH_NO = (
    {name: i + 1 for i, name in enumerate(_MONTHS)}
    | {name[:3]: i + 1 for i, name in enumerate(_MONTHS)}
    | {"sept": 9}
)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
            "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
            "a couple of": 2, "couple of": 2, "a few": 3, "few": 3}  # fmt: skip

_DAY_RE = "|".join(sorted(_DAY_ABBR, key=len, reverse=True))
_MONTH_RE = "|".join(sorted(_MONTH_NO, key=len, reverse=True))
_NUM_RE = r"\d{1,4}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True))
_DAYNUM = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\b(?!:)"
_YEAR = r"(?:,?\s+(?P<year>\d{4})\b)?"

_Rule = Callable[[re.Match[str], datetime], datetime | None]


def _day_start(now: datetime, days: int = 0) -> datetime:
    return datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=days)


def _month_start(year: int, month: int) -> datetime:
    """The first instant of ``month`` of ``year``; months past 12 roll into later years."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=UTC)


def _add_months(day: date, months: int) -> date:
    start = _month_start(day.year, day.month + months)
    return date(start.year, start.month, min(day.day, monthrange(start.year, start.month)[1]))


def _week_end(now: datetime, weeks_ahead: int) -> datetime:
    """Monday 00:00 after the Sunday ending the week ``weeks_ahead`` from this one."""
    return _day_start(now, 7 - now.weekday() + 7 * weeks_ahead)


def _weekday(m: re.Match[str], now: datetime) -> datetime:
    target = _DAY_ABBR[m["wd"]]
    if m["prep"] == "next":  # the target day in next week, Monday-based
        return _day_start(now, 7 - now.weekday() + target + 1)
    return _day_start(now, (target - now.weekday()) % 7 + 1)


def _in_n(m: re.Match[str], now: datetime) -> datetime:
    raw = m["n"]
    n = int(raw) if raw.isdigit() else _NUMBERS[raw]
    unit = m["unit"]
    if unit.startswith("min"):
        return now + timedelta(minutes=n)
    if unit.startswith(("hour", "hr")):
        return now + timedelta(hours=n)
    if unit.startswith("day"):
        return _day_start(now, n + 1)
    if unit.startswith(("week", "wk")):
        return _day_start(now, 7 * n + 1)
    months = n if unit.startswith("month") else 12 * n
    target = _add_months(now.date(), months)
    return datetime(target.year, target.month, target.day, tzinfo=UTC) + timedelta(days=1)


def _named_date(m: re.Match[str], now: datetime, late: timedelta = timedelta(0)
                ) -> datetime | None:
    month, day = _MONTH_NO[m["month"]], int(m["day"])
    years = [int(m["year"])] if m["year"] else [now.year, now.year + 1]
    for year in years:  # this year's date unless its end passed over ``late`` ago, then next
        if not 1 <= day <= monthrange(year, month)[1]:
            continue  # "Feb 30", or Feb 29 outside a leap year
        end = datetime(year, month, day, tzinfo=UTC) + timedelta(days=1)
        if end + late > now or m["year"]:
            return end
    return None


# From gate-15 (``overdue``): a date without a year that passed less than this long ago is this
# year's, a deadline missed ("User needs to return the library books by March 27", said on
# April 1), not one a year away.
LATE: Final = timedelta(days=31)


def _iso_date(m: re.Match[str], now: datetime) -> datetime | None:
    try:
        return datetime(int(m["y"]), int(m["mo"]), int(m["d"]), tzinfo=UTC) + timedelta(days=1)
    except ValueError:
        return None


_RULE_TABLE: Final[tuple[tuple[str, str, _Rule], ...]] = (
    ("today", r"\b(?:today|tonight|later today|this (?:morning|afternoon|evening)|eod"
              r"|end of (?:the )?day)\b", lambda m, now: _day_start(now, 1)),
    ("tomorrow", r"\b(?:tomorrow|tmrw?)\b", lambda m, now: _day_start(now, 2)),
    ("day_after_tomorrow", r"\bday after tomorrow\b", lambda m, now: _day_start(now, 3)),
    ("this_week", r"\b(?:(?:later )?this week(?:end)?|end of (?:the |this )?week)\b",
     lambda m, now: _week_end(now, 0)),
    ("next_week", r"\bnext week(?:end)?\b", lambda m, now: _week_end(now, 1)),
    ("weekday", rf"\b(?P<prep>by|on|this|until|till|til|before|due|coming|next)\s+"
                rf"(?P<wd>{_DAY_RE})\b", _weekday),
    ("in_n_units", rf"\b(?:in|within|for)(?: the next)?\s+(?P<n>{_NUM_RE})\s+(?P<unit>minutes?"
                   r"|mins?|hours?|hrs?|days?|weeks?|wks?|months?|years?)\b", _in_n),
    ("this_month", r"\b(?:(?:later )?this month|end of (?:the |this )?month)\b",
     lambda m, now: _month_start(now.year, now.month + 1)),
    ("next_month", r"\bnext month\b", lambda m, now: _month_start(now.year, now.month + 2)),
    ("this_year", r"\b(?:(?:later )?this year|end of (?:the |this )?year)\b",
     lambda m, now: _month_start(now.year + 1, 1)),
    ("next_year", r"\bnext year\b", lambda m, now: _month_start(now.year + 2, 1)),
    ("date", rf"\b(?P<month>{_MONTH_RE})\.?\s+{_DAYNUM}{_YEAR}", _named_date),  # May 3
    ("date", rf"\b{_DAYNUM}\s+(?:of\s+)?(?P<month>{_MONTH_RE})\b{_YEAR}", _named_date),  # 3 May
    ("iso_date", r"\b(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})\b", _iso_date),
)  # fmt: skip


RULES: Final[tuple[str, ...]] = tuple(dict.fromkeys(f"timebound:{n}" for n, _, _ in _RULE_TABLE))
_COMPILED: Final = tuple(
    (f"timebound:{name}", lazy_re(pattern), end) for name, pattern, end in _RULE_TABLE
)
# Per rule, the texts without which it cannot match: most rules are skipped on most texts.
_EXITS: Final = tuple(Prefilter([pattern]) for _, pattern, _ in _RULE_TABLE)


def infer_valid_until(text: str, now: int, *, overdue: bool = False) -> tuple[int, str] | None:
    """Return ``(valid_until, rule)`` for the latest period that ``text`` names relative to
    ``now`` (both microseconds since the epoch, UTC; the bound is exclusive), or ``None``.
    ``overdue`` (gate-15): a date without a year passed less than :data:`LATE` ago is this
    year's, so the bound has passed; before, any date passed was next year's.

    >>> from eventmem.clock import to_micros
    >>> wed = to_micros(datetime(2025, 1, 1, 15, tzinfo=UTC))
    >>> end, rule = infer_valid_until("I'll send it tomorrow", wed)
    >>> from_micros(end).isoformat(), rule
    ('2025-01-03T00:00:00+00:00', 'timebound:tomorrow')
    """
    folded = text_folded(text)
    try:
        at = from_micros(now)
    except CorruptRecordError:  # a damaged recorded now, re-run by an audit: nothing to infer
        return None
    best: tuple[int, int, str] | None = None  # (micros, -index, rule): the latest, then first rule
    for index, (rule, pattern, end_of) in enumerate(_COMPILED):
        if not _EXITS[index].may_match(folded):
            continue
        for match in pattern.finditer(folded):
            try:
                end = _named_date(match, at, LATE) if overdue and end_of is _named_date \
                    else end_of(match, at)
            except (OverflowError, ValueError):  # past year 9999, or a huge "in N months"
                continue
            if end is not None:
                candidate = (to_micros(end), -index, rule)
                best = candidate if best is None or candidate > best else best
    return None if best is None else (best[0], best[2])

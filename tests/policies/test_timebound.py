"""The inferred ``valid_until`` (eventmem/policies/timebound.py): examples per rule, exact sub-day
units, dates that roll to next year, texts without a bound, and a bound always in the future."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.clock import from_micros, to_micros
from eventmem.policies.timebound import RULES as TIME_RULES
from eventmem.policies.timebound import infer_valid_until
from tests.strategies import chat_texts, unicode_texts

SETTINGS = settings(max_examples=200, deadline=None)


# ---------------------------------------------------------------- timebound

WED = to_micros(datetime(2025, 1, 1, 15, 30, tzinfo=UTC))  # a Wednesday afternoon


def _until(text: str, now: int = WED, *, overdue: bool = False) -> tuple[str, str] | None:
    found = infer_valid_until(text, now, overdue=overdue)
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


def test_timebound_date_passed_under_a_month_ago_is_overdue_from_gate_15() -> None:
    may4 = to_micros(datetime(2025, 5, 4, 9, tzinfo=UTC))
    assert _until("by May 3", may4, overdue=True) == ("2025-05-04", "timebound:date")
    assert _until("by April 4", may4, overdue=True) == ("2025-04-05", "timebound:date")
    assert _until("by April 2", may4, overdue=True) == ("2026-04-03", "timebound:date")
    assert _until("by May 3, 2026", may4, overdue=True) == ("2026-05-04", "timebound:date")


@pytest.mark.parametrize("text", ["", "I like tea", "by Feb 30", "meet at 3:30", "May 2025"])
def test_timebound_none(text: str) -> None:
    assert infer_valid_until(text, WED) is None


@SETTINGS
@given(st.one_of(unicode_texts(200), chat_texts()),
       st.integers(0, to_micros(datetime(9000, 1, 1, tzinfo=UTC))), st.booleans())
def test_timebound_total_and_in_the_future(text: str, now: int, overdue: bool) -> None:
    found = infer_valid_until(text, now, overdue=overdue)
    assert found == infer_valid_until(text, now, overdue=overdue)
    if found is not None:
        assert found[1] in TIME_RULES
        explicit_year = found[1] in ("timebound:date", "timebound:iso_date")
        assert found[0] > now or explicit_year

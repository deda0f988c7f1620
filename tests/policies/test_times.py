"""The times a statement speaks of (eventmem/policies/times.py): read against when it was said,
under a recorded version; a version that read nothing (before times-1) reads nothing again."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem.clock import MICROS_PER_DAY, to_micros
from eventmem.events import TimeSpan
from eventmem.policies import times

SAID = to_micros(datetime(2022, 3, 17, 15, 0, tzinfo=UTC))  # a Thursday
MARCH_16 = to_micros(datetime(2022, 3, 16, tzinfo=UTC))


def test_yesterday_is_the_day_before_it_was_said() -> None:
    assert times.times("James: Yesterday I went hiking", SAID) == (
        TimeSpan(MARCH_16, MARCH_16 + MICROS_PER_DAY),)


def test_times_to_come_are_read_too() -> None:
    [span] = times.times("We fly to Rome next month", SAID)
    assert span == TimeSpan(to_micros(datetime(2022, 4, 1, tzinfo=UTC)),
                            to_micros(datetime(2022, 5, 1, tzinfo=UTC)))


def test_a_version_that_read_nothing_reads_nothing() -> None:
    assert times.times("Yesterday I went hiking", SAID, times.NONE) == ()
    assert times.times("Yesterday I went hiking", SAID, "times-99") == ()  # unknown: nothing


def test_merged_keeps_each_span_once_in_order() -> None:
    a, b, c = TimeSpan(1, 2), TimeSpan(3, 4), TimeSpan(0, 9)
    assert times.merged((b, a), (a, c)) == (c, a, b)
    assert times.merged((), ()) == ()


@settings(max_examples=60, deadline=None)
@given(st.integers(to_micros(datetime(1970, 1, 1, tzinfo=UTC)),
                   to_micros(datetime(2100, 1, 1, tzinfo=UTC))),
       st.sampled_from(["Yesterday I moved", "We met last week on Friday", "next month",
                        "in two weeks I will go", "On 3 March 2021 and March 4", "no time"]))
def test_the_same_text_and_time_read_the_same_spans(at: int, text: str) -> None:
    first = times.times(text, at)
    assert first == times.times(text, at)
    assert all(s.end - s.start <= 366 * MICROS_PER_DAY and not s.start <= at < s.end
               for s in first)

"""Injected clocks and the one conversion between API datetimes and stored microseconds.

Events store time as integer microseconds since the Unix epoch (UTC): integers compare, encode and
replay exactly, where floats and datetimes with zones would not. The API speaks timezone-aware
``datetime``; naive ones are refused because their meaning depends on the machine.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

from eventmem.errors import CorruptRecordError, InvalidInputError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROS_PER_DAY = 86_400_000_000
MICROS_PER_SECOND = 1_000_000
# The instants a UTC datetime can show: 0001-01-01 to 9999-12-31 23:59:59.999999.
_MIN_MICROS = -((_EPOCH - datetime.min.replace(tzinfo=UTC)) // timedelta(microseconds=1))
_MAX_MICROS = (datetime.max.replace(tzinfo=UTC) - _EPOCH) // timedelta(microseconds=1)


def to_micros(when: datetime, *, name: str = "time") -> int:
    """Convert an aware datetime to microseconds since the epoch; refuse naive ones, and ones
    outside the years 1 to 9999 in UTC."""
    if not isinstance(when, datetime):
        raise InvalidInputError(f"{name} must be a datetime, got {type(when).__name__}")
    if when.tzinfo is None or when.utcoffset() is None:
        raise InvalidInputError(
            f"{name} is a naive datetime ({when.isoformat()}); pass a timezone-aware one, "
            "e.g. datetime(..., tzinfo=timezone.utc)"
        )
    delta = when - _EPOCH
    micros = (delta.days * 86_400 + delta.seconds) * MICROS_PER_SECOND + delta.microseconds
    # An offset can put an aware datetime outside what a UTC datetime can show (9999-12-31
    # 23:00-05:00 is in year 10000 in UTC). Stored, such a time could never be read back as a
    # datetime: every read of its event would fail, after the write had succeeded.
    if not _MIN_MICROS <= micros <= _MAX_MICROS:
        raise InvalidInputError(f"{name} is outside the years 1 to 9999 in UTC")
    return micros


def from_micros(micros: int) -> datetime:
    """The UTC datetime for microseconds since the epoch. Every time eventmem stores passed
    :func:`to_micros`, so one outside the years 1 to 9999 was damaged on disk:
    CorruptRecordError, as for any record that does not read back."""
    if not _MIN_MICROS <= micros <= _MAX_MICROS:
        raise CorruptRecordError(f"stored time {micros} (microseconds) is outside the years "
                                 "1 to 9999; the store is damaged: run verify")
    return _EPOCH + timedelta(microseconds=micros)


class Clock(Protocol):
    """Anything with ``now() -> aware datetime``."""

    def now(self) -> datetime:
        """The current time, timezone-aware."""
        ...


class SystemClock:
    """The wall clock, in UTC. The default outside tests."""

    def now(self) -> datetime:
        """The current UTC time."""
        return datetime.now(UTC)  # allow-nondeterminism: this is the injected wall clock

    def __repr__(self) -> str:
        return "SystemClock()"


class ManualClock:
    """A clock that moves only when told to: for tests, simulations and replayed benchmarks."""

    def __init__(self, start: datetime) -> None:
        to_micros(start, name="start")
        self._now = start

    def now(self) -> datetime:
        """The time it was last set or advanced to."""
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by ``delta`` (which may not be negative) and return the new time."""
        if delta < timedelta(0):
            raise InvalidInputError(f"advance() takes a non-negative timedelta, got {delta}")
        self._now = self._now + delta
        return self._now

    def set(self, when: datetime) -> datetime:
        """Jump to ``when`` (aware). Going back is allowed; the log keeps its own time monotone."""
        to_micros(when, name="when")
        self._now = when
        return self._now

    def __repr__(self) -> str:
        return f"ManualClock({self._now.isoformat()})"

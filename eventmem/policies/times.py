"""The times a statement speaks of, read when it is written and recorded with it.

"James: Yesterday I went hiking", said on March 17, speaks of March 16: a question about March 16
must find it although it was recorded a day later. ``times(text, at)`` resolves every time
expression of the text against ``at``, the time it was said (the event's ``at``, never the wall
clock): past and coming days, weeks, weekends, months and years, and dates the calendar names
(:func:`eventmem.text.timeexpr.statement_times`). The write path records them on the
``memory.ingested`` event (``times``, with ``times_policy``), so replay folds them as recorded and
an audit re-reads them with the version that read them.

Unlike the valid time (:mod:`eventmem.policies.stated`: when the fact began), these are any time
the text names, to come too ("we fly to Rome next month"); they make a memory findable by date,
they never decide whether it holds. Pure: no clock, no store.
"""

from __future__ import annotations

from typing import Final

from eventmem.events import TimeSpan
from eventmem.text.timeexpr import statement_times

__all__ = ["NONE", "POLICIES", "POLICY_VERSION", "merged", "times"]

# times-1: every expression statement_times reads, resolved in its sentence's tense.
POLICY_VERSION: Final = "times-1"
NONE: Final = ""  # recorded before times-1: no time was read from the text
POLICIES: Final = frozenset({NONE, POLICY_VERSION})


def times(text: str, at: int, policy: str = POLICY_VERSION) -> tuple[TimeSpan, ...]:
    """The spans of time ``text``, said at ``at``, speaks of, in order, under ``policy`` (an
    unknown version reads nothing: the audit reports it as unknown before asking)."""
    if policy != POLICY_VERSION:
        return ()
    return tuple(TimeSpan(span.start, span.end) for span in statement_times(text, at))


def merged(first: tuple[TimeSpan, ...], second: tuple[TimeSpan, ...]) -> tuple[TimeSpan, ...]:
    """The spans of both, in order, without repeats: a merged memory speaks of what each of its
    texts spoke of, each read at the time it was said."""
    return tuple(sorted(set(first) | set(second), key=lambda s: (s.start, s.end)))

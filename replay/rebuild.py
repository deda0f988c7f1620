"""Fold the log into fresh projections, from scratch or from the newest usable snapshot."""

from __future__ import annotations

from eventmem.log import EventLog
from projections import Projections


def rebuild(log: EventLog, *, until: int | None = None) -> Projections:
    """Projections folded from the first event to ``until`` (a seq; None: the head), ignoring
    snapshots. Use :func:`eventmem.log.EventLog.seq_at_time` to rebuild up to a time."""
    return Projections().apply_all(log.envelopes(1, until))


def load_or_rebuild(log: EventLog, *, until: int | None = None) -> tuple[Projections, str]:
    """Projections at ``until`` (None: the head): the newest compatible snapshot at or before it
    plus the tail of the log. Returns how it got there ("snapshot@SEQ+N" or "rebuild+N").

    A missing, unreadable or incompatible snapshot is never an error: it falls back to a rebuild.
    """
    head = log.head().seq
    target = head if until is None else min(until, head)
    found = log.latest_snapshot(target)
    views = None
    if found is not None:
        views = Projections.from_bytes(found[1])
        if views is not None and views.seq != found[0]:
            views = None  # a snapshot that disagrees with its own key is not trusted
    origin = "rebuild" if views is None else f"snapshot@{views.seq}"
    if views is None:
        views = Projections()
    start = views.seq + 1
    views.apply_all(log.envelopes(start, target))
    return views, f"{origin}+{target - start + 1}"

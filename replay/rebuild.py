"""Fold the log into fresh projections, from scratch or from the newest usable snapshot."""

from __future__ import annotations

from datetime import datetime

from eventmem.clock import to_micros
from eventmem.storage.log import EventLog
from eventmem.write.erase import with_later_erasures
from projections import Projections, paused_gc


def rebuild(log: EventLog, *, until: int | datetime | None = None) -> Projections:
    """Projections folded from the first event to ``until``, ignoring snapshots, with the
    erasures recorded after it (erasure reaches into the past: see :mod:`eventmem.write.erase`).

    ``until``: a seq, an aware datetime (the last event at or before it), or None (the head).
    """
    target = until_seq(log, until)
    with paused_gc():
        views = Projections().apply_chunks(log.envelope_chunks(1, target))
    return _erased_since(log, views)


def _erased_since(log: EventLog, views: Projections) -> Projections:
    later = [seq for seq in log.erasure_seqs() if seq > views.seq]
    if not later:
        return views
    return with_later_erasures(views, (event for seq in later for _, event in log.read(seq, seq)))


def until_seq(log: EventLog, until: int | datetime | None) -> int | None:
    """The seq ``until`` names: a seq as given, the last seq at or before an aware datetime, or
    None (the head)."""
    if isinstance(until, datetime):
        return log.seq_at_time(to_micros(until, name="until"))
    return until


def load_or_rebuild(log: EventLog, *, until: int | None = None) -> tuple[Projections, str]:
    """Projections at ``until`` (None: the head): the newest compatible snapshot at or before it
    plus the tail of the log. Returns how it got there ("snapshot@SEQ+N" or "rebuild+N").

    A missing, unreadable or incompatible snapshot is never an error: it falls back to a rebuild.
    """
    head = log.head().seq
    target = head if until is None else min(until, head)
    found = log.latest_snapshot(target)
    views = None
    with paused_gc():
        if found is not None:
            views = Projections.from_bytes(found[1])
            if views is not None and views.seq != found[0]:
                views = None  # a snapshot that disagrees with its own key is not trusted
        origin = "rebuild" if views is None else f"snapshot@{views.seq}"
        kept_ann = None
        if views is None:
            views = Projections()
            # Another version's snapshot still holds good ANN indexes (a cache of the rows).
            kept_ann = Projections.ann_of(found[1]) if found is not None else None
        start = views.seq + 1
        views.apply_chunks(log.envelope_chunks(start, target))
        if kept_ann is not None:
            views.vectors.attach_ann(kept_ann)
    return _erased_since(log, views), f"{origin}+{target - start + 1}"


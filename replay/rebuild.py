"""Fold the log into fresh projections, from scratch or from the newest usable snapshot."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from eventmem import progress
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
        views = Projections().apply_chunks(progress.tracked(
            log.envelope_chunks(1, target), "rebuild",
            lambda: log.head().seq if target is None else target, size=len))
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


def load_or_rebuild(
    log: EventLog, *, until: int | None = None,
    on_reject: Callable[[int, str], None] | None = None,
) -> tuple[Projections, str]:
    """Projections at ``until`` (None: the head): the newest compatible snapshot at or before it
    plus the tail of the log. Returns how it got there ("snapshot@SEQ+N" or "rebuild+N").

    A snapshot is used only when it is tied to this log (the chain hash it names is the log's
    at its seq: another store's snapshot at the same seq is not), decodes, and agrees with its
    key. A missing, foreign, unreadable or incompatible snapshot is never an error: it falls
    back to a rebuild, and ``on_reject(seq, why)`` hears why (the engine's ops log).
    """
    head = log.head().seq
    target = head if until is None else min(until, head)
    found = log.latest_snapshot(target)
    views, tied, why = None, False, ""
    with paused_gc():
        if found is not None:
            tied = found.chain_hash is not None and found.chain_hash == log.chain_hash(found.seq)
            if not tied:
                why = ("another log's (its chain hash is not this log's at its seq)"
                       if found.chain_hash is not None else "tied to no log (an older format)")
            else:
                views = Projections.from_bytes(found.data, log.vector_rows)
                if views is None:
                    why = ("unreadable, of another projection version, or naming vector rows "
                           "the store no longer holds")
                elif views.seq != found.seq:
                    # A snapshot that disagrees with its own key is not trusted.
                    why = f"its content is at seq {views.seq}, not its key's"
                    views = None
            if why and on_reject is not None:
                on_reject(found.seq, why)
        origin = "rebuild" if views is None else f"snapshot@{views.seq}"
        kept_ann = None
        if views is None:
            views = Projections()
            # Another version's snapshot of this log still holds good ANN indexes (a cache of
            # the rows); a foreign one's index rows are another store's.
            kept_ann = Projections.ann_of(found.data) if found is not None and tied else None
        start = views.seq + 1
        views.apply_chunks(progress.tracked(log.envelope_chunks(start, target), "rebuild",
                                            target - start + 1, size=len))
        if kept_ann is not None:
            views.vectors.attach_ann(kept_ann)
    return _erased_since(log, views), f"{origin}+{target - start + 1}"


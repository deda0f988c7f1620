"""Opening a store: its event log, the embedder bound to it, and the projections folded to its head.

:func:`open_store` is the first half of :class:`eventmem.engine.Engine`'s construction: it opens the
log, binds the embedder (:func:`bind_embedder`: the store's own, recorded on a new store, another
refused), records the config a writer decides with (:func:`eventmem.config.record_config`),
loads the projections from the latest snapshot plus the log's tail (or rebuilds them), and notes
where that snapshot stood and the time of the latest event. If any step fails the log is closed
again.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from eventmem.clock import Clock, to_micros
from eventmem.config import Config, record_config
from eventmem.embedders import EMBEDDERS, CheckedEmbedder, Embedder, default_embedder
from eventmem.errors import EmbedderMismatchError
from eventmem.events import EmbedderRegistered
from eventmem.log import EventLog
from projections import Projections
from replay.rebuild import load_or_rebuild


class Opened(NamedTuple):
    """An open store, as the engine starts from it."""

    log: EventLog
    embedder: CheckedEmbedder  # the store's embedder, its output checked (.inner: as given)
    views: Projections
    opened_from: str  # "snapshot@SEQ+TAIL" or "rebuild+TAIL" (load_or_rebuild)
    snapshot_seq: int  # the seq of the snapshot it opened from (0: none)
    last_at: int  # the time of the latest event (0: an empty log)


def open_store(path: str | os.PathLike[str], *, config: Config, clock: Clock,
               embedder: Embedder | None, readonly: bool) -> Opened:
    """Open the store at ``path`` (see the module docstring)."""
    log = EventLog.open(path, readonly=readonly, sync=config.sync, map_size=config.map_size)
    try:
        bound = bind_embedder(log, embedder, clock=clock, readonly=readonly)
        if not readonly:  # the parameters this writer decides with (replay/audit.py)
            record_config(log, config)
        views, opened_from = load_or_rebuild(log)
        # The seq of the snapshot it opened from ("snapshot@SEQ+TAIL"), not the head: after
        # a crash the replayed tail must still be snapshotted on close.
        snapshot_seq = (
            views.seq - int(opened_from.rsplit("+", 1)[1])
            if opened_from.startswith("snapshot") else 0
        )
        last_at = head_time(log)
    except BaseException:
        log.close()
        raise
    return Opened(log, bound, views, opened_from, snapshot_seq, last_at)


def bind_embedder(log: EventLog, given: Embedder | None, *, clock: Clock,
                  readonly: bool) -> CheckedEmbedder:
    """Use the store's embedder; record one on a new store; refuse to mix another in (another
    id, or the same id with vectors of another length)."""
    stored = log.embedder_id()
    if stored is None:
        embedder = given or default_embedder()
        if not readonly:
            event = EmbedderRegistered(at=to_micros(clock.now()), namespace="",
                                       embedder_id=embedder.embedder_id, dim=embedder.dim)
            log.append([event], meta={b"embedder": embedder.embedder_id.encode()})
        return CheckedEmbedder(embedder, embedder.dim)
    if given is not None:
        if given.embedder_id != stored:
            raise EmbedderMismatchError(
                f"store {log.path} holds vectors of embedder {stored!r}, not "
                f"{given.embedder_id!r}; open it with that embedder (or none, to use it)"
            )
        embedder = given
    else:
        factory = EMBEDDERS.get(stored)
        if factory is None:
            raise EmbedderMismatchError(
                f"store {log.path} was embedded with {stored!r}, which this eventmem "
                "cannot create; pass that embedder to open()"
            )
        embedder = factory()
    dim = recorded_dim(log)
    if dim is not None and embedder.dim != dim:
        raise EmbedderMismatchError(
            f"store {log.path} holds {dim}-dimensional vectors of embedder {stored!r}; the "
            f"embedder given under that id makes {embedder.dim}-dimensional ones"
        )
    return CheckedEmbedder(embedder, embedder.dim if dim is None else dim)


def recorded_dim(log: EventLog) -> int | None:
    """The vector length the store's embedder registration recorded (its first event), or
    None when the first event is not one (an erased or foreign log)."""
    if log.head().seq == 0:
        return None
    first = next(log.read(1, 1))[1]
    return first.dim if isinstance(first, EmbedderRegistered) else None


def head_time(log: EventLog, head: int | None = None) -> int:
    """The time of the log's latest event, or of the event at seq ``head`` (0 for none)."""
    head = log.head().seq if head is None else head
    return next(log.read(head, head))[1].at if head else 0

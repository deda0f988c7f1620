"""eventmem: long-term memory for AI agents, as an event-sourced engine with a replayable log.

    import eventmem
    with eventmem.open("path/to/store") as mem:
        mem.remember("Alice moved to Berlin in March", namespace="alice")
        hits = mem.recall("where does alice live", namespace="alice")
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from eventmem.clock import Clock, ManualClock, SystemClock
from eventmem.config import Config
from eventmem.embedders import Embedder, HashingEmbedder
from eventmem.errors import (
    ClosedError,
    CorruptRecordError,
    EmbedderError,
    EmbedderMismatchError,
    EventmemError,
    IncompatibleStoreError,
    InvalidInputError,
    NotFoundError,
    ReadOnlyError,
    StorageFullError,
    StoreError,
    StoreLockedError,
)
from eventmem.policies.summaries import Summarizer
from eventmem.results import Conflict, HistoryEntry, Hit, Memory, RememberResult, Version

if TYPE_CHECKING:
    from eventmem.engine import Engine
    from eventmem.erasure import Erasure
    from eventmem.graph import Entity, GraphReader, Link, Neighbor, Relation
    from eventmem.log import Head
    from eventmem.maintenance import ConsolidationReport
    from eventmem.reader import View
    from replay.audit import AuditReport
    from replay.verify import VerifyReport

__version__ = "0.1.0"

__all__ = [
    "AuditReport",
    "Clock",
    "ClosedError",
    "Config",
    "Conflict",
    "ConsolidationReport",
    "CorruptRecordError",
    "Embedder",
    "EmbedderError",
    "EmbedderMismatchError",
    "Engine",
    "Entity",
    "Erasure",
    "EventmemError",
    "GraphReader",
    "HashingEmbedder",
    "Head",
    "HistoryEntry",
    "Hit",
    "IncompatibleStoreError",
    "InvalidInputError",
    "Link",
    "ManualClock",
    "Memory",
    "Neighbor",
    "NotFoundError",
    "ReadOnlyError",
    "Relation",
    "RememberResult",
    "StorageFullError",
    "StoreError",
    "StoreLockedError",
    "Summarizer",
    "SystemClock",
    "VerifyReport",
    "Version",
    "View",
    "open",
]

# What the engine layer returns, loaded on first use (see __getattr__): name -> module.
_LAZY = {
    "AuditReport": "replay.audit",
    "ConsolidationReport": "eventmem.maintenance",
    "Engine": "eventmem.engine",
    "Entity": "eventmem.graph",
    "Erasure": "eventmem.erasure",
    "GraphReader": "eventmem.graph",
    "Head": "eventmem.log",
    "Link": "eventmem.graph",
    "Neighbor": "eventmem.graph",
    "Relation": "eventmem.graph",
    "VerifyReport": "replay.verify",
    "View": "eventmem.reader",
}


def open(  # the documented name, as in ``eventmem.open(path)``; shadows the builtin here only
    path: str | os.PathLike[str],
    *,
    clock: Clock | None = None,
    embedder: Embedder | None = None,
    config: Config | None = None,
    readonly: bool = False,
    summarizer: Summarizer | None = None,
) -> Engine:
    """Open (or create) the store at ``path``. Use it as a context manager.

    ``clock``: where time comes from (SystemClock by default; ManualClock for tests).
    ``embedder``: None uses the store's own (the default HashingEmbedder for a new store).
    ``readonly``: read a store another process writes; queries see its latest appends.
    ``summarizer``: what writes the text of consolidated memories and category summaries during
    ``consolidate`` (any object with ``summarize(texts) -> str``; None: extractive). Its output
    is stored, so a replay never calls it.
    """
    from eventmem.engine import Engine

    return Engine(path, clock=clock, embedder=embedder, config=config, readonly=readonly,
                  summarizer=summarizer)


def __getattr__(name: str) -> Any:
    # The engine layer loads on first use, so that importing a kernel module (eventmem.codec,
    # eventmem.events...) from projections/ or replay/ never drags the engine in, and the import
    # order cannot cycle.
    module = _LAZY.get(name)
    if module is not None:
        import importlib

        return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module 'eventmem' has no attribute {name!r}")

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
from eventmem.results import HistoryEntry, Hit, Memory, RememberResult

if TYPE_CHECKING:
    from eventmem.engine import Engine
    from eventmem.reader import View

__version__ = "0.1.0"

__all__ = [
    "Clock",
    "ClosedError",
    "Config",
    "CorruptRecordError",
    "Embedder",
    "EmbedderError",
    "EmbedderMismatchError",
    "Engine",
    "EventmemError",
    "HashingEmbedder",
    "HistoryEntry",
    "Hit",
    "IncompatibleStoreError",
    "InvalidInputError",
    "ManualClock",
    "Memory",
    "NotFoundError",
    "ReadOnlyError",
    "RememberResult",
    "StorageFullError",
    "StoreError",
    "StoreLockedError",
    "Summarizer",
    "SystemClock",
    "View",
    "open",
]


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
    if name == "Engine":
        from eventmem.engine import Engine

        return Engine
    if name == "View":
        from eventmem.reader import View

        return View
    raise AttributeError(f"module 'eventmem' has no attribute {name!r}")

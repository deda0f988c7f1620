"""A small bounded LRU of hot recall results that can never serve a stale answer.

The key holds the log head seq the answer was computed at, so any append (a new memory, a
forget, a feedback, a sweep, a recorded recall) makes every older entry unreachable: the cache
needs no invalidation hooks and cannot resurface a deleted memory (ARCHITECTURE.md section 11).
Entries of older heads are dropped as soon as a newer head is seen, so they do not sit in memory
until they are evicted.

Use one cache per engine (one moving head); a read-only ``as_of`` view has a fixed head and may
keep its own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Generic, NamedTuple, TypeVar

from eventmem.errors import InvalidInputError

V = TypeVar("V")

__all__ = ["CacheKey", "RecallCache", "recall_key"]


class CacheKey(NamedTuple):
    """What one recall answer is cached under (made by :func:`recall_key`)."""

    head: int  # the log head seq the answer reflects
    namespace: str
    query: str
    options: tuple[tuple[str, Hashable], ...]  # sorted by name


def recall_key(query: str, namespace: str, head: int,
               options: Mapping[str, Hashable] | None = None) -> CacheKey:
    """The key of one recall: its query and namespace, every option that shapes the answer
    (``k``, ``valid_at``, ``include_hidden``, the ranking profile...; and ``now`` when scores
    depend on it), and the head seq of the log it was computed from.

    Options are sorted by name, so the order they were given in does not matter; a value must
    be hashable (datetimes, numbers, strings, tuples).
    """
    if isinstance(head, bool) or not isinstance(head, int) or head < 0:
        raise InvalidInputError(f"head must be a seq (an int >= 0), not {head!r}")
    return CacheKey(head, namespace, query, tuple(sorted((options or {}).items())))


class RecallCache(Generic[V]):
    """At most ``max_entries`` answers, least recently used evicted first. Thread-safe.

    Store immutable values (tuples of hits): a cached value is handed out as is.
    """

    def __init__(self, max_entries: int = 256) -> None:
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise InvalidInputError("max_entries must be a positive int")
        self.max_entries = max_entries
        self._entries: OrderedDict[CacheKey, V] = OrderedDict()
        self._head = -1  # the newest head seen
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: CacheKey) -> V | None:
        """The answer stored under ``key``, or None."""
        with self._lock:
            self._see(key.head)
            value = self._entries.get(key)
            if value is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: CacheKey, value: V) -> None:
        """Store an answer. One computed at a head older than the newest seen is not kept: it
        could never be asked for again."""
        with self._lock:
            self._see(key.head)
            if key.head < self._head:
                return
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        """Drop every entry; the hit and miss counts stay."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def _see(self, head: int) -> None:
        if head > self._head:
            self._head = head
            self._entries.clear()  # every entry is of an older head: unreachable from now on

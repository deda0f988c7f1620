"""Every error eventmem raises, in one place.

The tree::

    EventmemError
    ├── InvalidInputError (also ValueError)     bad text, kind, number, time or option
    ├── NotFoundError (also KeyError)           no memory with that id in this store or view
    ├── ReadOnlyError                           a write on an as_of view or a read-only store
    ├── ClosedError                             the store was closed
    ├── EmbedderError (also ValueError)         the embedder returned unusable vectors
    ├── JudgeError                              a pluggable judge's endpoint failed or answered
    │                                           unusably; the call wrote nothing
    └── StoreError                              the store on disk
        ├── StoreLockedError                    another process holds the writer lock
        ├── IncompatibleStoreError              format version or embedder does not match
        │   └── EmbedderMismatchError           vectors of another embedder would be mixed in
        ├── StorageFullError                    the disk is full; the call wrote nothing
        ├── CorruptRecordError                  a record or blob fails to decode or verify (.seq)
        └── CorruptStoreError                   the store's file is damaged (truncated, emptied)

Each message says what went wrong and what to do about it.
"""

from __future__ import annotations


class EventmemError(Exception):
    """Base of every eventmem error."""


class InvalidInputError(EventmemError, ValueError):
    """The call's input was rejected before anything was written."""


class NotFoundError(EventmemError, KeyError):
    """No memory with that id exists in this store (or in this view)."""

    def __str__(self) -> str:  # KeyError would print the repr of the message
        return str(self.args[0]) if self.args else "not found"


class ReadOnlyError(EventmemError):
    """A write was attempted on a read-only view or store."""


class ClosedError(EventmemError):
    """The store was used after close()."""


class EmbedderError(EventmemError, ValueError):
    """The embedder returned vectors the store cannot hold (wrong shape, not finite, not unit
    length): nothing was written."""


class JudgeError(EventmemError):
    """A pluggable judge (eventmem.judges) could not answer: its endpoint failed, timed out or
    answered something unusable. Raised before anything is appended."""


class StoreError(EventmemError):
    """Something is wrong with the store on disk."""


class StoreLockedError(StoreError):
    """Another process holds the writer lock of this store."""


class IncompatibleStoreError(StoreError):
    """The store was written by an incompatible format or configuration."""


class EmbedderMismatchError(IncompatibleStoreError):
    """The store's vectors were made by another embedder than the one given."""


class StorageFullError(StoreError):
    """The disk is full. The call was rolled back; the store is unchanged and readable."""


class CorruptRecordError(StoreError):
    """A stored record or blob does not decode or does not match its hash."""

    def __init__(self, message: str, *, seq: int | None = None) -> None:
        super().__init__(message if seq is None else f"seq {seq}: {message}")
        self.seq = seq


class CorruptStoreError(StoreError):
    """The store's data file is damaged as a whole (cut short, emptied, missing): it is refused
    at open, before LMDB maps it, instead of crashing the process or opening as a new, empty
    store. Restore the store from a copy."""

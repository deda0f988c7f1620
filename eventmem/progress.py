"""Progress of long work (verify, audit, a rebuild, a consolidation), for whoever shows it.

The work reports ``(task, done, total)`` at its natural points: records walked, envelopes folded,
steps of the dream cycle. Nobody listens by default, and then a report costs one context-variable
read. A listener is installed for a block of code with :func:`reporting`; the CLI installs a
progress bar on a terminal (:mod:`eventmem.cli.bar`).

A context variable rather than a parameter: progress is output for a person at a terminal, never
an input to a decision, and the walks that report it sit several calls below the engine's methods
(open, verify, audit, as_of all fold the log); a ``progress=`` parameter would run through every
one of them. It is scoped to the block (and to the thread or task that installed it), so a server
thread never reports to a CLI's bar.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

Listener = Callable[[str, int, int], None]
"""Hears ``(task, done, total)``: ``done`` from 0 to ``total``, a task at a time."""

T = TypeVar("T")

_listener: ContextVar[Listener | None] = ContextVar("eventmem_progress", default=None)


@contextmanager
def reporting(listener: Listener) -> Iterator[None]:
    """Send the progress of the work done inside the block to ``listener``."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def active() -> bool:
    """Whether anyone listens (a caller may skip counting a total nobody will see)."""
    return _listener.get() is not None


def report(task: str, done: int, total: int) -> None:
    """Say that ``done`` of ``total`` units of ``task`` are done (nothing when nobody listens)."""
    listener = _listener.get()
    if listener is not None:
        listener(task, min(done, total), total)


def tracked(items: Iterable[T], task: str, total: int | Callable[[], int], *,
            size: Callable[[T], int] | None = None) -> Iterable[T]:
    """``items`` as they are, reporting ``task``'s progress as each is consumed: one unit per
    item, or ``size(item)`` units (a chunk of records). ``total`` may be a function, called
    only when someone listens. With no listener, ``items`` itself comes back."""
    listener = _listener.get()
    if listener is None:
        return items
    return _counted(items, task, total() if callable(total) else total, size, listener)


def _counted(items: Iterable[T], task: str, total: int, size: Callable[[T], int] | None,
             listener: Listener) -> Iterator[T]:
    done = 0
    listener(task, 0, total)
    for item in items:
        yield item
        done += 1 if size is None else size(item)
        listener(task, min(done, total), total)

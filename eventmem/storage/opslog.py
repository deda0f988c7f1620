"""The ops log: one JSON line per operation in ``<store>/ops.log``, written with structlog.

It records what was done (ids, counts, seqs, timings), never memory text or queries, so erasing a
memory from the store leaves nothing of it here. It is for operators; the event log stays the
source of truth.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TextIO

import structlog


class _LineFile:
    """A logger factory target: appends each rendered line to the file and flushes it."""

    def __init__(self, path: Path) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._file: TextIO = os.fdopen(fd, "a", encoding="utf-8")
        self.dropped = 0  # lines lost to a full disk

    def msg(self, message: str) -> None:
        # Best effort: the ops log is diagnostics, the event log is the record. A full disk must
        # fail the write that needs space (cleanly, in LMDB), never a read because its log line
        # could not be written.
        try:
            self._file.write(message + "\n")
            self._file.flush()
        except OSError:
            self.dropped += 1

    info = debug = warning = error = msg

    def close(self) -> None:
        self._file.close()


class _Silent:
    def info(self, *args: Any, **kwargs: Any) -> None:
        pass

    def close(self) -> None:
        pass


class _OpsLog:
    """The bound structlog logger, and a close() for the file underneath."""

    def __init__(self, target: _LineFile, logger: Any) -> None:
        self._target, self._logger = target, logger

    def info(self, event: str, **kw: Any) -> None:
        self._logger.info(event, **kw)

    def close(self) -> None:
        self._target.close()


def ops_logger(store: Path, *, enabled: bool = True) -> Any:
    """A bound structlog logger writing JSON lines to ``store/ops.log`` (or a silent one)."""
    if not enabled:
        return _Silent()
    target = _LineFile(store / "ops.log")
    return _OpsLog(target, structlog.wrap_logger(
        target,
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.JSONRenderer(sort_keys=True),
        ],
        store=str(store),
        pid=os.getpid(),
    ))

"""The ops log: one JSON line per operation in ``<store>/ops.log``, written with structlog.

It records what was done (ids, counts, seqs, timings), never memory text or queries, so erasing a
memory from the store leaves nothing of it here. It is for operators; the event log stays the
source of truth.

It rotates by size: a line that would take ``ops.log`` past ``max_bytes`` first moves it to
``ops.log.1`` (``ops.log.1`` to ``ops.log.2``, and so on), and only the newest ``keep`` rotated
files stay, so a long-lived store's ops log takes at most about ``(keep + 1) * max_bytes``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

DEFAULT_MAX_BYTES = 8 << 20  # about 40,000 lines: weeks of a busy agent's calls
DEFAULT_KEEP = 4  # rotated files kept beside ops.log


class _LineFile:
    """A logger factory target: appends each rendered line to the file, rotating it by size.

    Lines go out with one ``os.write`` each on an ``O_APPEND`` descriptor, never through a
    buffer: a line a full disk refused is dropped then and there, instead of staying in a buffer
    that the next write or the close would try (and fail) to flush again.
    """

    def __init__(self, path: Path, *, max_bytes: int, keep: int) -> None:
        self.path, self._max_bytes, self._keep = path, max_bytes, keep
        self._fd: int | None = None
        self._fd, self._size = self._open()
        self._torn = False  # the last line was cut short: the next starts on a fresh line
        self.dropped = 0  # lines lost to a full disk

    def _open(self) -> tuple[int, int]:
        # O_NOFOLLOW: a link planted at ops.log must not make the store append to another file.
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        return fd, os.fstat(fd).st_size

    def msg(self, message: str) -> None:
        # Best effort: the ops log is diagnostics, the event log is the record. A full disk must
        # fail the write that needs space (cleanly, in LMDB), never a read because its log line
        # could not be written.
        line = ("\n" if self._torn else "") + message + "\n"
        data = line.encode("utf-8")
        try:
            if self._size and self._size + len(data) > self._max_bytes:
                self._rotate()
            if self._fd is None:  # a rotation that could not reopen the file
                self._fd, self._size = self._open()
            written = os.write(self._fd, data)
        except OSError:
            self.dropped += 1
            return
        self._size += written
        self._torn = written < len(data)
        if self._torn:
            self.dropped += 1

    info = debug = warning = error = msg

    def _rotate(self) -> None:
        """ops.log -> ops.log.1 -> ... -> ops.log.<keep>; the oldest beyond ``keep`` goes."""
        self._close_fd()
        name = str(self.path)
        if self._keep == 0:
            os.unlink(name)
        else:
            for index in range(self._keep - 1, 0, -1):
                older = f"{name}.{index}"
                if os.path.lexists(older):
                    os.replace(older, f"{name}.{index + 1}")
            os.replace(name, f"{name}.1")
        self._fd, self._size = self._open()
        self._torn = False

    def _close_fd(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):  # nothing is buffered: nothing left to lose
                os.close(fd)

    def close(self) -> None:
        """Close the file. Never raises: closing a store must release it whatever the disk."""
        self._close_fd()


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


def ops_logger(store: Path, *, enabled: bool = True, max_bytes: int = DEFAULT_MAX_BYTES,
               keep: int = DEFAULT_KEEP) -> Any:
    """A bound structlog logger writing JSON lines to ``store/ops.log`` (or a silent one),
    rotated past ``max_bytes`` with ``keep`` rotated files kept (see the module docstring).
    Raises OSError when ``ops.log`` cannot be opened (a symbolic link, no permission)."""
    if not enabled:
        return _Silent()
    # Imported here: structlog brings rich along (a tenth of a second or more), which a
    # read-only command, that logs nothing, should not pay for.
    import structlog

    target = _LineFile(store / "ops.log", max_bytes=max_bytes, keep=keep)
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

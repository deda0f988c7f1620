"""A progress bar on a terminal: what the CLI shows of :mod:`eventmem.progress` while verify,
audit, a rebuild or a consolidation runs. Dependency-free: one line, redrawn in place.

It redraws only when the task or the whole percentage changes (at most about a hundred times a
task, whatever the number of records), and erases itself when a task ends, so the command's
output starts on a clean line. It is shown only when stderr is a terminal: piped or captured
output never holds a bar.
"""

from __future__ import annotations

from typing import TextIO

_WIDTH = 30  # cells of the bar itself
_LABEL = 24  # characters of the task's name at most


class ProgressBar:
    """An :data:`eventmem.progress.Listener` drawing ``task [#####-----]  42%  420/1000`` on
    ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._shown: tuple[str, int] | None = None  # (task, percent) on screen now

    def __call__(self, task: str, done: int, total: int) -> None:
        """Hear ``done`` of ``total`` units of ``task``: redraw when the line would change,
        erase when the task is done."""
        if total <= 0:
            return
        if done >= total:
            self.clear()
            return
        percent = done * 100 // total
        if self._shown == (task, percent):
            return
        filled = done * _WIDTH // total
        label = task if len(task) <= _LABEL else task[:_LABEL - 1] + "~"
        self.stream.write(f"\r{label:<{_LABEL}} [{'#' * filled}{'-' * (_WIDTH - filled)}] "
                          f"{percent:>3}%  {done}/{total}\x1b[K")
        self.stream.flush()
        self._shown = (task, percent)

    def clear(self) -> None:
        """Erase the bar's line, if one is shown."""
        if self._shown is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._shown = None

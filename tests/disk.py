"""A small real filesystem to fill, for full-disk tests: a tmpfs mounted under the test's
directory (needs root; the tests skip without it)."""

from __future__ import annotations

import gc
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_tmpfs(tmp_path: Path, megabytes: int) -> Iterator[Path]:
    """A tmpfs of ``megabytes`` mounted under ``tmp_path``, unmounted at the end (lazily if
    something still holds a file open)."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={megabytes}m,mode=0700",
                              "tmpfs", str(mount_point)], capture_output=True, text=True,
                             timeout=60)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip() or mounted.returncode}")
    try:
        yield mount_point
    finally:
        gc.collect()  # engines kept by a failed test's traceback hold ops.log open
        if subprocess.run(["umount", str(mount_point)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount_point)], check=True, timeout=60)


def fill_disk(path: Path, chunk: int = 64 * 1024) -> None:
    """Write zeros to ``path`` until its filesystem is full."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        while True:
            os.write(fd, bytes(chunk))
    except OSError as exc:
        assert exc.errno == 28, exc  # ENOSPC
    finally:
        os.close(fd)

"""What a process still holds of a store's snapshot files: the files it maps or keeps open (from
/proc/self; Linux only, the tests skip elsewhere), and the memory maps an object reads from."""

from __future__ import annotations

import contextlib
import gc
import mmap
import os
import types
from pathlib import Path

import numpy as np
import pytest

from eventmem.storage import snapfiles

# Walked past: they reach the whole interpreter, and hold no projection's buffers.
_LEAVES = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
           types.MethodType, str, bytes, int, float)


def held_snapshot_files(store: Path) -> list[str]:
    """The snapshot files of ``store`` this process maps or has open, as the kernel names them
    (an unlinked one ends in " (deleted)")."""
    maps, fds = Path("/proc/self/maps"), Path("/proc/self/fd")
    if not maps.exists():
        pytest.skip("needs /proc/self (Linux)")
    folder = str(store / snapfiles.DIRECTORY)
    held = [line.split(None, 5)[-1] for line in maps.read_text().splitlines() if folder in line]
    for fd in os.listdir(fds):
        try:
            target = os.readlink(fds / fd)
        except OSError:  # closed since listed (the listing's own descriptor)
            continue
        if target.startswith(folder):
            held.append(target)
    return sorted(set(held))


def mmaps_of(root: object) -> list[mmap.mmap]:
    """Every memory map ``root`` reads from: those behind each memoryview and numpy array
    reachable from it."""
    seen: set[int] = set()
    found: dict[int, mmap.mmap] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, _LEAVES):
            continue
        seen.add(id(obj))
        if isinstance(obj, mmap.mmap):
            found[id(obj)] = obj
        elif isinstance(obj, memoryview):
            with contextlib.suppress(ValueError):  # a released one holds nothing
                stack.append(obj.obj)
        elif isinstance(obj, np.ndarray):
            stack.append(obj.base)
        else:
            stack.extend(gc.get_referents(obj))
    return list(found.values())

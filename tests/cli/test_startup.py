"""What a CLI command pays for before it opens a store (issue 17): the rule tables compile their
regexes on first use (:mod:`eventmem.text.lazyre`), and the heavy modules load only where they
are used (the ops log's structlog by a writer, worker processes by a large batch, ANN indexes by
maintenance, the server by ``serve``). Checked by what a fresh process loads and compiles, not by
timing it (the machine may be busy)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

import eventmem
from tests import ROOT

# Loaded by none of the commands below: each costs tens of milliseconds or more at start-up.
HEAVY = ("structlog", "rich", "multiprocessing", "concurrent.futures", "threadpoolctl",
         "pynndescent", "numba", "sklearn", "starlette", "uvicorn", "mcp", "httpx")

# Runs a command in a fresh interpreter, counting the regexes eventmem's own modules compile.
_PROBE = """
import json, re, sys
compiled = []
original = re.compile
def counting(pattern, flags=0):
    caller = sys._getframe(1).f_globals.get("__name__", "")
    if caller.split(".")[0] in ("eventmem", "projections", "replay"):
        compiled.append(caller)
    return original(pattern, flags)
re.compile = counting
args = sys.argv[1:]
if args:
    from eventmem.cli.commands import main
    try:
        main(args)
    except SystemExit:
        pass
else:
    import eventmem.engine
print(json.dumps({"compiled": sorted(set(compiled)),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in HEAVY
                                   or m in HEAVY)}), file=sys.stderr)
"""


def _probe(*args: str) -> dict[str, list[str]]:
    code = f"HEAVY = {HEAVY!r}\n{_PROBE}"
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=True)
    return json.loads(proc.stderr.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    store = tmp_path_factory.mktemp("startup") / "store"
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    with eventmem.open(store, clock=clock) as mem:
        mem.remember_many([f"note {i} about the garden" for i in range(20)], namespace="a")
    return str(store)


def test_importing_the_engine_compiles_no_regex_and_loads_nothing_heavy() -> None:
    assert _probe() == {"compiled": [], "loaded": []}


@pytest.mark.parametrize("command", [("stats",), ("log", "--limit", "3"), ("verify",)])
def test_a_read_only_command_loads_nothing_heavy(small_store: str, command: tuple[str, ...]
                                                 ) -> None:
    assert _probe("--store", small_store, *command)["loaded"] == []


def test_a_writer_still_logs_its_operations(small_store: str, tmp_path: Path) -> None:
    """structlog loads with the first writer (the ops log), not before."""
    found = _probe("--store", small_store, "remember", "one more note about the garden")
    assert "structlog" in found["loaded"]
    assert "remember" in (Path(small_store) / "ops.log").read_text()

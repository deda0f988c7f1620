"""A truncated ``data.mdb``: copies of a written store cut at many points, each opened writable
and read-only in a child process (a SIGBUS kills only the child).

    python -m ops.drills.truncate [--memories 2000] [--random 20] [--seed 7] [--out FILE]

The cuts: 0 bytes, inside the first meta page, between the two meta pages, just after them,
``--random`` seeded offsets across the file, one page and one byte off the end, and the file
deleted. Each open ends one way:

* ``refused``: a clear eventmem error (CorruptStoreError): the target for every cut;
* ``crash``: the child died (SIGBUS) or raised something that is not an eventmem error;
* ``opened``: it opened. Complete (every memory there, verify ok) it is harmless; otherwise it is
  an undetected corruption, and the memories it lacks are counted as lost.

Counts (the targets are 0): ``crashes``, ``undetected_corruptions``, ``lost``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import REPO_ROOT, format_table, machine_info, publish

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "truncate.json"

OPEN = textwrap.dedent("""
    import json, sys
    import eventmem
    try:
        with eventmem.open(sys.argv[1], readonly=sys.argv[2] == "ro") as mem:
            n = sum(1 for m in mem.memories() if m.text is not None)
            print(json.dumps({"outcome": "opened", "memories": n, "verify": mem.verify().ok}))
    except eventmem.EventmemError as exc:
        print(json.dumps({"outcome": "refused", "error": type(exc).__name__}))
""")


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))


def build_store(store: Path, memories: int) -> None:
    """A closed store holding ``memories`` distinct memories."""
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    with eventmem.open(store, clock=clock, config=eventmem.Config(sync=False)) as mem:
        for start in range(0, memories, 500):
            mem.remember_many([f"note {i}: the parcel for order {i * 31} went to depot {i % 9}"
                               for i in range(start, min(memories, start + 500))],
                              namespace="t")


def cuts(size: int, n_random: int, seed: int) -> list[tuple[str, int | None]]:
    """(name, bytes kept; None: the file deleted) for every cut of a file of ``size`` bytes."""
    page = 4096
    fixed = [("zero", 0), ("inside_first_meta", 100), ("between_metas", page + 50),
             ("after_metas", 2 * page + 10), ("last_page", size - page), ("last_byte", size - 1),
             ("deleted", None)]
    rng = random.Random(seed)
    return fixed + [(f"random_{i}", rng.randrange(1, size)) for i in range(n_random)]


def open_child(store: Path, mode: str) -> dict[str, Any]:
    """Open ``store`` in a child process; how it ended."""
    done = subprocess.run([sys.executable, "-c", OPEN, str(store), mode], cwd=REPO_ROOT,
                          env=_env(), capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        return {"outcome": "crash", "returncode": done.returncode,
                "stderr": done.stderr[-300:]}
    return json.loads(done.stdout)


def run(*, memories: int = 2000, n_random: int = 20, seed: int = 7,
        tmp: Path | None = None) -> dict[str, Any]:
    """Every cut's outcome, writable and read-only, and the totals."""
    work = Path(tempfile.mkdtemp(prefix="drill-truncate-", dir=tmp))
    started = time.perf_counter()
    results = []
    try:
        original = work / "original"
        build_store(original, memories)
        size = (original / "data.mdb").stat().st_size
        for name, kept in cuts(size, n_random, seed):
            for mode in ("rw", "ro"):
                store = work / "copy"
                shutil.rmtree(store, ignore_errors=True)
                shutil.copytree(original, store)
                if kept is None:
                    (store / "data.mdb").unlink()
                else:
                    os.truncate(store / "data.mdb", kept)
                outcome = open_child(store, mode)
                complete = (outcome["outcome"] == "opened" and outcome["verify"]
                            and outcome["memories"] == memories)
                results.append({"cut": name, "kept": kept, "mode": mode, **outcome,
                                "harmless": complete})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    opened_damaged = [r for r in results if r["outcome"] == "opened" and not r["harmless"]]
    return {
        "drill": "truncate",
        "parameters": {"memories": memories, "random": n_random, "seed": seed,
                       "file_size": size},
        "counts": {
            "runs": len(results),
            "refused": sum(r["outcome"] == "refused" for r in results),
            "harmless": sum(r["harmless"] for r in results),
            "crashes": sum(r["outcome"] == "crash" for r in results),
            "undetected_corruptions": len(opened_damaged),
            "lost": sum(memories - r["memories"] for r in opened_damaged),
        },
        "runs": results,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(result: dict[str, Any]) -> str:
    """The counts as a table."""
    return "data.mdb cut short, opened writable and read-only\n" + format_table(
        ["count", "value"], list(result["counts"].items()))


def main(argv: list[str] | None = None) -> int:
    """Run the drill; exit 1 unless every count that must be 0 is."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--random", type=int, default=20, help="seeded random cut points")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(memories=args.memories, n_random=args.random, seed=args.seed, tmp=args.tmp)
    result["machine"] = machine_info()
    publish(report(result), args.out, result)
    counts = result["counts"]
    return 1 if counts["crashes"] + counts["undetected_corruptions"] + counts["lost"] else 0


if __name__ == "__main__":
    sys.exit(main())

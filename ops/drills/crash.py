"""Crash loop: a child process writing to one store is killed with SIGKILL at a seeded moment,
again and again, and after every kill the store must open, verify, and hold every write the
child saw acknowledged.

    python -m ops.drills.crash [--runs 40] [--seed 13] [--out FILE]

Each run starts a writer child on the same store (sync on: a returned call is durable). It loops
over seeded operations: ``remember_many`` batches (most), ``consolidate``, ``erase`` of one
memory, ``compact``, ``recall``, and prints a line for each call once it has returned (the
acknowledgement) and one before each erase or compact (what may be in flight). The parent kills
it at a seeded moment, then a checker child opens the store writable (a restart), verifies it,
and looks up every memory acknowledged so far, in every run:

* ``lost``: an acknowledged memory the store does not know, holds without its text, or shows
  erased although no erase of it (or of a memory it derives from) was asked for (target 0);
* ``crashes_at_open``: the checker could not open the store, or died (target 0);
* ``verify_failures``: it opened and verify reported findings (target 0).

Counts also: ``runs``, ``acknowledged`` (memories), ``erased`` (acknowledged erasures), and
``killed_during`` (the last operation started before each kill).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ops.bench.common import REPO_ROOT, format_table, machine_info, publish

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "crash.json"

WRITER = textwrap.dedent("""
    import random, sys
    import eventmem
    store, seed = sys.argv[1], int(sys.argv[2])
    rng = random.Random(seed)
    def say(*parts):
        print(*parts, flush=True)
    with eventmem.open(store) as mem:
        ids = [m.memory_id for m in mem.memories() if m.status not in ("erased", "purged")]
        say("ready")
        n = 0
        while True:
            roll = rng.random()
            if roll < 0.80:
                say("op", "remember")
                items = [{"text": f"crate {seed}-{n + i} of {rng.getrandbits(40):x} holds "
                                  f"{rng.randrange(1000)} bolts for bay {rng.randrange(50)}",
                          "namespace": "ab"[i % 2], "tags": (f"run{seed}",)}
                         for i in range(5)]
                n += 5
                for r in mem.remember_many(items):
                    if r.memory_id is not None:
                        ids.append(r.memory_id)
                        say("W", r.memory_id)
            elif roll < 0.87:
                say("op", "consolidate")
                mem.consolidate()
            elif roll < 0.93 and ids:
                victim = ids.pop(rng.randrange(len(ids)))
                say("op", "erase")
                say("e", victim)
                done = mem.erase(memory_id=victim)
                for mid in done.memory_ids:
                    say("E", mid)
            elif roll < 0.96:
                say("op", "compact")
                mem.compact()
            else:
                say("op", "recall")
                mem.recall("bolts for bay 7", namespace="a")
""")

CHECKER = textwrap.dedent("""
    import json, sys
    import eventmem
    want = json.load(open(sys.argv[2]))
    try:
        with eventmem.open(sys.argv[1]) as mem:
            lost, erased = [], 0
            allowed = set(want["erase_allowed"])
            # An erase cascades to what derives from its memory: erased by a requested one.
            requested = {mid: event.requested for _, event in mem.events()
                         if type(event).__name__ == "MemoryErased"
                         for mid in event.memory_ids}
            for mid in want["acknowledged"]:
                try:
                    m = mem.get(mid)
                except eventmem.NotFoundError:
                    lost.append(mid)
                    continue
                if m.status == "erased":
                    erased += 1
                    if mid not in allowed and requested.get(mid) not in allowed:
                        lost.append(mid)
                elif m.text is None:
                    lost.append(mid)
            report = mem.verify()
            print(json.dumps({"opened": True, "lost": lost, "erased_seen": erased,
                              "verify": report.ok,
                              "findings": [[f.check, f.seq] for f in report.findings][:5]}))
    except eventmem.EventmemError as exc:
        print(json.dumps({"opened": False, "error": f"{type(exc).__name__}: {exc}"[:300]}))
""")


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))


def kill_writer(store: Path, seed: int, delay: float) -> list[list[str]]:
    """Start a writer, SIGKILL it ``delay`` seconds after it is ready; the lines it printed."""
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(store), str(seed)],
                            cwd=REPO_ROOT, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    lines: list[list[str]] = []
    first = proc.stdout.readline()  # "ready", or nothing if it failed to open
    if first.strip() == "ready":
        time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    for line in [first, *out.splitlines()]:
        if line.strip():
            lines.append(line.split())
    if first.strip() != "ready":
        lines.append(["failed", err[-300:]])
    return lines


def check(store: Path, state: Path) -> dict[str, Any]:
    """Open, look up, verify, in a child; how it went."""
    try:
        done = subprocess.run([sys.executable, "-c", CHECKER, str(store), str(state)],
                              cwd=REPO_ROOT, env=_env(), capture_output=True, text=True,
                              timeout=600)
    except subprocess.TimeoutExpired:
        return {"opened": False, "error": "timed out"}
    if done.returncode != 0 or not done.stdout.strip():
        return {"opened": False, "error": f"exit {done.returncode}: {done.stderr[-300:]}"}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run(*, runs: int = 40, seed: int = 13, max_delay: float = 2.0,
        tmp: Path | None = None) -> dict[str, Any]:
    """``runs`` kills of a writer on one store, each followed by a check."""
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="drill-crash-", dir=tmp))
    store, state = work / "store", work / "acknowledged.json"
    started = time.perf_counter()
    acknowledged: list[str] = []
    erased: set[str] = set()  # acknowledged erasures (cascades included)
    allowed: set[str] = set()  # erased is no loss: requested (acknowledged or in flight)
    results = []
    killed_during: Counter[str] = Counter()
    try:
        for n in range(runs):
            lines = kill_writer(store, seed * 1000 + n, rng.uniform(0.05, max_delay))
            last_op = "none"
            for parts in lines:
                match parts:
                    case ["W", mid]:
                        acknowledged.append(mid)
                    case ["op", op]:
                        last_op = op
                    case ["E", mid]:
                        erased.add(mid)
                        allowed.add(mid)
                    case ["e", mid]:  # asked for: erased or not, both are right after a kill
                        allowed.add(mid)
            killed_during[last_op] += 1
            state.write_text(json.dumps({"acknowledged": acknowledged,
                                         "erase_allowed": sorted(allowed)}))
            outcome = check(store, state)
            results.append({"run": n, "killed_during": last_op,
                            "acknowledged": len(acknowledged),
                            "failed_start": any(p[0] == "failed" for p in lines), **outcome})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "drill": "crash",
        "parameters": {"runs": runs, "seed": seed, "max_delay": max_delay},
        "counts": {
            "runs": len(results),
            "acknowledged": len(acknowledged),
            "erased": len(erased),
            "lost": sum(len(r.get("lost", ())) for r in results),
            "crashes_at_open": sum(not r["opened"] for r in results),
            "verify_failures": sum(r["opened"] and not r["verify"] for r in results),
            "writer_failed_to_start": sum(r["failed_start"] for r in results),
        },
        "killed_during": dict(sorted(killed_during.items())),
        "runs": results,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(result: dict[str, Any]) -> str:
    """The counts as a table."""
    rows = list(result["counts"].items()) + [
        (f"killed during {op}", n) for op, n in result["killed_during"].items()]
    return "a writer SIGKILLed in a loop, the store reopened and checked after each kill\n" + \
        format_table(["count", "value"], rows)


def main(argv: list[str] | None = None) -> int:
    """Run the drill; exit 1 unless lost, crashes at open and verify failures are all 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-delay", type=float, default=2.0,
                        help="longest wait, in seconds, before the kill")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(runs=args.runs, seed=args.seed, max_delay=args.max_delay, tmp=args.tmp)
    result["machine"] = machine_info()
    publish(report(result), args.out, result)
    counts = result["counts"]
    return 1 if (counts["lost"] + counts["crashes_at_open"] + counts["verify_failures"]
                 + counts["writer_failed_to_start"]) else 0


if __name__ == "__main__":
    sys.exit(main())

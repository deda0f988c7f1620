"""Threads sharing one engine: T threads each remember and recall on the same ``Engine``.

    python -m ops.drills.threads [--runs 5] [--threads 4] [--ops 60] [--no-sync] [--out FILE]

Per run, a fresh store; the threads start together and the interpreter switches between them
every microsecond (so they interleave inside the engine's calls, not between them). Then the
live engine must verify and audit, and the store, closed and reopened, must verify again and
hold every acknowledged memory with its text.

Counts (the targets are all 0): ``crashes`` (exceptions the threads raised), ``lost``
(acknowledged memories missing after the reopen), ``detected_corruptions`` (runs where verify or
audit failed), ``undetected_corruptions`` (runs where both passed yet a write was lost).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import REPO_ROOT, format_table, machine_info, publish

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "threads.json"


def one_run(store: Path, *, threads: int, ops: int, sync: bool) -> dict[str, Any]:
    """One run on a fresh store at ``store``: its counts."""
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    acknowledged: dict[str, str] = {}  # memory id -> the text acknowledged into it
    errors: list[str] = []
    start = threading.Barrier(threads)

    mem = eventmem.open(store, clock=clock, config=eventmem.Config(sync=sync))

    def work(t: int) -> None:
        start.wait()
        try:
            for i in range(ops):
                text = f"thread {t} learned fact {i} about topic {i % 7} in city {t * i % 5}"
                r = mem.remember(text, namespace=f"ns{t % 2}")
                acknowledged[r.memory_id] = text
                mem.recall(f"fact {i} topic {i % 7}", namespace=f"ns{t % 2}", k=3)
        except Exception as exc:  # counted: any exception here is a failure of the drill
            errors.append(f"{type(exc).__name__}: {exc}")

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(before)
    live_verify, audit_findings = False, -1
    try:
        live_verify = mem.verify().ok
        audit_findings = len(mem.audit().findings)
    except Exception as exc:  # a check that cannot even run: a crash, and detected damage
        errors.append(f"checks: {type(exc).__name__}: {exc}")
    try:
        mem.close()
    except Exception as exc:  # the closing snapshot of a damaged state
        errors.append(f"close: {type(exc).__name__}: {exc}")
    reopened_verify, lost = False, len(acknowledged)
    try:
        with eventmem.open(store, clock=clock) as again:
            reopened_verify = again.verify().ok
            lost = 0
            for mid in acknowledged:
                try:
                    lost += again.get(mid).text is None
                except eventmem.NotFoundError:
                    lost += 1
    except Exception as exc:  # the store no longer opens
        errors.append(f"reopen: {type(exc).__name__}: {exc}")
    detected = not (live_verify and audit_findings == 0 and reopened_verify)
    return {
        "acknowledged": len(acknowledged),
        "crashes": len(errors),
        "errors": errors[:5],
        "lost": lost,
        "verify_ok": live_verify and reopened_verify,
        "audit_findings": audit_findings,
        "detected_corruption": detected,
        "undetected_corruption": (not detected) and lost > 0,
    }


def run(*, runs: int = 5, threads: int = 4, ops: int = 60, sync: bool = True,
        tmp: Path | None = None) -> dict[str, Any]:
    """Every run's counts and their totals."""
    work = Path(tempfile.mkdtemp(prefix="drill-threads-", dir=tmp))
    results = []
    started = time.perf_counter()
    try:
        for n in range(runs):
            results.append(one_run(work / f"store{n}", threads=threads, ops=ops, sync=sync))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "drill": "threads",
        "parameters": {"runs": runs, "threads": threads, "ops": ops, "sync": sync},
        "counts": {
            "runs": runs,
            "acknowledged": sum(r["acknowledged"] for r in results),
            "lost": sum(r["lost"] for r in results),
            "crashes": sum(r["crashes"] for r in results),
            "detected_corruptions": sum(r["detected_corruption"] for r in results),
            "undetected_corruptions": sum(r["undetected_corruption"] for r in results),
        },
        "runs": results,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(result: dict[str, Any]) -> str:
    """The counts as a table."""
    return "threads sharing one engine\n" + format_table(
        ["count", "value"], list(result["counts"].items()))


def main(argv: list[str] | None = None) -> int:
    """Run the drill; exit 1 unless every count that must be 0 is."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--ops", type=int, default=60, help="remember + recall per thread")
    parser.add_argument("--no-sync", action="store_true", help="sync off (faster, less real)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(runs=args.runs, threads=args.threads, ops=args.ops, sync=not args.no_sync,
                 tmp=args.tmp)
    result["machine"] = machine_info()
    publish(report(result), args.out, result)
    counts = result["counts"]
    failed = counts["lost"] + counts["crashes"] + counts["detected_corruptions"] \
        + counts["undetected_corruptions"]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

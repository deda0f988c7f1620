"""Ingest speed with the full write gate, into stores that already hold 10k and 100k memories.

    python -m ops.bench.ingest [--sizes 10000,100000] [--measure 10000] [--batch 1000]
                               [--namespaces 1] [--out FILE]

For each size N: a fresh store is filled with N generated chat-like texts (``remember_many`` in
batches; not timed), then ``--measure`` more texts go in with ``remember_many`` in batches of
``--batch`` (timed: memories/s), then 200 single ``remember`` calls (p50/p99 latency). Every call
runs the whole write path: observer filter, exact/semantic/near-duplicate gate against the
namespace's window and rare-term neighbours, contradiction checks, classification, importance,
entity and relation extraction, and a durable append (sync on). The report also counts the
gate's actions, so a run that "got fast" by creating nothing would show it.

One namespace by default: the worst case for the gate, whose candidates come from the
namespace. Target: >= 2,000 memories/s batched at 100k.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import (
    RESULTS_DIR,
    format_table,
    machine_info,
    peak_rss_mb,
    percentile,
    progress,
    publish,
)
from ops.bench.log import generate_texts

DEFAULT_OUT = RESULTS_DIR / "ingest.json"
T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
TARGET_PER_S = 2_000.0
TARGET_AT = 100_000


def measure(size: int, *, measure_n: int, batch: int, namespaces: int, root: Path
            ) -> dict[str, Any]:
    texts = generate_texts(size + measure_n + 200, seed=11)
    clock = eventmem.ManualClock(start=T0)
    path = root / f"store-{size}"
    actions: Counter[str] = Counter()
    with eventmem.open(path, clock=clock) as mem:
        for start in range(0, size, batch):
            chunk = texts[start:start + batch]
            mem.remember_many(chunk, namespace=f"user-{(start // batch) % namespaces}")
            clock.advance(timedelta(minutes=5))
            if start % (batch * 20) == 0:
                progress(f"  filling {size:,}: {start:,}")
        fresh = texts[size:size + measure_n]
        began, cpu_began = time.perf_counter(), time.process_time()
        for start in range(0, measure_n, batch):
            results = mem.remember_many(fresh[start:start + batch],
                                        namespace=f"user-{(start // batch) % namespaces}")
            actions.update(r.action for r in results)
            clock.advance(timedelta(minutes=5))
        batched_s = time.perf_counter() - began
        batched_cpu_s = time.process_time() - cpu_began
        latencies = []
        for text in texts[size + measure_n:]:
            t = time.perf_counter()
            mem.remember(text, namespace="user-0")
            latencies.append((time.perf_counter() - t) * 1e3)
            clock.advance(timedelta(seconds=30))
        memories = mem.stats()["memories"]
    return {
        "size": size,
        "measured": measure_n,
        "batch": batch,
        "namespaces": namespaces,
        "memories_per_s": measure_n / batched_s,
        "batched_seconds": batched_s,
        # CPU time of this process: on a shared machine, wall minus CPU is time spent waiting
        # for a core or for the disk (each batch is one fsync).
        "batched_cpu_seconds": batched_cpu_s,
        "memories_per_cpu_s": measure_n / batched_cpu_s,
        "actions": dict(sorted(actions.items())),
        "remember_p50_ms": percentile(latencies, 50),
        "remember_p99_ms": percentile(latencies, 99),
        "memories_after": memories,
    }


def run(sizes: list[int], *, measure_n: int, batch: int, namespaces: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="eventmem-bench-ingest-"))
    try:
        runs = []
        for size in sizes:
            progress(f"ingest into a store of {size:,}")
            runs.append(measure(size, measure_n=measure_n, batch=batch, namespaces=namespaces,
                                root=root))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    at_target = next((r for r in runs if r["size"] == TARGET_AT), None)
    targets = {}
    if at_target is not None:
        targets["batched ingest at 100k"] = {
            "measured": at_target["memories_per_s"], "target": TARGET_PER_S, "unit": "mem/s",
            "pass": at_target["memories_per_s"] >= TARGET_PER_S,
        }
    return {"benchmark": "ingest", "machine": machine_info(), "runs": runs, "targets": targets,
            "peak_rss_mb": peak_rss_mb()}


def report(result: dict[str, Any]) -> str:
    rows = [(f"{r['size']:,}", r["memories_per_s"], r["memories_per_cpu_s"],
             r["remember_p50_ms"], r["remember_p99_ms"],
             " ".join(f"{k}={v}" for k, v in r["actions"].items())) for r in result["runs"]]
    lines = [format_table(("store size", "mem/s batched", "mem/CPU-s", "remember p50 ms",
                           "p99 ms", "gate actions (measured batch)"), rows)]
    for name, target in result["targets"].items():
        verdict = "PASS" if target["pass"] else "MISS"
        lines.append(f"{verdict}  {name}: {target['measured']:,.0f} {target['unit']} "
                     f"(target >= {target['target']:,.0f})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--measure", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=1_000)
    parser.add_argument("--namespaces", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    result = run(sizes, measure_n=args.measure, batch=args.batch, namespaces=args.namespaces)
    publish(report(result), args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

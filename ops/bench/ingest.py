"""Ingest speed with the full write gate, into stores that already hold 10k and 100k memories.

    python -m ops.bench.ingest [--sizes 10000,100000] [--measure 10000] [--batch 1000]
                               [--namespaces 1] [--cores 1,2,all] [--out FILE]

For each size N: a fresh store is filled with N generated chat-like texts (``remember_many`` in
batches; not timed), then, for each of ``--cores`` in turn, ``--measure`` more new texts go in with
``remember_many(workers=cores)`` in batches of ``--batch`` (timed: memories/s), the bench process
(and so its workers) pinned to that many CPUs; then 200 single ``remember`` calls (p50/p99
latency). Each core count writes after the one before, so the store grows by ``--measure`` each
time (10% at the defaults). Every call
runs the whole write path: observer filter, exact/semantic/near-duplicate gate against the
namespace's window and rare-term neighbours, contradiction checks, classification, importance,
entity and relation extraction, and a durable append (sync on). The report also counts the
gate's actions, so a run that "got fast" by creating nothing would show it.

One namespace by default: the worst case for the gate, whose candidates come from the
namespace. Target: >= 2,000 memories/s batched at 100k.
"""

from __future__ import annotations

import argparse
import os
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


def usable_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def core_counts(spec: str) -> list[int]:
    """``"1,2,all"`` -> [1, 2, usable CPUs], without repeats or counts above the usable."""
    usable = len(usable_cpus())
    counts = [usable if c == "all" else int(c) for c in spec.split(",") if c]
    return sorted({c for c in counts if 1 <= c <= usable})


def measure_cores(mem: eventmem.Engine, clock: eventmem.ManualClock, texts: list[str], *,
                  cores: int, batch: int, namespaces: int) -> dict[str, Any]:
    """``remember_many(workers=cores)`` of ``texts`` in batches, pinned to ``cores`` CPUs. The
    first batch starts the workers: their start-up is in the figure, as a caller meets it."""
    allowed = usable_cpus()
    os.sched_setaffinity(0, allowed[:cores])  # spawned workers inherit it
    actions: Counter[str] = Counter()
    try:
        began, cpu_began = time.perf_counter(), time.process_time()
        for start in range(0, len(texts), batch):
            results = mem.remember_many(texts[start:start + batch], workers=cores,
                                        namespace=f"user-{(start // batch) % namespaces}")
            actions.update(r.action for r in results)
            clock.advance(timedelta(minutes=5))
        seconds, cpu_s = time.perf_counter() - began, time.process_time() - cpu_began
    finally:
        os.sched_setaffinity(0, allowed)
    return {"cores": cores, "workers": cores, "memories": len(texts),
            "memories_per_s": len(texts) / seconds, "seconds": seconds,
            # This process's CPU only (the workers' is their own): what the decisions cost.
            "cpu_seconds": cpu_s, "memories_per_cpu_s": len(texts) / cpu_s,
            "actions": dict(sorted(actions.items()))}


def measure(size: int, *, measure_n: int, batch: int, namespaces: int, root: Path,
            cores: list[int] | None = None) -> dict[str, Any]:
    cores = cores or [1]
    texts = generate_texts(size + measure_n * len(cores) + 200, seed=11)
    clock = eventmem.ManualClock(start=T0)
    path = root / f"store-{size}"
    with eventmem.open(path, clock=clock) as mem:
        for start in range(0, size, batch):
            chunk = texts[start:start + batch]
            mem.remember_many(chunk, namespace=f"user-{(start // batch) % namespaces}")
            clock.advance(timedelta(minutes=5))
            if start % (batch * 20) == 0:
                progress(f"  filling {size:,}: {start:,}")
        by_cores = []
        for i, count in enumerate(cores):  # new texts each time: none is a duplicate
            progress(f"  remember_many at {count} core(s)")
            lo = size + i * measure_n
            by_cores.append(measure_cores(mem, clock, texts[lo:lo + measure_n], cores=count,
                                          batch=batch, namespaces=namespaces))
        first = by_cores[0]
        latencies = []
        for text in texts[size + measure_n * len(cores):]:
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
        # The first core count's (1 by default), as before the core counts were measured.
        "memories_per_s": first["memories_per_s"],
        "batched_seconds": first["seconds"],
        # CPU time of this process: on a shared machine, wall minus CPU is time spent waiting
        # for a core or for the disk (each batch is one fsync).
        "batched_cpu_seconds": first["cpu_seconds"],
        "memories_per_cpu_s": first["memories_per_cpu_s"],
        "actions": first["actions"],
        "by_cores": by_cores,
        "remember_p50_ms": percentile(latencies, 50),
        "remember_p99_ms": percentile(latencies, 99),
        "memories_after": memories,
    }


def run(sizes: list[int], *, measure_n: int, batch: int, namespaces: int,
        cores: list[int] | None = None) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="eventmem-bench-ingest-"))
    try:
        runs = []
        for size in sizes:
            progress(f"ingest into a store of {size:,}")
            runs.append(measure(size, measure_n=measure_n, batch=batch, namespaces=namespaces,
                                root=root, cores=cores))
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
    by_cores = [(f"{r['size']:,}", c["cores"], c["memories_per_s"], c["memories_per_cpu_s"],
                 c["seconds"]) for r in result["runs"] for c in r["by_cores"]]
    lines.append("remember_many items/s at 1, 2, all cores (workers = cores):")
    lines.append(format_table(("store size", "cores", "mem/s", "mem/CPU-s (this process)",
                               "seconds"), by_cores))
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
    parser.add_argument("--cores", default="1,2,all",
                        help="core counts to measure remember_many at (workers = cores)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    result = run(sizes, measure_n=args.measure, batch=args.batch, namespaces=args.namespaces,
                 cores=core_counts(args.cores))
    publish(report(result), args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

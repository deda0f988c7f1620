"""Readers in other processes beside a writer: one process writes while R processes read.

    python -m ops.drills.readers [--runs 3] [--readers 3] [--writes 300] [--out FILE]

Per run, a fresh store; a writer process remembers ``--writes`` memories one at a time, printing
each acknowledged id, while reader processes open the store read-only and, until the writer is
done, refresh, recall and read back every memory they can see. A reader checks what it sees is
whole: every memory it recalls it can ``get`` with its text, and its seq never goes backwards.
Then the store, reopened, must verify and hold every acknowledged memory.

Counts (the targets are all 0): ``crashes`` (a process that exited with an error), ``lost``
(acknowledged memories missing after the reopen), ``torn_reads`` (a reader saw a memory it could
not read whole, or its seq went back), ``verify_failures``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import REPO_ROOT, format_table, publish

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "readers.json"

WRITER = """
import sys, eventmem
with eventmem.open(sys.argv[1], config=eventmem.Config(sync=False)) as mem:
    for i in range(int(sys.argv[2])):
        r = mem.remember(f"reader drill fact {i} about topic {i % 11} in room {i % 5}",
                         namespace="d")
        print(r.memory_id, flush=True)
open(sys.argv[1] + ".done", "w").close()
"""

READER = """
import json, os, sys, time, eventmem
store, done = sys.argv[1], sys.argv[1] + ".done"
while not os.path.exists(os.path.join(store, "data.mdb")):
    time.sleep(0.01)
torn = reads = 0
last = -1
mem = None
while True:
    finished = os.path.exists(done)
    try:
        if mem is None:
            mem = eventmem.open(store, readonly=True)
        mem.refresh()
    except eventmem.StoreError:  # not created yet: the writer's first transaction
        time.sleep(0.01)
        continue
    seq = mem.seq
    torn += seq < last
    last = seq
    for hit in mem.recall(f"fact topic {reads % 11} room", namespace="d", k=5):
        torn += mem.get(hit.memory_id).text is None
    reads += 1
    if finished:
        break
mem.close()
print(json.dumps({"reads": reads, "torn": torn}))
"""


def one_run(store: Path, *, readers: int, writes: int) -> dict[str, Any]:
    """One run on a fresh store: its counts."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO_ROOT),
                                                      os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-c", READER, str(store)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(readers)]
    writer = subprocess.run([sys.executable, "-c", WRITER, str(store), str(writes)], env=env,
                            capture_output=True, text=True, timeout=1800)
    acknowledged = writer.stdout.split()
    crashes = int(writer.returncode != 0)
    reads = torn = 0
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        if proc.returncode != 0 or not out.strip():
            crashes += 1
            continue
        counts = json.loads(out.strip().splitlines()[-1])
        reads += counts["reads"]
        torn += counts["torn"]
    lost, verify_ok = len(acknowledged), False
    try:
        with eventmem.open(store) as mem:
            verify_ok = mem.verify().ok
            lost = 0
            for mid in acknowledged:
                try:
                    lost += mem.get(mid).text is None
                except eventmem.NotFoundError:
                    lost += 1
    except eventmem.EventmemError:
        crashes += 1
    return {"acknowledged": len(acknowledged), "reads": reads, "torn_reads": torn,
            "crashes": crashes, "lost": lost, "verify_ok": verify_ok,
            "writer_error": writer.stderr[-500:] if writer.returncode else ""}


def run(*, runs: int = 3, readers: int = 3, writes: int = 300,
        tmp: Path | None = None) -> dict[str, Any]:
    """Every run's counts and their totals."""
    work = Path(tempfile.mkdtemp(prefix="drill-readers-", dir=tmp))
    results = []
    started = time.perf_counter()
    try:
        for n in range(runs):
            results.append(one_run(work / f"store{n}", readers=readers, writes=writes))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "drill": "readers",
        "parameters": {"runs": runs, "readers": readers, "writes": writes},
        "counts": {
            "runs": runs,
            "acknowledged": sum(r["acknowledged"] for r in results),
            "reads": sum(r["reads"] for r in results),
            "lost": sum(r["lost"] for r in results),
            "crashes": sum(r["crashes"] for r in results),
            "torn_reads": sum(r["torn_reads"] for r in results),
            "verify_failures": sum(not r["verify_ok"] for r in results),
        },
        "runs": results,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(result: dict[str, Any]) -> str:
    """The counts as a table."""
    return "reader processes beside a writer\n" + format_table(
        ["count", "value"], list(result["counts"].items()))


def main(argv: list[str] | None = None) -> int:
    """Run the drill; exit 1 unless every count that must be 0 is."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--readers", type=int, default=3)
    parser.add_argument("--writes", type=int, default=300)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(runs=args.runs, readers=args.readers, writes=args.writes, tmp=args.tmp)
    counts = result["counts"]
    bad = {k: counts[k] for k in ("lost", "crashes", "torn_reads", "verify_failures") if counts[k]}
    publish(report(result) + ("\n\nPASS" if not bad else f"\n\nFAIL: {bad}"), args.out, result)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Byte flips: copies of a written store, one byte of ``data.mdb`` flipped in each, opened,
verified and audited in a child process (a crash kills only the child).

    python -m ops.drills.flips [--flips 200] [--memories 300] [--seed 11] [--out FILE]

The store holds memories with tags and sessions in two namespaces, recalls, a forget, a
consolidation and a snapshot. Each flip XORs one seeded byte (a seeded bit mask) at a seeded
offset: half anywhere in the file, half inside the pages the store uses (the file's first
``used`` bytes, where the data lives). Copies are opened writable and read-only in turn. The
child reads what the store returns (every memory's fields, a few recalls and histories, the
open conflicts), then verifies and audits, and each flip ends one way:

* ``refused``: an eventmem error (a corrupt store, refused at open or by a read): detected;
* ``detected``: it opened and verify or audit reported findings;
* ``harmless``: verify and audit ok and the store returns exactly what the original returns;
* ``undetected``: verify and audit ok, but what the store returns differs (target 0);
* ``raw_exception``: an exception that is not an eventmem error (target 0);
* ``crash``: the child died (a signal, SIGBUS say) or hung (target 0).

Counts: ``runs``, ``crashes``, ``raw_exceptions``, ``undetected_corruptions``, ``detected``
(refused + detected), ``harmless``.
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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import REPO_ROOT, format_table, machine_info, publish

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "flips.json"
QUERIES = ("where is the parcel", "who likes tea", "depot seven", "Berlin office")

# What the store returns, as one JSON document; then verify and audit. Any exception that is
# not an eventmem error is reported as raw, with its type.
CHILD = textwrap.dedent("""
    import hashlib, json, sys
    import eventmem
    QUERIES = %r
    def answers(mem):
        out = []
        for m in mem.memories():
            out.append([m.memory_id, m.namespace, m.text, m.kind, m.status, m.tier, list(m.tags),
                        list(m.refs), m.session, round(m.importance, 9), m.access_count,
                        m.pinned])
        view = mem.as_of(seq=mem.head().seq)  # a view never records its recalls
        for ns in ("a", "b"):
            for q in QUERIES:
                out.append([[h.memory_id, round(h.score, 9)] for h in view.recall(q, namespace=ns)])
        for m in sorted(out[:40], key=repr)[:10]:
            out.append([e.type for e in mem.history(m[0])])
        out.append([c.conflict_id for c in mem.conflicts(namespace="a")])
        return hashlib.sha256(json.dumps(out, default=str).encode()).hexdigest()
    try:
        with eventmem.open(sys.argv[1], readonly=sys.argv[2] == "ro") as mem:
            digest = answers(mem)
            verified, audited = mem.verify(), mem.audit()
            print(json.dumps({"outcome": "opened", "answers": digest, "verify": verified.ok,
                              "audit": audited.ok,
                              "findings": [f.check for f in verified.findings][:5]}))
    except eventmem.EventmemError as exc:
        print(json.dumps({"outcome": "refused", "error": type(exc).__name__}))
    except Exception as exc:
        print(json.dumps({"outcome": "raw_exception", "error": type(exc).__name__,
                          "message": str(exc)[:200]}))
""") % (QUERIES,)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))


def build_store(store: Path, memories: int) -> None:
    """A closed store with two namespaces, labels, recalls, a forget, a consolidation and a
    snapshot."""
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    with eventmem.open(store, clock=clock, config=eventmem.Config(sync=False)) as mem:
        for start in range(0, memories, 100):
            items = [{"text": f"note {i}: the parcel for order {i * 31} went to depot {i % 9}",
                      "namespace": "ab"[i % 2], "tags": (f"batch{start}",),
                      "session": f"s{i % 4}"}
                     for i in range(start, min(memories, start + 100))]
            mem.remember_many(items)
            clock.advance(timedelta(hours=1))
        mem.remember("Alice likes green tea in the Berlin office", namespace="a")
        mem.remember("Alice hates green tea in the Berlin office", namespace="a")
        for q in QUERIES:
            mem.recall(q, namespace="a")
        first = next(iter(mem.memories()))
        mem.forget(first.memory_id, reason="outdated")
        mem.consolidate(now=clock.now() + timedelta(days=1))
        mem.snapshot()


def flips(size: int, used: int, n: int, seed: int) -> list[tuple[int, int]]:
    """(offset, XOR mask) of each flip: alternately anywhere, and inside the used pages."""
    rng = random.Random(seed)
    return [(rng.randrange(size if i % 2 else max(1, used)), 1 << rng.randrange(8))
            for i in range(n)]


def child(store: Path, mode: str, timeout: float = 300) -> dict[str, Any]:
    """Open, read, verify and audit ``store`` in a child process; how it ended."""
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, str(store), mode], cwd=REPO_ROOT,
                              env=_env(), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"outcome": "crash", "returncode": None, "stderr": "timed out"}
    if done.returncode != 0 or not done.stdout.strip():
        return {"outcome": "crash", "returncode": done.returncode,
                "stderr": done.stderr[-300:]}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def classify(outcome: dict[str, Any], baseline: str) -> str:
    """What one flip came to (module docstring)."""
    if outcome["outcome"] != "opened":
        return str(outcome["outcome"])
    if not (outcome["verify"] and outcome["audit"]):
        return "detected"
    return "harmless" if outcome["answers"] == baseline else "undetected"


def run(*, n_flips: int = 200, memories: int = 300, seed: int = 11,
        tmp: Path | None = None) -> dict[str, Any]:
    """Every flip's outcome and the totals."""
    work = Path(tempfile.mkdtemp(prefix="drill-flips-", dir=tmp))
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    try:
        original = work / "original"
        build_store(original, memories)
        base = child(original, "ro")
        if base["outcome"] != "opened" or not (base["verify"] and base["audit"]):
            raise RuntimeError(f"the undamaged store does not verify: {base}")
        data = (original / "data.mdb").read_bytes()
        used = len(data.rstrip(b"\x00"))  # past the last non-zero byte: unused map space
        for n, (offset, mask) in enumerate(flips(len(data), used, n_flips, seed)):
            store = work / "copy"
            shutil.rmtree(store, ignore_errors=True)
            shutil.copytree(original, store)
            with open(store / "data.mdb", "r+b") as f:
                f.seek(offset)
                byte = f.read(1)[0]
                f.seek(offset)
                f.write(bytes([byte ^ mask]))
            mode = "rw" if n % 2 else "ro"
            outcome = child(store, mode)
            results.append({"offset": offset, "mask": mask, "mode": mode, **outcome,
                            "result": classify(outcome, base["answers"])})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    count = {kind: sum(r["result"] == kind for r in results)
             for kind in ("refused", "detected", "harmless", "undetected", "raw_exception",
                          "crash")}
    return {
        "drill": "flips",
        "parameters": {"flips": n_flips, "memories": memories, "seed": seed,
                       "file_size": len(data), "used": used},
        "counts": {
            "runs": len(results),
            "crashes": count["crash"],
            "raw_exceptions": count["raw_exception"],
            "undetected_corruptions": count["undetected"],
            "detected": count["refused"] + count["detected"],
            "refused_at_open_or_read": count["refused"],
            "harmless": count["harmless"],
        },
        "runs": results,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(result: dict[str, Any]) -> str:
    """The counts as a table."""
    return "one byte of data.mdb flipped per copy, opened, read, verified, audited\n" + \
        format_table(["count", "value"], list(result["counts"].items()))


def main(argv: list[str] | None = None) -> int:
    """Run the drill; exit 1 unless crashes, raw exceptions and undetected corruptions are 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flips", type=int, default=200)
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(n_flips=args.flips, memories=args.memories, seed=args.seed, tmp=args.tmp)
    result["machine"] = machine_info()
    publish(report(result), args.out, result)
    counts = result["counts"]
    return 1 if (counts["crashes"] + counts["raw_exceptions"]
                 + counts["undetected_corruptions"]) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Erasure scan: made-up marker words written into every field a caller writes, erased, the
store compacted, and every byte of every file of the store searched for them.

    python -m ops.drills.erasure [--runs 5] [--memories 60] [--seed 9] [--out FILE]

Each run writes memories in three namespaces. Every victim memory gets its own marker word in
its text, a tag, a ref and its session, and a recall names it in the query (kept when the recall
returned it); a recall that finds nothing names one too. Some victims are forgotten first
(reason: a code), the store is consolidated (merges copy text into new memories, which the
cascade must reach) and snapshotted; then one namespace is erased whole (``erase(namespace=)``:
its queries go, those that found nothing included) and, in another, victims one by one
(``erase(memory_id=)``: their text, labels and the queries that returned them). After
``compact`` and close, every file is read.

Counts: ``runs``, ``markers`` (erased marker words looked for), ``hits`` (occurrences found in
the store's files: the target is 0), ``hits_by_field``, ``kept_missing`` (marker words of
memories not erased that are no longer in the store: a scan that cannot see is no scan; target
0), ``verify_failures`` and ``audit_failures`` after the erasures (target 0).
"""

from __future__ import annotations

import argparse
import random
import shutil
import string
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import REPO_ROOT, format_table, machine_info, publish

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "erasure.json"
FIELDS = ("text", "tag", "ref", "session", "query")
PLACES = ("kitchen", "garage", "attic", "harbour", "office", "garden", "studio", "cellar")


def marker(rng: random.Random) -> str:
    """A made-up word no text of the drill holds by chance."""
    return "zq" + "".join(rng.choice(string.ascii_lowercase) for _ in range(9))


def store_bytes(store: Path) -> bytes:
    """Every file under the store directory, concatenated, lowercased."""
    return b"".join(p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()).lower()


def one_run(store: Path, memories: int, rng: random.Random) -> dict[str, Any]:
    """Write, erase, compact, scan; the markers that must be gone and those that must stay."""
    clock = eventmem.ManualClock(start=datetime(2025, 3, 1, tzinfo=UTC))
    gone: dict[str, str] = {}  # marker -> field, of erased memories
    kept: dict[str, str] = {}  # marker -> field, of memories not erased
    whole, single, control = "victims", "mixed", "control"
    with eventmem.open(store, clock=clock, config=eventmem.Config(sync=False)) as mem:
        written: list[tuple[str, str, dict[str, str]]] = []  # (namespace, id, field -> marker)
        for i in range(memories):
            namespace = (whole, single, control)[i % 3]
            words = {field: marker(rng) for field in FIELDS}
            place = rng.choice(PLACES)
            text = (f"the {words['text']} box number {i} sits in the {place} "
                    f"next to the {rng.choice(PLACES)} key")
            result = mem.remember(text, namespace=namespace, tags=(f"t-{words['tag']}",),
                                  refs=(f"https://example.org/{words['ref']}",),
                                  session=f"s-{words['session']}")
            if result.memory_id is None:
                continue
            clock.advance(timedelta(minutes=3))
            found = mem.recall(f"where is the {words['query']} {words['text']} box",
                               namespace=namespace, k=3)
            returned = result.memory_id in {h.memory_id for h in found}
            if not returned and namespace == single:
                del words["query"]  # only a query that returned a memory goes with it
            written.append((namespace, result.memory_id, words))
            if i % 7 == 3:
                mem.forget(result.memory_id, reason="outdated")
        nothing = marker(rng)  # a query that finds nothing: recorded all the same
        mem.recall(f"{nothing} {nothing} quasar", namespace=whole)
        mem.recall(f"{marker(rng)} quasar", namespace=control)
        mem.consolidate(now=clock.now() + timedelta(days=2))
        mem.snapshot()
        victims = {mid for ns, mid, _ in written if ns == single and rng.random() < 0.5}
        erased = set(mem.erase(namespace=whole).memory_ids)
        for mid in sorted(victims):
            erased |= set(mem.erase(memory_id=mid).memory_ids)
        erased |= {m.memory_id for m in mem.memories() if m.status == "erased"}
        gone[nothing] = "query"
        for namespace, mid, words in written:
            target = gone if namespace == whole or mid in erased else kept
            for field, word in words.items():
                target[word] = field
        verify_ok = mem.verify().ok
        audit_ok = mem.audit().ok
        mem.compact()
    everything = store_bytes(store)
    hits: Counter[str] = Counter({field: 0 for field in FIELDS})
    for word, field in gone.items():
        hits[field] += everything.count(word.encode())
    # Labels of kept memories are in the store; their queries too unless a returned victim's.
    kept_missing = sum(1 for word, field in kept.items()
                       if field != "query" and word.encode() not in everything)
    return {"markers": len(gone), "hits": sum(hits.values()), "hits_by_field": dict(hits),
            "kept_markers": len(kept), "kept_missing": kept_missing,
            "verify_ok": verify_ok, "audit_ok": audit_ok, "erased": len(erased)}


def run(*, runs: int = 5, memories: int = 60, seed: int = 9,
        tmp: Path | None = None) -> dict[str, Any]:
    """``runs`` stores written, erased, compacted and scanned; the totals."""
    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="drill-erasure-", dir=tmp))
    started = time.perf_counter()
    results = []
    try:
        for n in range(runs):
            results.append(one_run(work / f"store-{n}", memories, rng))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    by_field: Counter[str] = Counter()
    for r in results:
        by_field.update(r["hits_by_field"])
    return {
        "drill": "erasure",
        "parameters": {"runs": runs, "memories": memories, "seed": seed},
        "counts": {
            "runs": len(results),
            "markers": sum(r["markers"] for r in results),
            "hits": sum(r["hits"] for r in results),
            "kept_missing": sum(r["kept_missing"] for r in results),
            "verify_failures": sum(not r["verify_ok"] for r in results),
            "audit_failures": sum(not r["audit_ok"] for r in results),
        },
        "hits_by_field": {field: by_field[field] for field in FIELDS},
        "runs": results,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(result: dict[str, Any]) -> str:
    """The counts as a table."""
    rows = list(result["counts"].items()) + [
        (f"hits in {field}", n) for field, n in result["hits_by_field"].items()]
    return "marker words erased, the store compacted, every file scanned\n" + format_table(
        ["count", "value"], rows)


def main(argv: list[str] | None = None) -> int:
    """Run the drill; exit 1 unless hits, kept_missing and the failures are all 0."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--memories", type=int, default=60)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(runs=args.runs, memories=args.memories, seed=args.seed, tmp=args.tmp)
    result["machine"] = machine_info()
    publish(report(result), args.out, result)
    counts = result["counts"]
    return 1 if (counts["hits"] + counts["kept_missing"] + counts["verify_failures"]
                 + counts["audit_failures"]) else 0


if __name__ == "__main__":
    sys.exit(main())

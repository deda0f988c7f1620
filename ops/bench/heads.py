"""The log's head hashes on a fixed corpus: proof that a change left every decision as it was.

    python -m ops.bench.heads [--bench DIR] [--out FILE] [--compare FILE]

A refactor that must not change behaviour must leave the log byte-identical. This writes the same
corpus it always writes and prints the head (seq and chain hash) of each store; ``--compare``
checks them against a file an earlier run wrote and exits 1 on any difference.

The corpus is the benchmark data next to the checkout (``../shared/bench``): every mc-dev persona
in its own store (its statements one ``remember`` at a time, with the statement's ``valid_from``
when it names one; its current, past, stable and plan questions as ``recall``; ``consolidate`` at
03:00 UTC every day), and every LoCoMo dev conversation in its own store (one ``remember_many`` per
session at the session's time, then one ``consolidate``). About 6,200 writes, 1,400 recalls and
5,500 maintenance runs, all on a ManualClock: the run is deterministic.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import REPO_ROOT, RESULTS_DIR, progress, publish, read_jsonl

DEFAULT_BENCH = REPO_ROOT.parent / "shared" / "bench"
DEFAULT_OUT = RESULTS_DIR / "heads.json"


def _head(mem: eventmem.Engine) -> list[Any]:
    head = mem.head()
    return [head.seq, head.hash.hex()]


def persona_heads(bench: Path, tmp: Path) -> dict[str, list[Any]]:
    """One store per mc-dev persona: statements, questions and daily maintenance in time order."""
    questions: dict[str, list[dict[str, Any]]] = {}
    for q in read_jsonl(bench / "mc-dev" / "questions.jsonl"):
        if q["type"] != "lost":
            questions.setdefault(q["namespace"], []).append(q)
    heads = {}
    for persona in read_jsonl(bench / "mc-dev" / "scenarios.jsonl"):
        ns = persona["namespace"]
        steps = sorted([(s["at"], 0, s) for s in persona["statements"]]
                       + [(q["at"], 1, q) for q in questions.get(ns, [])],
                       key=lambda step: (step[0], step[1]))
        start = datetime.fromisoformat(steps[0][0])
        clock = eventmem.ManualClock(start=start)
        with eventmem.open(tmp / ns, clock=clock) as mem:
            nightly = (start + timedelta(days=1)).replace(hour=3, minute=0, second=0,
                                                           microsecond=0)
            for at, kind, step in steps:
                when = datetime.fromisoformat(at)
                while nightly <= when:
                    clock.set(nightly)
                    mem.consolidate(now=nightly)
                    nightly += timedelta(days=1)
                clock.set(max(when, clock.now()))
                if kind == 0:
                    valid_from = step.get("valid_from")
                    mem.remember(step["text"], namespace=ns,
                                 valid_from=datetime.fromisoformat(valid_from)
                                 if valid_from else None)
                else:
                    mem.recall(step["question"], namespace=ns, k=10)
            heads[ns] = _head(mem)
        progress(f"{ns}: {heads[ns][0]} events")
    return heads


def conversation_heads(bench: Path, tmp: Path) -> dict[str, list[Any]]:
    """One store per LoCoMo dev conversation: a remember_many per session, then a consolidate."""
    conversations: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for turn in read_jsonl(bench / "locomo-dev" / "turns.jsonl"):
        conversations.setdefault(turn["conv_id"], {}).setdefault(turn["session"], []).append(turn)
    heads = {}
    for conv, sessions in conversations.items():
        first = next(iter(sessions.values()))[0]
        clock = eventmem.ManualClock(
            start=datetime.fromisoformat(first["timestamp"]).replace(tzinfo=UTC))
        with eventmem.open(tmp / conv, clock=clock) as mem:
            for turns in sessions.values():
                at = datetime.fromisoformat(turns[0]["timestamp"]).replace(tzinfo=UTC)
                clock.set(max(clock.now(), at))
                mem.remember_many([f"{t['speaker']}: {t['text']}" for t in turns],
                                  namespace=conv)
            mem.consolidate()
            heads[conv] = _head(mem)
        progress(f"{conv}: {heads[conv][0]} events")
    return heads


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.heads",
                                     description=__doc__.split("\n", 1)[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH,
                        help=f"the shared bench folder (default {DEFAULT_BENCH})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument("--compare", type=Path, default=None,
                        help="an earlier run's JSON: exit 1 unless every head is the same")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="eventmem-heads-"))
    try:
        heads = {**persona_heads(args.bench, tmp), **conversation_heads(args.bench, tmp)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    digest = hashlib.sha256(json.dumps(heads, sort_keys=True).encode()).hexdigest()
    result = {"stores": len(heads), "events": sum(h[0] for h in heads.values()),
              "digest": digest, "heads": heads}
    publish(f"{len(heads)} stores, {result['events']} events; digest of every head: {digest}",
            args.out, result)
    if args.compare is not None:
        before = json.loads(args.compare.read_text(encoding="utf-8"))["heads"]
        changed = sorted(k for k in set(before) | set(heads) if before.get(k) != heads.get(k))
        print("identical to " + str(args.compare) if not changed
              else f"{len(changed)} stores differ: {', '.join(changed)}")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

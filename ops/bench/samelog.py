"""Whether two checkouts write the same log for the same inputs, byte for byte.

    python -m ops.bench.samelog write DIR [--texts 3000] [--batch 200] [--personas N]
    python -m ops.bench.samelog compare DIR_A DIR_B

A change that only makes the write path faster must decide exactly as before. ``write`` feeds fresh
stores, with a ManualClock and the default embedder, (a) the mc-dev personas the way
``ops.bench.mc`` does (one store each: statements one at a time, consolidations on their cadence)
and (b) ``--texts`` texts of ``ops.bench.log.generate_texts`` in ``remember_many`` batches of
``--batch``; then audits every store. Run it once with each checkout on ``PYTHONPATH``, then
``compare`` the two directories: every event of every store's log must be equal, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import lmdb

import eventmem
from eventmem import codec
from ops.bench import log as logbench
from ops.bench import mc

START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
NAMESPACE = "bench"
_PREV = 32  # a log record starts with the chain hash it follows (eventmem.storage.log)


def write(out: Path, *, texts: int, batch: int, personas: int | None,
          data: str | None = None) -> dict[str, dict[str, Any]]:
    """Feed the stores under ``out`` and audit them: what each store's audit found."""
    out.mkdir(parents=True, exist_ok=False)
    audits: dict[str, dict[str, Any]] = {}
    t = time.perf_counter()
    generated = out / "generated"
    generated.mkdir()
    clock = eventmem.ManualClock(start=START)
    with eventmem.open(generated / "store", clock=clock) as mem:
        corpus = logbench.generate_texts(texts)
        for first in range(0, len(corpus), batch):
            mem.remember_many(corpus[first:first + batch], namespace=NAMESPACE)
            clock.advance(timedelta(minutes=7))  # batches at distinct times, as a caller's are
        audits["generated"] = _audit(mem)
    print(f"generated: {texts} texts in {time.perf_counter() - t:.1f} s", file=sys.stderr)

    chosen: list[dict[str, Any]] = []
    questions: dict[str, list[dict[str, Any]]] = {}
    if personas != 0:  # personas=0: the generated texts alone, no mc-dev data needed
        all_personas, questions = mc.load(mc.resolve_data_dir(data))
        chosen = all_personas if personas is None else all_personas[:personas]
    for persona in chosen:
        ns = persona["namespace"]
        where = out / "mc" / ns
        where.mkdir(parents=True)
        t = time.perf_counter()
        mc.run_persona(persona, questions.get(ns, []), embedder=None,
                       cadence=mc.CADENCES["daily"], workdir=where, baselines=False)
        with eventmem.open(where / "store", clock=eventmem.ManualClock(start=START)) as mem:
            audits[ns] = _audit(mem)
        print(f"{ns}: {time.perf_counter() - t:.1f} s", file=sys.stderr)
    (out / "audits.json").write_text(json.dumps(audits, indent=1, sort_keys=True))
    return audits


def _audit(mem: eventmem.Engine) -> dict[str, Any]:
    report = mem.audit()
    return {"ok": report.ok, "summary": str(report)[:2000]}


def records(store: Path) -> Iterator[tuple[bytes, bytes]]:
    """Every (key, event bytes) of a store's log, in order: the record without the chain hash
    it starts with, unpacked (a store of format 3 packs its records, so two formats holding the
    same events compare equal; the chain over packed bytes would not)."""
    env = lmdb.open(str(store), readonly=True, lock=False, max_dbs=8, subdir=True)
    try:
        db = env.open_db(b"log", create=False)
        with env.begin(db=db) as txn:
            yield from ((bytes(k), bytes(codec.unpack(bytes(v)[_PREV:], seq=int.from_bytes(k))))
                        for k, v in txn.cursor())
    finally:
        env.close()


def compare(a: Path, b: Path) -> bool:
    """Print, per store, whether the two logs hold the same records; True when all do."""
    stores_a = sorted(p.parent.relative_to(a) for p in a.rglob("store/data.mdb"))
    stores_b = sorted(p.parent.relative_to(b) for p in b.rglob("store/data.mdb"))
    same = stores_a == stores_b and bool(stores_a)
    if stores_a != stores_b:
        print(f"different stores: {stores_a} vs {stores_b}")
    total = 0
    for rel in stores_a:
        if rel not in stores_b:
            continue
        left, right = list(records(a / rel)), list(records(b / rel))
        total += len(left)
        if left == right:
            continue
        same = False
        first = next((i for i, (x, y) in enumerate(zip(left, right, strict=False)) if x != y),
                     min(len(left), len(right)))
        print(f"{rel}: {len(left)} vs {len(right)} records, first difference at record {first}")
    print(f"{len(stores_a)} stores, {total} records: {'identical' if same else 'DIFFERENT'}")
    return same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="feed fresh stores under DIR and audit them")
    w.add_argument("dir", type=Path)
    w.add_argument("--texts", type=int, default=3000)
    w.add_argument("--batch", type=int, default=200)
    w.add_argument("--personas", type=int, default=None)
    w.add_argument("--data", default=None, help="the mc-dev directory")
    c = sub.add_parser("compare", help="compare the logs of two DIRs written by 'write'")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        audits = write(args.dir, texts=args.texts, batch=args.batch, personas=args.personas,
                       data=args.data)
        failed = [name for name, found in audits.items() if not found["ok"]]
        print(f"{len(audits)} stores audited, {len(failed)} failed: {failed}")
        return 1 if failed else 0
    return 0 if compare(args.a, args.b) else 1


if __name__ == "__main__":
    raise SystemExit(main())

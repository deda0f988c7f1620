"""The dream cycle's speed: one full ``consolidate(now=...)`` over a store of N aged memories.

    python -m ops.bench.consolidate [--n 100000] [--days 90] [--gap-days 20] [--capacity 5500]
                                    [--cache DIR] [--rebuild] [--out FILE] [--tmp DIR]
                                    [--profile DIR]

1. the store (built once, then cached under ``--cache``, default
   ``$TMPDIR/eventmem-bench-consolidate``, keyed by its parameters and the store and projection
   versions): N generated chat-like texts (``ops.bench.log.generate_texts``) remembered one
   ``remember_many`` batch per simulated day over ``--days`` days on a ``ManualClock``, into 10
   namespaces in turn, with explicit kinds, sources, pins, immutables and time bounds as in
   ``ops.bench.lifecycle``; along the way a few touches and bursts of negative feedback. No
   consolidation runs while building. Built with ``sync=False`` (it is a fixture, not a
   measurement); ``--rebuild`` builds it afresh.
2. each run copies the cached store to a temporary directory and opens it with the default
   ``Config`` (the dream cycle on), except ``capacity`` (``--capacity``, default 5,500 live
   memories per namespace, so that the trim has work: about 5,600 are still live by then). A day
   before the cycle, twelve "not useful" feedbacks on each of N/1000 memories stored in the first
   two thirds of the days, so the utility floor has work too.
3. the timed call: ``consolidate(now=...)`` ``--gap-days`` after the last ingest: the lifecycle
   sweep, rehearsal, strategic forgetting (utility floor, redundancy by exact all-pairs cosine,
   capacity), clusters merged into consolidated memories, category summaries; one append.
4. the same call again at the same ``now`` must append nothing (exit 1 otherwise).
5. ``verify()``: the live projections equal a rebuild from the log.

Target: the full cycle over 100k memories in <= 60 s on a 2-core machine.

``--sizes 100k,1m`` measures the dream cycle at scale instead, one namespace of N memories (the
worst case for the search for similar pairs), on the corpus of ``ops.bench.recall``:

1. the pair search alone, on the corpus embedded by the default embedder: the exact all-pairs
   search (only up to ``--exact-max`` rows: it is quadratic) and the pivot-block search the
   cycle uses above ``DreamParams.pairs_exact_max``, timed in the same run; pairs found at the
   cluster (0.75) and redundancy (0.9) cosines, and the blocked search's recall against the
   exact pairs.
2. with ``--full``, a full ``consolidate(now=...)`` over a copy of the store ``ops.bench.recall``
   builds and caches (``--store-cache``, default /tmp/eventmem-bench; a 1M build takes a long
   while), timed, then consolidate again at the same now (must append nothing) and ``audit()``
   when the store is at most ``--audit-max`` memories.

Target: the full cycle over 1M memories in <= 120 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import pstats
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

import eventmem

# The pair search is a policy, not public API; it is timed alone because it is the dream
# cycle's one quadratic step (tests/test_layout.py lists this import as the exception).
import eventmem.policies.dream.cluster as cluster
from ops.bench.common import (
    RESULTS_DIR,
    dir_size,
    engine_versions,
    format_table,
    machine_info,
    peak_rss_mb,
    progress,
    publish,
    verdict,
)
from ops.bench.lifecycle import plan_items
from ops.bench.log import generate_texts

DEFAULT_OUT = RESULTS_DIR / "consolidate.json"
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "eventmem-bench-consolidate"
T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
NAMESPACES = 10
BUILD_VERSION = 2  # bump when the build below changes: cached stores of older builds are ignored

# name -> (the result key it reads, comparison, target, unit)
TARGETS: dict[str, tuple[tuple[str, str], str, float, str]] = {
    "full consolidate (sweep + dream)": (("cycle", "seconds"), "<=", 60.0, "s"),
    "second consolidate, same now": (("second", "appended"), "==", 0, "events"),
}


def build_store(path: Path, n: int, days: int, seed: int, log: Callable[[str], None]
                ) -> dict[str, Any]:
    """Build the aged store at ``path`` (see the module docstring); returns its description."""
    rng = random.Random(seed + 1)
    texts = generate_texts(n, seed)
    batches = plan_items(texts, days, seed)
    clock = eventmem.ManualClock(start=T0)
    config = eventmem.Config(sync=False, dream=eventmem.DreamParams(enabled=False))
    ids: list[str] = []
    early = 0  # memories created in the first two thirds of the days
    started = time.perf_counter()
    with eventmem.open(path, clock=clock, config=config) as engine:
        for day, batch in enumerate(batches):
            now = clock.now()
            items = [dict(item, valid_until=now + timedelta(days=item["valid_until"]))
                     if "valid_until" in item else item for item in batch]
            results = engine.remember_many(items, namespace=f"user-{day % NAMESPACES}")
            ids += [r.memory_id for r in results if r.action == "created" and r.memory_id]
            for _ in range(max(1, n // (300 * len(batches)))):
                engine.touch(ids[rng.randrange(len(ids))])
            for _ in range(max(1, n // (2_000 * len(batches)))):  # a burst: utility 0.14
                target = ids[rng.randrange(len(ids))]
                for _ in range(12):
                    engine.feedback(target, useful=False)
            if day % 10 == 0:
                log(f"  day {day}: {len(ids):,} memories")
            if day < 2 * days // 3:
                early = len(ids)
            clock.advance(DAY)
        last_ingest = clock.now() - DAY
        events = engine.seq
    # Memories the run gives bad feedback just before its cycle: old enough to be unused 30 days.
    pool = rng.sample(ids[:early], min(early, max(3, n // 1_000)))
    return {"n": n, "days": days, "seed": seed, "memories": len(ids), "events": events,
            "negative_pool": pool,
            "last_ingest": last_ingest.isoformat(), "build_seconds": time.perf_counter() - started,
            "build_version": BUILD_VERSION}


def cached_store(cache: Path, n: int, days: int, seed: int, rebuild: bool,
                 log: Callable[[str], None]) -> tuple[Path, dict[str, Any], bool]:
    """The cached store for these parameters (built when missing); whether it was built now."""
    store_format, projection_version = engine_versions()
    key = f"n{n}-d{days}-s{seed}-b{BUILD_VERSION}-f{store_format}-p{projection_version}"
    root = cache / key
    info_path = root / "build.json"
    if info_path.exists() and not rebuild:
        return root / "store", json.loads(info_path.read_text()), False
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    log(f"[build] {n:,} memories over {days} days into {root} (cached for later runs) ...")
    info = build_store(root / "store", n, days, seed, log)
    info_path.write_text(json.dumps(info, indent=2))  # last: a crashed build is not cached
    return root / "store", info, True


def run(n: int = 100_000, *, days: int = 90, gap_days: float = 20.0, capacity: int = 5_500,
        seed: int = 11, cache: Path = DEFAULT_CACHE, rebuild: bool = False,
        workdir: Path | None = None, profile_dir: Path | None = None,
        log: Callable[[str], None] = print) -> dict[str, Any]:
    """Build or reuse the store, consolidate a copy of it twice at one ``now``, verify."""
    if n < 1 or days < 1 or gap_days < 0:
        raise ValueError("n and days must be positive; gap_days >= 0")
    source, built, fresh = cached_store(cache, n, days, seed, rebuild, log)
    config = eventmem.Config(dream=eventmem.DreamParams(capacity=capacity))
    result: dict[str, Any] = {
        "benchmark": "consolidate",
        "machine": machine_info(),
        "params": {"n": n, "days": days, "gap_days": gap_days, "seed": seed,
                   "namespaces": NAMESPACES, "config": msgspec.to_builtins(config),
                   "profiled": profile_dir is not None},
        "store": {k: v for k, v in built.items() if k != "negative_pool"}
        | {"cached": not fresh, "bytes": dir_size(source),
           "negative_pool": len(built["negative_pool"])},
    }
    tmp = Path(tempfile.mkdtemp(prefix="eventmem-bench-consolidate-", dir=workdir))
    try:
        shutil.copytree(source, tmp / "store")
        now = datetime.fromisoformat(built["last_ingest"]) + timedelta(days=gap_days)
        clock = eventmem.ManualClock(start=now - DAY)
        t = time.perf_counter()
        engine = eventmem.open(tmp / "store", clock=clock, config=config)
        result["open_seconds"] = time.perf_counter() - t
        try:
            # A day before the cycle, bad feedback on the pool: the utility floor has work.
            for memory_id in built["negative_pool"]:
                for _ in range(12):
                    engine.feedback(memory_id, useful=False)
            clock.set(now)
            result |= _cycle(engine, now, profile_dir, log)
        finally:
            engine.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result["peak_rss_mb"] = peak_rss_mb()
    result["targets"] = evaluate_targets(result)
    result["all_targets_met"] = all(t["pass"] for t in result["targets"].values())
    return result


def _cycle(engine: Any, now: datetime, profile_dir: Path | None, log: Callable[[str], None]
           ) -> dict[str, Any]:
    by_status_before = engine.stats()["by_status"]
    seq_before = engine.seq
    log(f"[cycle] consolidate at {now.isoformat()} over {engine.stats()['memories']:,} "
        "memories ...")
    gc.collect()
    prof = cProfile.Profile() if profile_dir is not None else None
    cpu, t = time.process_time(), time.perf_counter()
    if prof is not None:
        prof.enable()
    report = engine.consolidate(now=now)
    if prof is not None:
        prof.disable()
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    profile_text = None
    if prof is not None and profile_dir is not None:
        profile_dir.mkdir(parents=True, exist_ok=True)
        prof.dump_stats(str(profile_dir / "consolidate.prof"))
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
        profile_text = buf.getvalue()
        log(profile_text)
    cycle = {
        "seconds": seconds, "cpu_seconds": cpu, "events": len(report.seqs),
        "events_before": seq_before,
        "status_changes": len(report.status_changes), "tier_changes": len(report.tier_changes),
        "invalidated": len(report.invalidated), "rehearsed": len(report.rehearsed),
        "dormant": len(report.dormant),
        "dormant_reasons": dict(sorted(Counter(c.reason for c in report.dormant).items())),
        "consolidated": len(report.consolidated),
        "consolidated_members": sum(len(c.members) for c in report.consolidated),
        "largest_cluster": max((len(c.members) for c in report.consolidated), default=0),
        "summaries": len(report.summarized),
    }
    log("[second] consolidate again at the same now ...")
    t = time.perf_counter()
    seq = engine.seq
    again = engine.consolidate(now=now)
    second = {"seconds": time.perf_counter() - t, "appended": engine.seq - seq,
              "changed": again.changed}
    log("[verify] live projections against a rebuild from the log ...")
    t = time.perf_counter()
    verified = engine.verify()
    return {"by_status_before": by_status_before, "cycle": cycle, "second": second,
            "by_status_after": engine.stats()["by_status"],
            "by_tier_after": engine.stats()["by_tier"],
            "verify": {"ok": verified.ok, "seconds": time.perf_counter() - t,
                       "findings": [str(f) for f in verified.findings][:10]}}


def evaluate_targets(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, ((section, key), op, target, unit) in TARGETS.items():
        value = result[section][key]
        ok = value <= target if op == "<=" else value == target
        out[name] = {"value": value, "op": op, "target": target, "unit": unit, "pass": ok}
    return out


def report(result: dict[str, Any]) -> str:
    """The human-readable table."""
    m, p, c, s = result["machine"], result["params"], result["cycle"], result["second"]
    rows: list[tuple[object, ...]] = [
        ("store (cached)" if result["store"]["cached"] else "store (built now)",
         result["store"]["memories"], "memories", "", ""),
        ("open (from its snapshot)", result["open_seconds"], "s", "", ""),
        ("full consolidate (sweep + dream)", c["seconds"], "s", "<= 60", verdict(result, 0)),
        ("  CPU share of wall time", c["cpu_seconds"] / c["seconds"], "", "", ""),
        ("  status / tier changes, expired", f"{c['status_changes']:,} / {c['tier_changes']:,}"
         f" / {c['invalidated']:,}", "", "", ""),
        ("  rehearsed", c["rehearsed"], "", "", ""),
        ("  made dormant", c["dormant"], "", "", ""),
        ("  consolidated memories (members)",
         f"{c['consolidated']:,} ({c['consolidated_members']:,})", "", "", ""),
        ("  category summaries", c["summaries"], "", "", ""),
        ("  events appended", c["events"], "", "", ""),
        ("second consolidate, same now", s["seconds"], "s", "", ""),
        ("  events appended", s["appended"], "", "0", verdict(result, 1)),
        ("verify (live == rebuild)", result["verify"]["seconds"], "s", "ok",
         "ok" if result["verify"]["ok"] else "FAIL"),
    ]
    head = (f"eventmem consolidate benchmark: N={p['n']:,} memories, {p['namespaces']} "
            f"namespaces, consolidate {p['gap_days']:g} days after the last ingest; "
            f"{m['cpu_count']} CPUs, Python {m['python_version']}, load {m.get('load_average')}"
            + ("  [PROFILED: timings inflated]" if p["profiled"] else ""))
    table = format_table(("measure", "value", "unit", "target", "result"), rows)
    tail = (f"dormant by reason {c['dormant_reasons']}; largest cluster {c['largest_cluster']}\n"
            f"status before {result['by_status_before']}\nstatus after  "
            f"{result['by_status_after']}\ntiers after   {result['by_tier_after']}\n"
            f"store {result['store']['bytes'] / 2**20:.0f} MiB; peak RSS "
            f"{result['peak_rss_mb'] or 0:.0f} MiB")
    return f"{head}\n\n{table}\n\n{tail}"


# -- at scale: one namespace of N memories, the pair search and the full cycle -------------------

SCALE_OUT = RESULTS_DIR / "consolidate-scale.json"
SCALE_TARGET_SECONDS = 120.0  # the full cycle at 1M


def pair_search(n: int, *, exact_max: int, params: Any, seed: int = 7,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Time the exact and the pivot-block pair searches on ``n`` memories of the recall corpus
    (embedded as the store would), and the blocked search's recall against the exact pairs."""
    from ops.bench import recall

    turns, _ = recall.load_locomo()
    texts = recall.generate_corpus(n, seed, turns)
    t = time.perf_counter()
    matrix = eventmem.HashingEmbedder(256).embed(texts)  # the default embedder
    out: dict[str, Any] = {"n": n, "embed_seconds": time.perf_counter() - t}
    # The ids the engine would give do not matter to the measure, only that pivots are chosen
    # by id: stand-ins of the same shape.
    ids = [f"mem_{k:016x}" for k in range(n)]
    threshold = min(params.cluster_similarity, params.redundancy_similarity)
    log(f"[pairs {n:,}] blocked search (every {params.pairs_pivot_every}, probes "
        f"{params.pairs_probes}) ...")
    gc.collect()
    t = time.perf_counter()
    pivots = matrix[cluster.pivot_rows(ids, params.pairs_pivot_every)]
    bi, bj, bs = cluster.blocked_pairs(matrix, threshold, pivots, params.pairs_probes)
    out["blocked"] = {"seconds": time.perf_counter() - t, "pivots": len(pivots),
                      "pairs": len(bi), "pairs_redundant": int((bs > params.redundancy_similarity)
                                                               .sum())}
    if n <= exact_max:
        log(f"[pairs {n:,}] exact all-pairs search ...")
        gc.collect()
        t = time.perf_counter()
        ei, ej, es = cluster.similar_pairs(matrix, threshold)
        seconds = time.perf_counter() - t
        found = np.isin(ei * n + ej, bi * n + bj)
        redundant = es > params.redundancy_similarity
        at_cluster = es > params.cluster_similarity
        out["exact"] = {"seconds": seconds, "pairs": len(ei),
                        "pairs_redundant": int(redundant.sum())}
        out["recall"] = {
            "at_threshold": float(found.mean()) if len(found) else 1.0,
            "above_cluster_similarity": float(found[at_cluster].mean()) if at_cluster.any()
            else 1.0,
            "above_redundancy_similarity": float(found[redundant].mean()) if redundant.any()
            else 1.0,
            "missed": int((~found).sum()),
            "missed_max_cosine": float(es[~found].max()) if (~found).any() else None,
        }
        out["speedup"] = seconds / out["blocked"]["seconds"]
    return out


def full_cycle(n: int, *, store_cache: Path, audit_max: int, seed: int = 7,
               log: Callable[[str], None] = print) -> dict[str, Any]:
    """Consolidate a copy of the recall benchmark's store of ``n`` memories (built when
    missing), again at the same now, then audit (up to ``audit_max`` memories)."""
    from ops.bench import recall

    turns, _ = recall.load_locomo()
    path, built = recall.ensure_store(n, seed, store_cache, turns, log=log)
    tmp = Path(tempfile.mkdtemp(prefix="eventmem-bench-dream-"))
    try:
        shutil.copytree(path, tmp / "store", ignore=shutil.ignore_patterns("bench-ready.json"))
        now = datetime.fromisoformat(built["clock_end"]) + timedelta(days=1)
        clock = eventmem.ManualClock(start=now)
        with eventmem.open(tmp / "store", clock=clock,
                           config=eventmem.Config(sync=False)) as engine:
            log(f"[full {n:,}] consolidate ...")
            out = _cycle(engine, now, None, log)
            if n <= audit_max:
                log(f"[full {n:,}] audit ...")
                t = time.perf_counter()
                audited = engine.audit()
                out["audit"] = {"ok": audited.ok, "seconds": time.perf_counter() - t,
                                "findings": [f.message for f in audited.findings][:10]}
        out["store"] = {"path": str(path), "cached": built.get("cached", False)}
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run_scale(sizes: list[int], *, exact_max: int, full: bool, store_cache: Path,
              audit_max: int, log: Callable[[str], None] = print) -> dict[str, Any]:
    params = eventmem.DreamParams()
    result: dict[str, Any] = {"benchmark": "consolidate-scale", "machine": machine_info(),
                              "params": {"sizes": sizes, "exact_max": exact_max,
                                         "dream": msgspec.to_builtins(params)},
                              "sizes": {}}
    for n in sizes:
        entry = {"pairs": pair_search(n, exact_max=exact_max, params=params, log=log)}
        if full:
            entry["full"] = full_cycle(n, store_cache=store_cache, audit_max=audit_max, log=log)
        result["sizes"][str(n)] = entry
    result["peak_rss_mb"] = peak_rss_mb()
    return result


def scale_report(result: dict[str, Any]) -> str:
    m = result["machine"]
    rows: list[tuple[object, ...]] = []
    for n, entry in result["sizes"].items():
        p = entry["pairs"]
        rows.append((f"{int(n):,}: blocked pair search", p["blocked"]["seconds"], "s",
                     f"{p['blocked']['pairs']:,} pairs ({p['blocked']['pairs_redundant']:,} "
                     f"> redundancy), {p['blocked']['pivots']:,} pivots"))
        if "exact" in p:
            r = p["recall"]
            rows.append((f"{int(n):,}: exact all-pairs search", p["exact"]["seconds"], "s",
                         f"{p['exact']['pairs']:,} pairs; speed-up {p['speedup']:.1f}x"))
            rows.append((f"{int(n):,}: candidate recall vs exact", r["at_threshold"], "",
                         f"> cluster sim {r['above_cluster_similarity']:.4f}, > redundancy "
                         f"{r['above_redundancy_similarity']:.4f}, missed {r['missed']:,} "
                         f"(max cosine {r['missed_max_cosine']})"))
        if "full" in entry:
            f = entry["full"]
            c = f["cycle"]
            ok = "ok" if c["seconds"] <= SCALE_TARGET_SECONDS else "over"
            rows.append((f"{int(n):,}: full consolidate", c["seconds"], "s",
                         f"target 1M <= {SCALE_TARGET_SECONDS:g} s ({ok} at this size); "
                         f"{c['dormant']:,} dormant, {c['consolidated']:,} consolidated "
                         f"({c['consolidated_members']:,} members)"))
            rows.append((f"{int(n):,}: second consolidate appended", f["second"]["appended"],
                         "events", "must be 0"))
            if "audit" in f:
                rows.append((f"{int(n):,}: audit", f["audit"]["seconds"], "s",
                             "ok" if f["audit"]["ok"] else "FINDINGS"))
    head = (f"eventmem dream cycle at scale (one namespace); {m['cpu_count']} CPUs, load "
            f"{m.get('load_average')}")
    return f"{head}\n\n" + format_table(("measure", "value", "unit", "note"), rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.consolidate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="memories in the store")
    parser.add_argument("--days", type=int, default=90, help="days the ingest is spread over")
    parser.add_argument("--gap-days", type=float, default=20.0,
                        help="days from the last ingest to the cycle's now")
    parser.add_argument("--capacity", type=int, default=5_500,
                        help="DreamParams.capacity: live memories per namespace (0: no cap)")
    parser.add_argument("--seed", type=int, default=11, help="seed of the texts and activity")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="where built stores are kept between runs")
    parser.add_argument("--rebuild", action="store_true", help="build the store afresh")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument("--tmp", type=Path, default=None,
                        help="parent directory for the run's copy of the store")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="run the timed consolidate under cProfile; write DIR/*.prof")
    parser.add_argument("--sizes", default=None,
                        help="scale mode: sizes such as 20k,100k,1m (see the docstring)")
    parser.add_argument("--exact-max", type=int, default=50_000,
                        help="scale mode: run the exact pair search up to this many memories")
    parser.add_argument("--full", action="store_true",
                        help="scale mode: also build (or reuse) the store and time consolidate")
    parser.add_argument("--store-cache", type=Path, default=Path("/tmp/eventmem-bench"),
                        help="scale mode: the recall benchmark's store cache")
    parser.add_argument("--audit-max", type=int, default=100_000,
                        help="scale mode: audit after the full cycle up to this many memories")
    args = parser.parse_args(argv)
    if args.sizes:
        from ops.bench.recall import parse_sizes

        scale = run_scale(parse_sizes(args.sizes), exact_max=args.exact_max, full=args.full,
                          store_cache=args.store_cache, audit_max=args.audit_max, log=progress)
        publish(scale_report(scale), SCALE_OUT if args.out == DEFAULT_OUT else args.out, scale)
        fulls = [e["full"] for e in scale["sizes"].values() if "full" in e]
        return 1 if any(f["second"]["appended"] or not f["verify"]["ok"]
                        or not f.get("audit", {"ok": True})["ok"] for f in fulls) else 0
    result = run(args.n, days=args.days, gap_days=args.gap_days, capacity=args.capacity,
                 seed=args.seed, cache=args.cache, rebuild=args.rebuild, workdir=args.tmp,
                 profile_dir=args.profile, log=progress)
    publish(report(result), args.out, result)
    if result["second"]["appended"]:
        print("FAILED: the second consolidate at the same now appended events", file=sys.stderr)
        return 1
    if not result["verify"]["ok"]:
        print("FAILED: verify found the live projections differ from the log", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

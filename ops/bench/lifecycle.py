"""Maintenance speed: one lifecycle sweep (``consolidate``) over a store of N aged memories.

    python -m ops.bench.lifecycle [--n 100000] [--days 90] [--gap-days 60] [--out FILE]
                                  [--tmp DIR] [--profile DIR]

The store is built on a ``ManualClock``, so its contents are the same on every run:

1. ingest: N generated chat-like texts (``ops.bench.log.generate_texts``), one ``remember_many``
   batch per simulated day over ``--days`` days (10 namespaces in turn), each item with an explicit
   ``kind`` (all eight, weighted), about 15% from source ``extraction`` (they fade 3x faster), a
   few pinned or immutable, and a third of the plans time-bounded (``valid_until`` 3-20 days on).
2. activity on the way: every day a few ``touch``es (half of them on a small "favourite" pool, so
   some memories reach the 3 accesses of promotion), ``feedback``s (useful or not), ``recall``s,
   ``pin``s and ``forget``s; a maintenance sweep every ``--sweep-every`` days (timed, not targets).
3. the sweep: ``--gap-days`` after the last ingest (a burst of negative feedback on a few
   long-lived memories shortly before, so demotion to dormant happens too), ``consolidate(now=...)``
   is timed, with the clock moved to that ``now``. A snapshot is written just before, so the timed
   call does not include an automatic snapshot.
4. the same sweep again at the same ``now``: it must change nothing (no event appended, an empty
   report); the run fails (exit 1) if it does.
5. ``verify()``: the live projections, after all of it, equal a rebuild from the log.

Target: the sweep at the new ``now`` over 100k memories in <= 2 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import math
import pstats
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

import eventmem
from ops.bench.common import (
    RESULTS_DIR,
    dir_size,
    format_table,
    machine_info,
    peak_rss_mb,
    progress,
    publish,
    verdict,
)
from ops.bench.log import generate_texts

DEFAULT_OUT = RESULTS_DIR / "lifecycle.json"
T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
NAMESPACES = 10  # day d's batch goes to namespace "user-{d % 10}"

# Kinds with their share of the corpus (the eight of ARCHITECTURE.md section 9).
KIND_WEIGHTS: dict[str, float] = {
    "context": 0.25, "event": 0.15, "activity": 0.12, "plan": 0.10, "ephemeral": 0.10,
    "preference": 0.11, "relationship": 0.09, "identity": 0.08,
}
EXTRACTION_SHARE = 0.15
PINNED_SHARE = 0.005
IMMUTABLE_SHARE = 0.003
TIME_BOUNDED_PLAN_SHARE = 0.33
LONG_LIVED = ("identity", "preference", "relationship")

# name -> (the result key it reads, comparison, target, unit)
TARGETS: dict[str, tuple[tuple[str, str], str, float, str]] = {
    "consolidate at a new now": (("sweep", "seconds"), "<=", 2.0, "s"),
    "second consolidate, same now": (("second_sweep", "changes_and_events"), "==", 0,
                                     "changes + events"),
}


@contextmanager
def _timed(phases: dict[str, float], cpu: dict[str, float], name: str,
           profile_dir: Path | None = None, reports: dict[str, str] | None = None
           ) -> Iterator[None]:
    """Wall and process CPU time of a block, under cProfile when ``profile_dir`` is given."""
    gc.collect()
    prof = cProfile.Profile() if profile_dir is not None else None
    c, t = time.process_time(), time.perf_counter()
    if prof is not None:
        prof.enable()
    try:
        yield
    finally:
        if prof is not None:
            prof.disable()
        phases[name] = time.perf_counter() - t
        cpu[name] = time.process_time() - c
        if prof is not None and profile_dir is not None and reports is not None:
            profile_dir.mkdir(parents=True, exist_ok=True)
            prof.dump_stats(str(profile_dir / f"{name}.prof"))
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
            reports[name] = buf.getvalue()


def plan_items(texts: list[str], days: int, seed: int) -> list[list[dict[str, Any]]]:
    """The items of each day's batch: kind, source, pins, immutables, valid_until (as offsets
    from the batch time in days, resolved when the batch is written)."""
    rng = random.Random(seed)
    kinds, weights = list(KIND_WEIGHTS), list(KIND_WEIGHTS.values())
    per_day = math.ceil(len(texts) / days)
    batches: list[list[dict[str, Any]]] = []
    for lo in range(0, len(texts), per_day):
        batch = []
        for text in texts[lo:lo + per_day]:
            kind = rng.choices(kinds, weights)[0]
            item: dict[str, Any] = {"text": text, "kind": kind}
            if rng.random() < EXTRACTION_SHARE:
                item["source"] = "extraction"
            roll = rng.random()
            if roll < PINNED_SHARE:
                item["pinned"] = True
            elif roll < PINNED_SHARE + IMMUTABLE_SHARE:
                item["immutable"] = True
            if kind == "plan" and rng.random() < TIME_BOUNDED_PLAN_SHARE:
                item["valid_until"] = rng.randint(3, 20)  # days after ingest
            batch.append(item)
        batches.append(batch)
    return batches


def _summary_of_changes(report: Any) -> dict[str, Any]:
    transitions = Counter(f"{c.from_status}->{c.to_status}" for c in report.status_changes)
    reasons = Counter(c.reason for c in report.status_changes)
    tiers = Counter(f"{c.from_tier}->{c.to_tier}" for c in report.tier_changes)
    tier_reasons = Counter(c.reason for c in report.tier_changes)
    return {
        "status_changes": len(report.status_changes),
        "tier_changes": len(report.tier_changes),
        "invalidated": len(report.invalidated),
        "changes": len(report.status_changes) + len(report.tier_changes)
        + len(report.invalidated),
        "events": len(report.seqs),
        "transitions": dict(sorted(transitions.items())),
        "reasons": dict(sorted(reasons.items())),
        "tier_transitions": dict(sorted(tiers.items())),
        "tier_reasons": dict(sorted(tier_reasons.items())),
    }


def run(n: int = 100_000, *, days: int = 90, gap_days: float = 60.0, sweep_every: int = 30,
        seed: int = 11, workdir: Path | None = None, profile_dir: Path | None = None,
        log: Callable[[str], None] = print) -> dict[str, Any]:
    """Build the store, sweep it twice at a new ``now`` and return every figure."""
    if n < 1 or days < 1 or gap_days < 0 or sweep_every < 0:
        raise ValueError("n and days must be positive; gap_days and sweep_every >= 0")
    rng = random.Random(seed + 1)
    texts = generate_texts(n, seed)
    batches = plan_items(texts, days, seed)
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    reports: dict[str, str] = {}
    # The sweep alone: the dream cycle that consolidate also runs has its own benchmark
    # (ops.bench.consolidate), and would add memories this one counts.
    config = eventmem.Config(dream=eventmem.DreamParams(enabled=False))
    # A day's share of the activity (at least one of each, so a small run still exercises it).
    touches_per_day = max(1, n // (300 * len(batches)))
    feedbacks_per_day = max(1, n // (500 * len(batches)))
    recalls_per_day = max(1, n // (1000 * len(batches)))
    pins_per_day = max(3, n / 2000) / len(batches)  # fractional: an expected count per day
    forgets_per_day = max(1, n // (500 * len(batches)))
    result: dict[str, Any] = {
        "benchmark": "lifecycle",
        "machine": machine_info(),
        "params": {
            "n": n, "days": days, "gap_days": gap_days, "sweep_every": sweep_every,
            "seed": seed, "namespaces": NAMESPACES, "kind_weights": KIND_WEIGHTS,
            "extraction_share": EXTRACTION_SHARE, "pinned_share": PINNED_SHARE,
            "immutable_share": IMMUTABLE_SHARE,
            "time_bounded_plan_share": TIME_BOUNDED_PLAN_SHARE,
            "per_day": {"touches": touches_per_day, "feedbacks": feedbacks_per_day,
                        "recalls": recalls_per_day, "pins": pins_per_day,
                        "forgets": forgets_per_day},
            "config": msgspec.to_builtins(config),
            "profiled": profile_dir is not None,
        },
    }
    tmp = Path(tempfile.mkdtemp(prefix="eventmem-bench-lifecycle-", dir=workdir))
    try:
        clock = eventmem.ManualClock(start=T0)
        engine = eventmem.open(tmp / "store", clock=clock, config=config)
        try:
            result |= _build_and_sweep(engine, clock, batches, texts, rng, gap_days, sweep_every,
                                       (touches_per_day, feedbacks_per_day, recalls_per_day,
                                        pins_per_day, forgets_per_day),
                                       wall, cpu, profile_dir, reports, log)
            result["store_bytes"] = dir_size(tmp / "store")
        finally:
            engine.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for section in ("sweep", "second_sweep", "verify"):
        result[section]["cpu_seconds"] = cpu[section]
    result["peak_rss_mb"] = peak_rss_mb()
    result["targets"] = evaluate_targets(result)
    result["all_targets_met"] = all(t["pass"] for t in result["targets"].values())
    if reports:
        result["profile"] = {"dir": str(profile_dir), "phases": sorted(reports)}
        for name, text in reports.items():
            log(f"\n== cProfile: {name} (top by cumulative time) ==\n{text}")
    return result


def _build_and_sweep(
    engine: Any, clock: eventmem.ManualClock, batches: list[list[dict[str, Any]]],
    texts: list[str], rng: random.Random, gap_days: float, sweep_every: int,
    per_day: tuple[int, int, int, float, int], wall: dict[str, float], cpu: dict[str, float],
    profile_dir: Path | None, reports: dict[str, str], log: Callable[[str], None],
) -> dict[str, Any]:
    touches_pd, feedbacks_pd, recalls_pd, pins_pd, forgets_pd = per_day
    n = len(texts)
    log(f"[ingest] {n:,} memories over {len(batches)} days ...")
    ids: list[str] = []
    long_lived: list[str] = []
    favourites: list[str] = []
    kinds: Counter[str] = Counter()
    sources: Counter[str] = Counter()
    actions: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    ingest_seconds = 0.0
    warm_sweeps: list[dict[str, Any]] = []
    gc.collect()
    build_cpu, build_start = time.process_time(), time.perf_counter()
    for day, batch in enumerate(batches):
        now = clock.now()
        items = []
        for item in batch:
            item = dict(item)
            if "valid_until" in item:
                item["valid_until"] = now + timedelta(days=item["valid_until"])
            items.append(item)
            kinds[item["kind"]] += 1
            sources[item.get("source", "user")] += 1
        t = time.perf_counter()
        results = engine.remember_many(items, namespace=f"user-{day % NAMESPACES}")
        ingest_seconds += time.perf_counter() - t
        for item, r in zip(items, results, strict=True):
            actions[r.action] += 1
            # A supersession, merge or update makes a memory too (the new version).
            if r.action in ("created", "superseded", "merged", "updated") \
                    and r.memory_id is not None:
                ids.append(r.memory_id)
                if item["kind"] in LONG_LIVED and item.get("source", "user") == "user" \
                        and not item.get("pinned") and not item.get("immutable"):
                    long_lived.append(r.memory_id)
        if len(favourites) < max(3, n // 1000) and ids:
            favourites.append(ids[rng.randrange(len(ids))])
        _daily_activity(engine, rng, ids, favourites, texts, day,
                        (touches_pd, feedbacks_pd, recalls_pd, pins_pd, forgets_pd), counts)
        if sweep_every and day and day % sweep_every == 0:
            t = time.perf_counter()
            report = engine.consolidate(now=clock.now())
            seconds = time.perf_counter() - t
            warm_sweeps.append({"day": day, "seconds": seconds} | _summary_of_changes(report))
            log(f"  sweep at day {day}: {seconds:.3f} s, "
                f"{len(report.status_changes):,} status / {len(report.tier_changes):,} tier "
                f"changes")
        clock.advance(DAY)
    build_seconds = time.perf_counter() - build_start
    build_cpu = time.process_time() - build_cpu
    last_ingest = clock.now() - DAY

    # Negative feedback shortly before the sweep on a few long-lived, idle memories: utility falls
    # under the demotion threshold (it drifts back toward 0.5 by 1%/day, so it has to be recent).
    sweep_now = last_ingest + timedelta(days=gap_days)
    clock.set(max(clock.now(), sweep_now - timedelta(days=2)))
    demote_pool = rng.sample(long_lived, min(len(long_lived), max(2, n // 5000)))
    for memory_id in demote_pool:
        for _ in range(15):
            engine.feedback(memory_id, useful=False)
            counts["feedbacks"] += 1
    clock.set(max(clock.now(), sweep_now))

    by_status_before = engine.stats()["by_status"]
    seq_before = engine.seq
    engine.snapshot()  # so the timed sweep does not include an automatic snapshot
    snapshots_before = engine.store.snapshot_seqs()
    log(f"[sweep] consolidate at last ingest + {gap_days:g} days over {n:,} memories ...")
    with _timed(wall, cpu, "sweep", profile_dir, reports):
        first = engine.consolidate(now=sweep_now)
    sweep = {"seconds": wall["sweep"], "now": sweep_now.isoformat(),
             "memories": len(ids), "events_before": seq_before,
             "snapshot_during_sweep": engine.store.snapshot_seqs() != snapshots_before}
    sweep |= _summary_of_changes(first)
    seq_after_first = engine.seq

    log("[second sweep] consolidate again at the same now ...")
    with _timed(wall, cpu, "second_sweep", profile_dir, reports):
        second = engine.consolidate(now=sweep_now)
    second_sweep = {"seconds": wall["second_sweep"], "appended": engine.seq - seq_after_first}
    second_sweep |= _summary_of_changes(second)
    # the figure that must be 0: what it changed plus what it appended
    second_sweep["changes_and_events"] = second_sweep["changes"] + second_sweep["appended"]
    # A diagnostic for a known bug: a status change in the second sweep on a memory the first
    # sweep promoted means the lifecycle was decided on the pre-promotion decay rate.
    promoted = {c.memory_id for c in first.tier_changes if c.to_tier == "semantic"}
    second_sweep["status_changes_on_promoted"] = sum(
        c.memory_id in promoted for c in second.status_changes)

    log("[verify] live projections against a rebuild from the log ...")
    with _timed(wall, cpu, "verify"):
        verified = engine.verify()
    return {
        "ingest": {
            # What the store holds: more than the items when a compound statement was split.
            "memories": sum(by_status_before.values()),
            "items": n,
            "days": len(batches),
            "batch": len(batches[0]),
            "seconds": ingest_seconds,
            "memories_per_s": n / ingest_seconds if ingest_seconds else None,
            # the whole build: ingest, the daily activity and the warm sweeps
            "build_seconds": build_seconds,
            "build_cpu_seconds": build_cpu,
            "first_at": T0.isoformat(),
            "last_at": last_ingest.isoformat(),
            "actions": dict(sorted(actions.items())),
            "kinds": dict(sorted(kinds.items())),
            "sources": dict(sorted(sources.items())),
        },
        "activity": dict(sorted(counts.items())) | {"favourites": len(favourites),
                                                     "demote_pool": len(demote_pool)},
        "warm_sweeps": warm_sweeps,
        "by_status_before": by_status_before,
        "sweep": sweep,
        "by_status_after": engine.stats()["by_status"],
        "by_tier_after": dict(sorted(Counter(m.tier for m in engine.memories()).items())),
        "second_sweep": second_sweep,
        "verify": {"ok": verified.ok, "seconds": wall["verify"],
                   "findings": [str(f) for f in verified.findings][:10]},
        "events": engine.seq,
    }


def _daily_activity(engine: Any, rng: random.Random, ids: list[str], favourites: list[str],
                    texts: list[str], day: int, per_day: tuple[int, int, int, float, int],
                    counts: Counter[str]) -> None:
    """The day's touches, feedbacks, recalls, pins and forgets (each a durable call)."""
    touches, feedbacks, recalls, pins, forgets = per_day
    for i in range(touches):
        pool = favourites if i % 2 == 0 and favourites else ids
        engine.touch(pool[rng.randrange(len(pool))])
        counts["touches"] += 1
    for _ in range(feedbacks):
        engine.feedback(ids[rng.randrange(len(ids))], useful=rng.random() < 0.6)
        counts["feedbacks"] += 1
    for _ in range(recalls):
        words = texts[rng.randrange(len(texts))].split()
        query = " ".join(words[len(words) // 3: len(words) // 3 + 4]) or words[0]
        engine.recall(query, namespace=f"user-{rng.randrange(NAMESPACES)}", k=5)
        counts["recalls"] += 1
    for _ in range(int(pins) + (rng.random() < pins % 1)):
        engine.pin(ids[rng.randrange(len(ids))])
        counts["pins"] += 1
    for _ in range(forgets):
        engine.forget(ids[rng.randrange(len(ids))])
        counts["forgets"] += 1


def evaluate_targets(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, ((section, key), op, target, unit) in TARGETS.items():
        value = result[section][key]
        if op == ">=":
            ok = value >= target
        elif op == "<=":
            ok = value <= target
        else:
            ok = value == target
        out[name] = {"value": value, "op": op, "target": target, "unit": unit, "pass": ok}
    return out


def report(result: dict[str, Any]) -> str:
    """The human-readable table."""
    m, p = result["machine"], result["params"]
    ing, sw, sw2, ver = (result[k] for k in ("ingest", "sweep", "second_sweep", "verify"))
    warm = result["warm_sweeps"]
    rows: list[tuple[object, ...]] = [
        ("ingest (remember_many, one batch/day)", ing["memories_per_s"], "mem/s", "", ""),
        ("  whole build (+activity, warm sweeps)", ing["build_seconds"], "s", "", ""),
        ("warm sweeps during ingest (max)", max((w["seconds"] for w in warm), default=None),
         "s", "", ""),
        ("consolidate at a new now", sw["seconds"], "s", "<= 2", verdict(result, 0)),
        ("  CPU share of wall time", sw["cpu_seconds"] / sw["seconds"], "", "", ""),
        ("  status changes", sw["status_changes"], "", "", ""),
        ("  tier changes", sw["tier_changes"], "", "", ""),
        ("  invalidated (expired)", sw["invalidated"], "", "", ""),
        ("  events appended", sw["events"], "", "", ""),
        ("second consolidate, same now", sw2["seconds"], "s", "", ""),
        ("  changes / events appended", f"{sw2['changes']} / {sw2['appended']}", "", "0",
         verdict(result, 1)),
        ("verify (live == rebuild)", ver["seconds"], "s", "ok", "ok" if ver["ok"] else "FAIL"),
    ]
    head = (f"eventmem lifecycle benchmark: N={p['n']:,} memories over {ing['days']} days, sweep "
            f"{p['gap_days']:g} days after the last ingest; {m['cpu_count']} CPUs, Python "
            f"{m['python_version']}, load {m.get('load_average')}"
            + ("  [PROFILED: timings inflated]" if p["profiled"] else ""))
    table = format_table(("measure", "value", "unit", "target", "result"), rows)
    tail = (f"transitions {sw['transitions']}\ntier transitions {sw['tier_transitions']}\n"
            f"status before {result['by_status_before']}\nstatus after  "
            f"{result['by_status_after']}\ntiers after   {result['by_tier_after']}\n"
            f"activity {result['activity']}; events {result['events']:,}; store "
            f"{result['store_bytes'] / 2**20:.0f} MiB; peak RSS {result['peak_rss_mb'] or 0:.0f} "
            f"MiB; warm sweeps at days {[w['day'] for w in warm]}: "
            f"{[round(w['seconds'], 3) for w in warm]} s")
    return f"{head}\n\n{table}\n\n{tail}"



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.lifecycle", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000, help="memories in the store")
    parser.add_argument("--days", type=int, default=90, help="days the ingest is spread over")
    parser.add_argument("--gap-days", type=float, default=60.0,
                        help="days from the last ingest to the timed sweep's now")
    parser.add_argument("--sweep-every", type=int, default=30,
                        help="days between the maintenance sweeps during ingest (0: none)")
    parser.add_argument("--seed", type=int, default=11, help="seed of the texts and activity")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    parser.add_argument("--tmp", type=Path, default=None,
                        help="parent directory for the temporary store (default: system temp)")
    parser.add_argument("--profile", type=Path, default=None, metavar="DIR",
                        help="run the two timed sweeps under cProfile; write DIR/<phase>.prof")
    args = parser.parse_args(argv)
    result = run(args.n, days=args.days, gap_days=args.gap_days, sweep_every=args.sweep_every,
                 seed=args.seed, workdir=args.tmp, profile_dir=args.profile,
                 log=progress)
    publish(report(result), args.out, result)
    if result["second_sweep"]["changes_and_events"]:
        print("FAILED: the second consolidate at the same now changed something", file=sys.stderr)
        return 1
    if not result["verify"]["ok"]:
        print("FAILED: verify found the live projections differ from the log", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

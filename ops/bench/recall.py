"""Read speed at scale: ``recall(k=10)`` latency over 10k, 100k and 1M memories, ANN and exact.

    python -m ops.bench.recall [--sizes 10k,100k,1m] [--queries 300] [--cache DIR] [--out FILE]
                               [--epsilon E] [--rebuild]

For each size:

1. the store: N memories in one namespace (the worst case for one search), half sentences from
   ``ops.bench.log.generate_texts``, half LoCoMo dialogue turns spliced two by two at a word
   (real conversational vocabulary, a natural long tail of rare words), built with
   ``remember_many`` in batches of 10,000 and ``Config(sync=False)``. Built stores are kept under
   ``--cache`` (default /tmp/eventmem-bench) and reused while the corpus version, size and seed
   match; ``--rebuild`` starts afresh. 1M takes several minutes to build.
2. the ANN indexes: ``consolidate`` (maintenance) builds one per run of the engine's layout
   (``projections.ann``: 100k at 100k rows, four of 100k-400k at 1M) and snapshots them; timed,
   when there was anything to build.
3. the measure: reopen (timed, like a fresh process), one cold recall (loads the indexes), then
   each query once per mode, ``k=10``, recording off (a recall that records appends one event;
   that cost is the log's, measured by ``ops.bench.log``). Modes: ``ann`` (the vector channel asks
   the ANN indexes) and ``exact``; the vector and BM25 channels are also timed alone.
4. ANN quality: the vector channel's top 10 (and top 50, what recall fuses) with ANN against exact
   search, and recall's own top 10 in both modes.

Queries: LoCoMo questions and questions about the generated sentences (``--queries`` in all).
Targets (2-core machine): 100k p50 <= 5 ms and p99 <= 20 ms; 1M p50 <= 20 ms; ANN recall@10
against exact >= 0.95.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import random
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

import eventmem
from ops.bench.common import (
    REPO_ROOT,
    RESULTS_DIR,
    dir_size,
    engine_versions,
    format_table,
    machine_info,
    peak_rss_mb,
    percentile,
    progress,
    publish,
)
from ops.bench.log import generate_texts

DEFAULT_OUT = RESULTS_DIR / "recall.json"
DEFAULT_CACHE = Path("/tmp/eventmem-bench")
LOCOMO = REPO_ROOT.parent / "shared" / "bench" / "locomo-dev"
CORPUS_VERSION = 1  # bump when the generated corpus changes: cached stores are then rebuilt
NAMESPACE = "bench"
BATCH = 10_000
K = 10
T0 = datetime(2025, 1, 1, 9, 0, tzinfo=UTC)
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}

# (size, result key, comparison, target); checked only for the sizes that ran.
TARGETS: dict[str, tuple[int, str, str, float]] = {
    "100k recall p50 (ann)": (100_000, "p50_ms", "<=", 5.0),
    "100k recall p99 (ann)": (100_000, "p99_ms", "<=", 20.0),
    "1M recall p50 (ann)": (1_000_000, "p50_ms", "<=", 20.0),
}
ANN_RECALL_TARGET = 0.95

# -- the corpus ---------------------------------------------------------------------------------


def load_locomo(data: Path = LOCOMO) -> tuple[list[tuple[str, str]], list[str]]:
    """(speaker, text) of every LoCoMo turn, and every question, in file order; empty when the
    data is not there (the corpus is then all generated sentences)."""
    turns, questions = [], []
    if (data / "turns.jsonl").is_file():
        with open(data / "turns.jsonl", encoding="utf-8") as f:
            turns = [(row["speaker"], row["text"]) for row in map(json.loads, f)
                     if row.get("text")]
    if (data / "queries.jsonl").is_file():
        with open(data / "queries.jsonl", encoding="utf-8") as f:
            questions = [row["question"] for row in map(json.loads, f) if row.get("question")]
    return turns, questions


def generate_corpus(n: int, seed: int, turns: list[tuple[str, str]]) -> list[str]:
    """``n`` texts, a pure function of the arguments: generated sentences and (when there are
    turns) LoCoMo turns spliced two by two, "speaker: first words of one + rest of another"."""
    rng = random.Random(seed)
    spliced = n // 2 if turns else 0
    texts = generate_texts(n - spliced, seed)
    split = [text.split() for _, text in turns]
    for _ in range(spliced):
        a, b = rng.randrange(len(turns)), rng.randrange(len(turns))
        head, tail = split[a], split[b]
        cut_a = rng.randint(1, max(1, len(head) - 1))
        cut_b = rng.randint(0, max(0, len(tail) - 1))
        words = head[:cut_a] + tail[cut_b:]
        texts.append(f"{turns[a][0]}: {' '.join(words)}")
    rng.shuffle(texts)
    return texts


_Q_NAMES = ("Alice", "Bob", "Carol", "Emma", "Grace", "Hiro", "Lena", "Marco", "Nadia", "Priya",
            "Rosa", "Sven", "Tara", "Vera", "Zoe", "Maya", "Leo", "Sofia", "Noah", "Diego")
_Q_CITIES = ("Berlin", "Lisbon", "Toronto", "Osaka", "Oslo", "Seoul", "Prague", "Austin",
             "Kyoto", "Dublin", "Seattle", "Porto")
_Q_TEMPLATES = (
    "Where did {name}'s sister move?", "What does {name} prefer to eat?",
    "When is {name}'s birthday?", "Who went hiking with me last weekend?",
    "Where does {name} work now?", "What book did I finish on the train to {city}?",
    "What is my dog called?", "Who is planning a trip to {city}?",
    "How long have I been doing yoga?", "What does {name} want to study?",
    "Which concert did I go to in {city}?", "What am I allergic to?",
    "Why was I nervous about the interview?", "Who did I meet at the library?",
    "What did I cook for my mom?", "Is {name} running a marathon in {city}?",
)


def generate_queries(count: int, seed: int, questions: list[str]) -> list[str]:
    """``count`` queries: two thirds LoCoMo questions (when there are any), the rest questions
    about the generated sentences; a pure function of the arguments."""
    rng = random.Random(seed)
    real = rng.sample(questions, min(len(questions), count * 2 // 3)) if questions else []
    made = [rng.choice(_Q_TEMPLATES).format(name=rng.choice(_Q_NAMES), city=rng.choice(_Q_CITIES))
            for _ in range(count - len(real))]
    return real + made


# -- building the stores ------------------------------------------------------------------------


def store_key(n: int, seed: int, corpus: int | str = CORPUS_VERSION, batch: int = BATCH) -> str:
    spec = json.dumps({"corpus": corpus, "n": n, "seed": seed, "batch": batch})
    return hashlib.blake2b(spec.encode(), digest_size=6).hexdigest()


def ensure_store(n: int, seed: int, cache: Path, turns: list[tuple[str, str]], *,
                 rebuild: bool = False, log: Callable[[str], None],
                 corpus: tuple[str, int | str, Callable[[int, int], list[str]]] | None = None,
                 batch: int = BATCH) -> tuple[Path, dict[str, Any]]:
    """The store of ``n`` memories, from the cache when a complete one is there; returns its
    path and how it was built (read back from the cache).

    ``corpus``: (name, version, texts of (n, seed)) of another corpus than this benchmark's
    (``ops.bench.scale`` builds its low-selectivity store so); its stores are cached apart.
    ``batch``: memories per ``remember_many`` (part of the cache key)."""
    name, version, texts_of = corpus or (
        "recall", CORPUS_VERSION, lambda n, seed: generate_corpus(n, seed, turns))
    # (a store written in another format is built anew: its disk figures would be another's)
    store_format, _ = engine_versions()
    path = cache / f"{name}-{n}-f{store_format}-{store_key(n, seed, version, batch)}"
    ready = path / "bench-ready.json"
    if ready.is_file() and not rebuild:
        return path, json.loads(ready.read_text()) | {"cached": True}
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    texts = texts_of(n, seed)
    clock = eventmem.ManualClock(start=T0)
    actions: dict[str, int] = {}
    start = time.perf_counter()
    with eventmem.open(path, clock=clock, config=eventmem.Config(sync=False)) as engine:
        for lo in range(0, n, batch):
            for r in engine.remember_many(texts[lo:lo + batch], namespace=NAMESPACE):
                actions[r.action] = actions.get(r.action, 0) + 1
            clock.advance(timedelta(minutes=1))
            if (lo + batch) % max(n // 10, batch) < batch:
                log(f"  {lo + batch:,} / {n:,} memories, {time.perf_counter() - start:.0f} s")
    built = {"n": n, "seed": seed, "corpus": name, "corpus_version": version, "batch": batch,
             "actions": actions,
             "build_seconds": time.perf_counter() - start, "clock_end": clock.now().isoformat(),
             "mean_chars": sum(map(len, texts)) / max(len(texts), 1), "examples": texts[:4]}
    ready.write_text(json.dumps(built, indent=2))
    return path, built | {"cached": False}


def build_indexes(path: Path, clock_end: str) -> dict[str, Any]:
    """Run maintenance (which builds the missing ANN indexes and snapshots them), timed.

    The dream cycle is off here: it is measured by ``ops.bench.consolidate``, and its search
    for similar pairs is exact (quadratic: most of an hour at 1M on 2 cores)."""
    clock = eventmem.ManualClock(start=datetime.fromisoformat(clock_end))
    start = time.perf_counter()
    config = eventmem.Config(sync=False, dream=eventmem.DreamParams(enabled=False))
    with eventmem.open(path, clock=clock, config=config) as engine:
        before = engine_vectors(engine).ann_status(NAMESPACE)
        engine.consolidate()
        after = engine_vectors(engine).ann_status(NAMESPACE)
    return {"seconds": time.perf_counter() - start, "before": before, "after": after}


def engine_vectors(engine: eventmem.Engine) -> Any:
    """The vector projection behind the engine's read path (a private attribute: the benchmark
    needs to choose the search mode, which the public API does not expose)."""
    return engine._views.vectors


def ann_options(epsilon: float | None) -> dict[str, float]:
    """The vector search's ANN breadth: ``--epsilon`` when given, else (empty) the one the read
    path uses."""
    return {} if epsilon is None else {"epsilon": epsilon}


@contextmanager
def vector_mode(engine: eventmem.Engine, *, exact: bool,
                epsilon: float | None = None) -> Iterator[None]:
    """Make the read path's vector channel search exactly or through the ANN indexes, whatever
    retrieval asks for (``epsilon``: see :func:`ann_options`)."""
    vectors = engine_vectors(engine)
    search = vectors.search
    options = ann_options(epsilon)

    def forced(namespace: str, query: np.ndarray, n: int, allowed: Any = None,
               **_: Any) -> list[tuple[str, float]]:
        return search(namespace, query, n, allowed, exact=exact, **options)

    vectors.search = forced
    try:
        yield
    finally:
        del vectors.search


# -- measuring ----------------------------------------------------------------------------------


def _timings(seconds: list[float]) -> dict[str, float]:
    ms = [s * 1e3 for s in seconds]
    return {"p50_ms": percentile(ms, 50), "p90_ms": percentile(ms, 90),
            "p99_ms": percentile(ms, 99), "mean_ms": sum(ms) / len(ms), "max_ms": max(ms)}


def _overlap(a: list[str], b: list[str]) -> float:
    return len(set(a) & set(b)) / len(b) if b else 1.0


def measure(path: Path, queries: list[str], *, ann: bool, epsilon: float | None
            ) -> dict[str, Any]:
    """Open the store, then time recall(k=10) per mode and each channel alone."""
    gc.collect()
    start = time.perf_counter()
    engine = eventmem.open(path, config=eventmem.Config(sync=False, record_recalls=False))
    out: dict[str, Any] = {"open_seconds": time.perf_counter() - start,
                           "opened_from": engine.opened_from}
    try:
        vectors, text = engine_vectors(engine), engine._views.text
        out["ann_status"] = vectors.ann_status(NAMESPACE)
        embedded = engine.embedder.embed(queries)
        modes = ("ann", "exact") if ann else ("exact",)
        start = time.perf_counter()
        with vector_mode(engine, exact=not ann, epsilon=epsilon):
            engine.recall(queries[0], namespace=NAMESPACE, k=K)
        out["cold_recall_ms"] = (time.perf_counter() - start) * 1e3
        hits: dict[str, list[list[str]]] = {}
        for mode in modes:
            gc.collect()
            times, found = [], []
            with vector_mode(engine, exact=mode == "exact", epsilon=epsilon):
                for q in queries[:10]:  # warm caches the same way for both modes
                    engine.recall(q, namespace=NAMESPACE, k=K)
                for q in queries:
                    t = time.perf_counter()
                    got = engine.recall(q, namespace=NAMESPACE, k=K)
                    times.append(time.perf_counter() - t)
                    found.append([h.memory_id for h in got])
            out[mode] = _timings(times)
            hits[mode] = found
        channels: dict[str, list[float]] = {"bm25": [], "vector_exact": [], "vector_ann": []}
        top: dict[str, list[list[str]]] = {"exact10": [], "ann10": [], "exact50": [], "ann50": []}
        with threadpool_limits(limits=1, user_api="blas"):  # as the read path runs the channel
            _channels(vectors, text, queries, embedded, modes, epsilon, channels, top)
        out["channels"] = {name: _timings(ts) for name, ts in channels.items() if ts}
        if ann:
            out["ann_quality"] = {
                "vector_recall@10": float(np.mean([_overlap(a, e) for a, e in
                                                   zip(top["ann10"], top["exact10"],
                                                       strict=True)])),
                "vector_recall@50": float(np.mean([_overlap(a, e) for a, e in
                                                   zip(top["ann50"], top["exact50"],
                                                       strict=True)])),
                "recall_top10_overlap": float(np.mean([_overlap(a, e) for a, e in
                                                       zip(hits["ann"], hits["exact"],
                                                           strict=True)])),
            }
    finally:
        engine.close()
    return out


def _channels(vectors: Any, text: Any, queries: list[str], embedded: np.ndarray,
              modes: tuple[str, ...], epsilon: float | None, channels: dict[str, list[float]],
              top: dict[str, list[list[str]]]) -> None:
    """Time each channel alone (50 candidates, as recall asks) and keep the vector tops."""
    options = ann_options(epsilon)
    for q, vec in zip(queries, embedded, strict=True):
        t = time.perf_counter()
        text.search(NAMESPACE, q, 50)
        channels["bm25"].append(time.perf_counter() - t)
        for mode in modes:
            t = time.perf_counter()
            got = vectors.search(NAMESPACE, vec, 50, exact=mode == "exact", **options)
            channels[f"vector_{mode}"].append(time.perf_counter() - t)
            top[f"{mode}50"].append([mid for mid, _ in got])
            top[f"{mode}10"].append([mid for mid, _ in vectors.search(
                NAMESPACE, vec, 10, exact=mode == "exact", **options)])


def run(sizes: list[int], *, queries: int = 300, seed: int = 7, cache: Path = DEFAULT_CACHE,
        ann: bool = True, epsilon: float | None = None, rebuild: bool = False,
        log: Callable[[str], None] = progress) -> dict[str, Any]:
    """Build (or reuse) each store, index it, measure it; returns every figure."""
    turns, questions = load_locomo()
    query_texts = generate_queries(queries, seed, questions)
    result: dict[str, Any] = {
        "benchmark": "recall",
        "machine": machine_info(),
        "params": {"sizes": sizes, "queries": len(query_texts), "seed": seed, "k": K,
                   "ann": ann, "epsilon": epsilon, "namespace": NAMESPACE, "batch": BATCH,
                   "corpus_version": CORPUS_VERSION, "cache": str(cache),
                   "locomo_turns": len(turns), "locomo_questions": len(questions)},
        "query_examples": query_texts[:3] + query_texts[-3:],
        "sizes": {},
    }
    cache.mkdir(parents=True, exist_ok=True)
    for n in sizes:
        log(f"[{n:,}] store ...")
        path, built = ensure_store(n, seed, cache, turns, rebuild=rebuild, log=log)
        entry: dict[str, Any] = {"store": str(path), "build": built}
        if ann:
            log(f"[{n:,}] ANN indexes (maintenance) ...")
            entry["index"] = build_indexes(path, built["clock_end"])
        entry["store_bytes"] = dir_size(path)
        log(f"[{n:,}] measuring {len(query_texts)} queries ...")
        entry |= measure(path, query_texts, ann=ann, epsilon=epsilon)
        result["sizes"][str(n)] = entry
    result["peak_rss_mb"] = peak_rss_mb()
    result["targets"] = evaluate_targets(result)
    result["all_targets_met"] = all(t["pass"] for t in result["targets"].values())
    return result


def evaluate_targets(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The targets that apply to the sizes measured (ANN ones only when ANN ran)."""
    out: dict[str, dict[str, Any]] = {}
    sizes, ann = result["sizes"], result["params"]["ann"]
    for name, (n, key, op, target) in TARGETS.items():
        entry = sizes.get(str(n))
        if entry is None or not ann:
            continue
        value = entry["ann"][key]
        out[name] = {"value": value, "op": op, "target": target, "unit": "ms",
                     "pass": value <= target}
    for n, entry in sizes.items():
        quality = entry.get("ann_quality")
        if quality is None or not entry["ann_status"]["segments"]:
            continue
        value = quality["vector_recall@10"]
        out[f"{int(n) // 1000}k ANN recall@10 vs exact"] = {
            "value": value, "op": ">=", "target": ANN_RECALL_TARGET, "unit": "",
            "pass": value >= ANN_RECALL_TARGET}
    return out


def report(result: dict[str, Any]) -> str:
    """The human-readable table and one verdict line per target."""
    m, p = result["machine"], result["params"]
    rows: list[tuple[object, ...]] = []
    for n, e in result["sizes"].items():
        status = e["ann_status"]
        for mode in ("ann", "exact"):
            if mode not in e:
                continue
            ch = e["channels"]
            rows.append((f"{int(n):,} {mode}", e[mode]["p50_ms"], e[mode]["p99_ms"],
                         e[mode]["mean_ms"], ch[f"vector_{mode}"]["p50_ms"], ch["bm25"]["p50_ms"],
                         f"{status['segments']}/{status['covered']:,}" if mode == "ann" else ""))
    head = (f"eventmem recall benchmark: recall(k={p['k']}) over {p['queries']} queries, one "
            f"namespace; {m['cpu_count']} CPUs, Python {m['python_version']}, load "
            f"{m.get('load_average')}")
    table = format_table(("memories / mode", "p50 ms", "p99 ms", "mean ms", "vector p50",
                          "bm25 p50", "segments/rows"), rows)
    lines = []
    for n, e in result["sizes"].items():
        b, q = e["build"], e.get("ann_quality")
        idx = e.get("index", {})
        origin = "cached" if b["cached"] else f"built in {b['build_seconds']:.0f} s"
        lines.append(
            f"{int(n):,}: store {e['store_bytes'] / 2**20:,.0f} MiB "
            f"({origin}); "
            f"maintenance {idx.get('seconds', 0):.1f} s; open {e['open_seconds']:.2f} s "
            f"({e['opened_from']}); cold first recall {e['cold_recall_ms']:.0f} ms"
            + (f"; ANN vector recall@10 {q['vector_recall@10']:.3f}, @50 "
               f"{q['vector_recall@50']:.3f}, recall top-10 overlap "
               f"{q['recall_top10_overlap']:.3f}" if q else ""))
    verdicts = [f"{'PASS' if t['pass'] else 'MISS'}  {name}: {t['value']:.3f} {t['op']} "
                f"{t['target']} {t['unit']}".rstrip() for name, t in result["targets"].items()]
    return "\n\n".join([head, table, "\n".join(lines), "\n".join(verdicts) or "(no targets)"])


def parse_sizes(text: str) -> list[int]:
    """"10k,100k,1m" (or plain numbers) -> sizes."""
    sizes = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in SIZES:
            sizes.append(SIZES[part])
        elif part.endswith("k") and part[:-1].isdigit():
            sizes.append(int(part[:-1]) * 1000)
        elif part.isdigit():
            sizes.append(int(part))
        else:
            raise argparse.ArgumentTypeError(f"not a size: {part!r} (e.g. 10k,100k,1m)")
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("sizes must be positive")
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.recall", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=parse_sizes, default=parse_sizes("10k,100k,1m"),
                        help="store sizes to measure (default 10k,100k,1m)")
    parser.add_argument("--queries", type=int, default=300, help="queries per mode")
    parser.add_argument("--seed", type=int, default=7, help="seed of corpus and queries")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="where built stores are kept between runs")
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached stores")
    parser.add_argument("--no-ann", action="store_true",
                        help="exact search only (no index build, no numba)")
    parser.add_argument("--epsilon", type=float, default=None,
                        help="ANN search breadth (default: the one recall uses)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results file")
    args = parser.parse_args(argv)
    result = run(args.sizes, queries=args.queries, seed=args.seed, cache=args.cache,
                 ann=not args.no_ann, epsilon=args.epsilon, rebuild=args.rebuild)
    publish(report(result), args.out, result)
    return 0 if result["all_targets_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

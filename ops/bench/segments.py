"""ANN segments: how many indexes a vector query asks, and what that costs, before and after the
merged layout (issue 17 item 5); and cold rows kept as int8 (issue 17 item 3).

    python -m ops.bench.segments [--size 100k] [--queries 300] [--purge 0.02] [--cold 0.3]
                                 [--seed 7] [--out FILE]

1. The rows: ``ops.bench.recall``'s corpus of ``--size`` texts embedded with the default
   embedder (``HashingEmbedder``, 256 dimensions) into the vector projection, one namespace, the
   way the fold adds ingested memories (no store: building one with the write gate takes most
   of an hour at 100k on a loaded 2-core machine, and the indexes see only the vectors). The
   store would hold a few fewer rows (the gate skips exact duplicates).
2. The rows are indexed under two layouts in turn, each from scratch, timed:
   ``before``, the former one (runs of 50k rows, never merged: 20 indexes at 1M), and
   ``after``, the engine's (:data:`projections.ann.LAYOUT`: runs merged four at a time).
3. Per layout: the indexes built, the indexes a query asks at this size and (computed from the
   layout) at 1M, the vector channel's p50/p99 asking 50 candidates as recall does (BLAS on one
   thread, as the read path runs it), and recall@10 / @50 against exact search.
4. Then ``--purge`` of the rows are removed, as the fold removes purged memories: how many
   indexes maintenance rebuilds (the merged layout masks them: none, below half a run), the
   latency and recall@10 with the rows masked, and the masked indexes through a snapshot
   round trip (answers identical, bytes of the ANN part).
5. Then (merged layout only) ``--cold`` of the rows, drawn at random (seeded), go cold as the
   fold makes an archived or dormant memory's row cold (int8 codes and a scale: see
   :mod:`projections.quantize`), the indexes kept: the vector rows' bytes in memory and in the
   snapshot before and after, recall@10 of the ANN search and of the exact search against the
   exact search over the float32 rows, latency, and the answers through a snapshot round trip;
   then the same with every row cold (the bound on what quantizing saves).

The layout and the vector projection are internal (``projections``), so this benchmark imports
them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

import eventmem
from ops.bench import recall
from ops.bench.common import (
    RESULTS_DIR,
    format_table,
    machine_info,
    peak_rss_mb,
    percentile,
    progress,
    publish,
)
from projections import Projections, ann
from projections.vectors import Space, Vectors, first_fetch

DEFAULT_OUT = RESULTS_DIR / "segments.json"
MILLION = 1_000_000
# The layout before issue 17 item 5: a segment per 50k rows, never merged.
BEFORE = ann.Layout(base_rows=50_000, fan_in=1 << 20, min_index_rows=50_000)
LAYOUTS = {"before": BEFORE, "after": ann.LAYOUT}
RECALL_TARGET = 0.97  # issue 17: ANN recall@10 against exact float32 search


def vectors_of(texts: list[str], layout: ann.Layout) -> Vectors:
    """The texts embedded into a vector projection of one namespace under ``layout``."""
    embedder = eventmem.HashingEmbedder()
    vectors = Vectors(embedder.dim, layout)
    vectors.spaces[recall.NAMESPACE] = space = Space(embedder.dim)
    for lo in range(0, len(texts), 10_000):  # in slices, as the fold adds a batch
        rows = embedder.embed(texts[lo : lo + 10_000])
        space.add([f"m{i:07d}" for i in range(lo, lo + len(rows))], rows)
    return vectors


def _search_all(vectors: Any, embedded: np.ndarray, n: int, exact: bool) -> list[list[str]]:
    return [[mid for mid, _ in vectors.search(recall.NAMESPACE, q, n, exact=exact)]
            for q in embedded]


def _overlap(found: list[list[str]], truth: list[list[str]]) -> float:
    return float(np.mean([len(set(a) & set(b)) / len(b) if b else 1.0
                          for a, b in zip(found, truth, strict=True)]))


def measure(vectors: Any, embedded: np.ndarray) -> dict[str, Any]:
    """Vector channel latency (50 candidates, ANN) and recall@10/@50 against exact."""
    with threadpool_limits(limits=1, user_api="blas"):
        for q in embedded[:10]:  # load the indexes, warm the caches
            vectors.search(recall.NAMESPACE, q, 50, exact=False)
        times = []
        for q in embedded:
            t = time.perf_counter()
            vectors.search(recall.NAMESPACE, q, 50, exact=False)
            times.append((time.perf_counter() - t) * 1e3)
        exact_times = []
        for q in embedded[:100]:
            t = time.perf_counter()
            vectors.search(recall.NAMESPACE, q, 50, exact=True)
            exact_times.append((time.perf_counter() - t) * 1e3)
        truth10 = _search_all(vectors, embedded, 10, True)
        truth50 = _search_all(vectors, embedded, 50, True)
        ann10 = _search_all(vectors, embedded, 10, False)
        ann50 = _search_all(vectors, embedded, 50, False)
    return {"vector_ann_p50_ms": percentile(times, 50), "vector_ann_p99_ms": percentile(times, 99),
            "vector_exact_p50_ms": percentile(exact_times, 50),
            "recall@10": _overlap(ann10, truth10), "recall@50": _overlap(ann50, truth50)}


def run_layout(name: str, layout: ann.Layout, corpus: list[str], embedded: np.ndarray,
               purge: float, log: Callable[[str], None]) -> tuple[dict[str, Any], Vectors]:
    vectors = vectors_of(corpus, layout)
    space = vectors.spaces[recall.NAMESPACE]
    out: dict[str, Any] = {"layout": {"base_rows": layout.base_rows, "fan_in": layout.fan_in,
                                      "min_index_rows": layout.min_index_rows,
                                      "rebuild_fraction": layout.rebuild_fraction},
                           "indexes_at_1m": len(ann.seals(MILLION, layout))}
    log(f"[{name}] building indexes over {space.count:,} rows ...")
    start = time.perf_counter()
    out["built"] = vectors.build_indexes()
    out["build_seconds"] = time.perf_counter() - start
    out["status"] = vectors.ann_status(recall.NAMESPACE)
    log(f"[{name}] measuring ...")
    out["clean"] = measure(vectors, embedded)
    # Purge: every k-th row, as the fold removes purged memories from the projection.
    step = max(1, round(1 / purge))
    gone = set(space.ids[::step])
    space.remove(gone)
    start = time.perf_counter()
    out["purged_rows"] = len(gone)
    out["rebuilt_after_purge"] = vectors.build_indexes()
    out["rebuild_seconds"] = time.perf_counter() - start
    out["status_after_purge"] = vectors.ann_status(recall.NAMESPACE)
    out["purged"] = measure(vectors, embedded)
    views = Projections()
    views.vectors = vectors
    start = time.perf_counter()
    data = views.to_bytes()
    restored = type(views).from_bytes(data)
    out["snapshot_seconds"] = time.perf_counter() - start
    assert restored is not None
    dump = restored.ann_of(data)
    out["snapshot_ann_bytes"] = sum(len(d.blob) + len(d.removed) for segs in
                                    (dump.spaces.values() if dump else ()) for d in segs)
    probe = embedded[:50]
    out["snapshot_answers_identical"] = (
        _search_all(restored.vectors, probe, 50, False) == _search_all(vectors, probe, 50, False))
    out["snapshot_status"] = restored.vectors.ann_status(recall.NAMESPACE)
    return out, vectors


def row_bytes(vectors: Vectors) -> dict[str, int]:
    """What the vector rows take: in memory (float32 rows, int8 codes and scales, at their
    counts, not the matrix's spare capacity) and in a snapshot (the raw rows part)."""
    spaces = vectors.spaces.values()
    memory = sum(space.warm_rows * space.matrix.shape[1] * 4 + space.codes.nbytes
                 + space.scales.nbytes for space in spaces)
    _, raw = vectors.dump()
    return {"memory": memory, "snapshot_rows": len(raw),
            "cold_rows": sum(len(space.codes) for space in spaces),
            "rows": sum(space.count for space in spaces)}


def run_cold(vectors: Vectors, embedded: np.ndarray, share: float, seed: int,
             log: Callable[[str], None]) -> dict[str, Any]:
    """``share`` of the rows made cold (then all of them), against the float32 answers."""
    space = vectors.spaces[recall.NAMESPACE]
    with threadpool_limits(limits=1, user_api="blas"):
        truth10 = _search_all(vectors, embedded, 10, True)
    out: dict[str, Any] = {"float32": row_bytes(vectors)}
    rng = np.random.default_rng(seed)
    for name, p in (("mix", share), ("all", 1.0)):
        chosen = {mid for mid in space.ids if rng.random() < p}
        log(f"[cold] {len(chosen):,} rows made cold ({name}) ...")
        start = time.perf_counter()
        space.quantize(chosen)
        entry: dict[str, Any] = {"share": p, "quantize_seconds": time.perf_counter() - start,
                                 "bytes": row_bytes(vectors)}
        entry.update(measure(vectors, embedded))
        with threadpool_limits(limits=1, user_api="blas"):
            entry["recall@10_vs_float32"] = _overlap(
                _search_all(vectors, embedded, 10, False), truth10)
            entry["exact_recall@10_vs_float32"] = _overlap(
                _search_all(vectors, embedded, 10, True), truth10)
        views = Projections()
        views.vectors = vectors
        restored = Projections.from_bytes(views.to_bytes())
        assert restored is not None
        probe = embedded[:50]
        entry["snapshot_answers_identical"] = (
            _search_all(restored.vectors, probe, 50, False)
            == _search_all(vectors, probe, 50, False))
        out[name] = entry
    return out


def run(n: int, *, queries: int, purge: float, seed: int, cold: float = 0.3,
        log: Callable[[str], None] = progress) -> dict[str, Any]:
    turns, questions = recall.load_locomo()
    corpus = recall.generate_corpus(n, seed, turns)
    texts = recall.generate_queries(queries, seed, questions)
    embedded = eventmem.HashingEmbedder().embed(texts)
    result: dict[str, Any] = {
        "benchmark": "segments", "machine": machine_info(),
        "params": {"size": n, "queries": len(texts), "purge": purge, "cold": cold,
                   "seed": seed, "epsilon": ann.EPSILON,
                   "first_fetch": {f"{rows:,}": first_fetch(rows, 10, rows)
                                   for rows in (25_000, 100_000, 400_000, 1_600_000)}},
        "layouts": {},
    }
    vectors: dict[str, Vectors] = {}
    for name, layout in LAYOUTS.items():
        result["layouts"][name], vectors[name] = run_layout(name, layout, corpus, embedded,
                                                            purge, log)
    result["cold"] = run_cold(vectors["after"], embedded, cold, seed, log)
    result["peak_rss_mb"] = peak_rss_mb()
    after, mix = result["layouts"]["after"], result["cold"]["mix"]
    result["targets"] = {
        "ANN recall@10 >= 0.97 (clean)": after["clean"]["recall@10"] >= RECALL_TARGET,
        "ANN recall@10 >= 0.97 (purged, masked)": after["purged"]["recall@10"] >= RECALL_TARGET,
        "a purge rebuilds no index": after["rebuilt_after_purge"] == 0,
        "masked indexes answer the same after a snapshot": after["snapshot_answers_identical"],
        f"ANN recall@10 >= 0.97 against float32, {cold:.0%} of rows cold":
            mix["recall@10_vs_float32"] >= RECALL_TARGET,
        "cold rows answer the same after a snapshot": mix["snapshot_answers_identical"],
    }
    result["all_targets_met"] = all(result["targets"].values())
    return result


def report(result: dict[str, Any]) -> str:
    rows = []
    for name, e in result["layouts"].items():
        rows.append([name, e["status"]["segments"], e["indexes_at_1m"],
                     f"{e['build_seconds']:.0f}", f"{e['clean']['vector_ann_p50_ms']:.2f}",
                     f"{e['clean']['vector_ann_p99_ms']:.2f}",
                     f"{e['clean']['vector_exact_p50_ms']:.2f}",
                     f"{e['clean']['recall@10']:.3f}", f"{e['clean']['recall@50']:.3f}",
                     e["rebuilt_after_purge"], f"{e['purged']['vector_ann_p50_ms']:.2f}",
                     f"{e['purged']['recall@10']:.3f}", e["snapshot_answers_identical"]])
    p = result["params"]
    table = format_table(
        ["layout", "indexes", "at 1M", "build s", "ANN p50 ms", "p99 ms", "exact p50 ms",
         "R@10", "R@50", "rebuilt after purge", "purged p50 ms", "purged R@10",
         "snapshot same"], rows)
    lines = [f"ANN segments at {p['size']:,} rows, {p['queries']} queries, 50 candidates, "
             f"purge {p['purge']:.0%}", table, ""]
    c = result["cold"]
    base = c["float32"]["memory"]
    cold_rows = [[name, f"{e['bytes']['cold_rows']:,}", f"{e['bytes']['memory'] / 1e6:.1f}",
                  f"{e['bytes']['memory'] / base:.2f}",
                  f"{e['bytes']['snapshot_rows'] / 1e6:.1f}",
                  f"{e['vector_ann_p50_ms']:.2f}", f"{e['vector_exact_p50_ms']:.2f}",
                  f"{e['recall@10_vs_float32']:.3f}", f"{e['exact_recall@10_vs_float32']:.3f}",
                  e["snapshot_answers_identical"]]
                 for name, e in (("float32", None), ("mix", c["mix"]), ("all", c["all"]))
                 if e is not None]
    lines += ["", f"Cold rows (int8 + scale), merged layout, after the purge; float32 rows: "
              f"{base / 1e6:.1f} MB in memory, {c['float32']['snapshot_rows'] / 1e6:.1f} MB in "
              "the snapshot",
              format_table(["cold", "rows", "memory MB", "of float32", "snapshot MB",
                            "ANN p50 ms", "exact p50 ms", "ANN R@10 vs f32",
                            "exact R@10 vs f32", "snapshot same"], cold_rows), ""]
    lines += [f"  {'ok  ' if ok else 'FAIL'} {name}" for name, ok in result["targets"].items()]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ops.bench.segments", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=lambda s: recall.parse_sizes(s)[0], default=100_000,
                        help="rows (memories) in the store (default 100k)")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--purge", type=float, default=0.02, help="share of rows removed")
    parser.add_argument("--cold", type=float, default=0.3,
                        help="share of rows made cold (int8) after the purge")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    result = run(args.size, queries=args.queries, purge=args.purge, seed=args.seed,
                 cold=args.cold)
    publish(report(result), args.out, result)
    return 0 if result["all_targets_met"] else 1


if __name__ == "__main__":
    raise SystemExit(main())

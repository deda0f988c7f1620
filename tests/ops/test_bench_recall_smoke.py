"""Smoke test of ``python -m ops.bench.recall`` at a tiny size, exact search only (no numba):
it runs end to end in a subprocess, writes every figure, and reuses the store it cached."""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ops.bench import recall
from tests import ROOT

pytestmark = pytest.mark.slow  # benchmarks run end to end in other processes

def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and (
        math.isfinite(value) and value > 0
    )


def _run(tmp: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    return subprocess.run(
        [sys.executable, "-m", "ops.bench.recall", "--sizes", "1500", "--queries", "24",
         "--no-ann", "--cache", str(tmp / "cache"), "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


def test_recall_benchmark_writes_every_figure_and_reuses_its_store(tmp_path):
    out = tmp_path / "results" / "recall.json"
    proc = _run(tmp_path, out)
    assert proc.returncode == 0, proc.stderr
    assert "exact" in proc.stdout and "no targets" in proc.stdout
    data = json.loads(out.read_text())
    assert data["benchmark"] == "recall" and data["machine"]["cpu_count"] >= 1
    assert data["params"]["sizes"] == [1500] and data["params"]["queries"] == 24
    assert data["params"]["ann"] is False and data["targets"] == {}
    entry = data["sizes"]["1500"]
    assert entry["build"]["cached"] is False
    assert sum(entry["build"]["actions"].values()) == 1500
    assert entry["opened_from"].startswith("snapshot")
    assert entry["ann_status"]["segments"] == 0 and "ann" not in entry
    for key in ("p50_ms", "p90_ms", "p99_ms", "mean_ms", "max_ms"):
        assert _positive(entry["exact"][key]), key
    for channel in ("bm25", "vector_exact"):
        assert _positive(entry["channels"][channel]["p50_ms"]), channel
    assert _positive(entry["open_seconds"]) and _positive(entry["store_bytes"])

    again = _run(tmp_path, out)
    assert again.returncode == 0, again.stderr
    assert json.loads(out.read_text())["sizes"]["1500"]["build"]["cached"] is True


def test_corpus_and_queries_are_deterministic_and_realistic():
    turns = [("Caroline", "I went to a support group yesterday and it was powerful"),
             ("Melanie", "We painted a sunrise by the lake with the kids last weekend")]
    texts = recall.generate_corpus(400, 3, turns)
    assert texts == recall.generate_corpus(400, 3, turns)
    assert texts != recall.generate_corpus(400, 4, turns)
    assert len(texts) == 400 and len(set(texts)) > 300
    spliced = [t for t in texts if t.startswith(("Caroline: ", "Melanie: "))]
    assert len(spliced) == 200
    assert recall.generate_corpus(50, 3, []) == recall.generate_corpus(50, 3, [])
    questions = [f"What did Caroline do on day {i}?" for i in range(40)]
    queries = recall.generate_queries(30, 1, questions)
    assert queries == recall.generate_queries(30, 1, questions) and len(queries) == 30
    assert sum(q in questions for q in queries) == 20
    assert all(q.endswith("?") for q in queries)


def test_sizes_parse_from_the_command_line():
    assert recall.parse_sizes("10k,100k,1m") == [10_000, 100_000, 1_000_000]
    assert recall.parse_sizes("1M, 2500, 20k") == [1_000_000, 2500, 20_000]
    for bad in ("", "ten", "0", "-5k"):
        with pytest.raises(argparse.ArgumentTypeError):
            recall.parse_sizes(bad)


def test_targets_apply_to_the_sizes_measured():
    def entry(p50: float, p99: float, quality: float | None) -> dict:
        return {"ann": {"p50_ms": p50, "p99_ms": p99},
                "ann_status": {"segments": 2 if quality is not None else 0},
                "ann_quality": None if quality is None else {"vector_recall@10": quality}}

    result = {"params": {"ann": True}, "sizes": {"100000": entry(4.0, 25.0, 0.97),
                                                 "10000": entry(1.0, 2.0, None)}}
    targets = recall.evaluate_targets(result)
    assert set(targets) == {"100k recall p50 (ann)", "100k recall p99 (ann)",
                            "100k ANN recall@10 vs exact"}
    assert targets["100k recall p50 (ann)"]["pass"] is True
    assert targets["100k recall p99 (ann)"]["pass"] is False
    assert targets["100k ANN recall@10 vs exact"]["pass"] is True
    assert recall.evaluate_targets({"params": {"ann": False}, "sizes": {}}) == {}

"""Smoke test of ``python -m ops.bench.consolidate`` at a small N: it builds the store once, reuses
the cached one on the next run, writes every figure, and its second cycle appends nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import ROOT

pytestmark = pytest.mark.slow  # benchmarks run end to end in other processes

N = 1200


def run_bench(tmp: Path, name: str) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp / f"{name}.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run(
        [sys.executable, "-m", "ops.bench.consolidate", "--n", str(N), "--days", "30",
         "--capacity", "60", "--cache", str(tmp / "cache"), "--out", str(out),
         "--tmp", str(tmp)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert out.exists(), proc.stderr
    return proc, json.loads(out.read_text())


def test_consolidate_benchmark_builds_once_and_reports_every_step(tmp_path):
    first_proc, first = run_bench(tmp_path, "first")
    second_proc, second = run_bench(tmp_path, "second")
    assert first_proc.returncode == 0 == second_proc.returncode, second_proc.stderr
    assert "[build]" in first_proc.stderr and "[build]" not in second_proc.stderr
    assert (first["store"]["cached"], second["store"]["cached"]) == (False, True)
    assert "full consolidate (sweep + dream)" in second_proc.stdout
    for data in (first, second):
        cycle = data["cycle"]
        assert data["store"]["memories"] > 0.95 * N
        assert cycle["seconds"] > 0 and cycle["events"] > 0
        assert cycle["status_changes"] > 0 and cycle["summaries"] > 0
        assert cycle["dormant_reasons"].get("capacity", 0) > 0  # over 60 live a namespace
        assert cycle["dormant"] == sum(cycle["dormant_reasons"].values())
        assert data["second"]["appended"] == 0 and data["second"]["changed"] is False
        assert data["verify"]["ok"] is True, data["verify"]["findings"]
        assert data["targets"]["second consolidate, same now"]["pass"] is True
    # the same cached store, the same cycle: the same decisions
    assert {k: v for k, v in first["cycle"].items() if "seconds" not in k} == {
        k: v for k, v in second["cycle"].items() if "seconds" not in k}
    assert not list(tmp_path.glob("eventmem-bench-consolidate-*")), "the run's copy was kept"

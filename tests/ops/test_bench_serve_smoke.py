"""Smoke test of ``python -m ops.bench.serve`` at a tiny size: the in-process, HTTP and MCP runs
go end to end (a real server subprocess), nothing fails, and every figure is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests import ROOT

pytestmark = pytest.mark.slow  # a server process and MCP sessions: several seconds


def test_serve_benchmark_writes_every_figure(tmp_path):
    out = tmp_path / "serve.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run(
        [sys.executable, "-m", "ops.bench.serve", "--memories", "200", "--clients", "1,3",
         "--requests", "12", "--cache", str(tmp_path / "cache"), "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(out.read_text())
    assert data["benchmark"] == "serve" and set(data["modes"]) == {"in_process", "http", "mcp"}
    for mode in data["modes"].values():
        for run in mode.values():
            for op in ("recall", "remember"):
                assert run[op]["requests"] == 12 and run[op]["failed"] == 0
                assert run[op]["p50_ms"] > 0 and run[op]["throughput_per_s"] > 0
    assert set(data["overhead"]) == {f"{m}/{op}/{n}" for m in ("http", "mcp")
                                     for op in ("recall", "remember") for n in (1, 3)}
    assert all(t["pass"] for t in data["targets"].values())

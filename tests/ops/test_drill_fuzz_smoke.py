"""Smoke test of ``python -m ops.drills.fuzz``: it runs end to end at a small N in a subprocess,
prints its counts, writes them as JSON, and meets its targets (no raw exception, no head change
on a refused call, no failed verify), near the end of time too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import ROOT

pytestmark = pytest.mark.slow  # the drill runs end to end in another process


@pytest.mark.parametrize("start,damaged", [("2025-01-01T00:00+00:00", 4),
                                           ("9999-12-20T00:00+00:00", 0)])
def test_the_fuzz_drill_runs_and_passes(tmp_path: Path, start: str, damaged: int) -> None:
    out = tmp_path / "results" / "fuzz.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run(
        [sys.executable, "-m", "ops.drills.fuzz", "--calls", "300", "--seed", "3", "--start",
         start, "--damaged", str(damaged), "--out", str(out), "--tmp", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    result = json.loads(out.read_text())
    counts = result["counts"]
    assert counts["calls"] == 300
    assert counts["succeeded"] + counts["refused"] + counts["raw_exceptions"] == 300
    assert counts["refused"] > 0 and counts["succeeded"] > 0  # both kinds were exercised
    assert (counts["raw_exceptions"], counts["head_changes_on_refusal"],
            counts["verify_failures"]) == (0, 0, 0)
    assert counts.get("damaged_copies", 0) == damaged
    assert counts.get("damaged_raw_or_crash", 0) == 0
    assert result["pass"] is True
    assert "raw_exceptions" in proc.stdout and "PASS" in proc.stdout
    assert sorted(os.listdir(tmp_path)) == ["results"]  # its store is gone, the cwd untouched

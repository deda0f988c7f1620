"""Smoke test of ``python -m ops.bench.lifecycle``: it runs end to end at a small N in a
subprocess, writes every figure, and its second sweep at the same ``now`` changes nothing."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import ROOT

pytestmark = pytest.mark.slow  # benchmarks run end to end in other processes

N = 1500



def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and (
        math.isfinite(value) and value > 0
    )


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str],
                                                             dict[str, Any], Path]:
    tmp = tmp_path_factory.mktemp("bench-lifecycle")
    out = tmp / "results" / "lifecycle.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run(
        [sys.executable, "-m", "ops.bench.lifecycle", "--n", str(N), "--out", str(out),
         "--tmp", str(tmp)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert out.exists(), proc.stderr
    return proc, json.loads(out.read_text()), tmp


def test_lifecycle_benchmark_writes_every_figure(bench):
    proc, data, tmp = bench
    second_changed = data["second_sweep"]["changes_and_events"] != 0
    assert proc.returncode == (1 if second_changed or not data["verify"]["ok"] else 0), (
        proc.stderr)
    assert "PASS" in proc.stdout or "MISS" in proc.stdout
    assert "consolidate at a new now" in proc.stdout

    assert data["benchmark"] == "lifecycle"
    assert data["params"]["n"] == N and data["params"]["gap_days"] == 60
    assert data["machine"]["cpu_count"] >= 1
    ingest = data["ingest"]
    assert ingest["items"] == N and sum(ingest["actions"].values()) == N
    # Every item made a memory, most of them new; the others are new versions (a new value
    # superseding, a merge, an update).
    made = sum(ingest["actions"].get(a, 0) for a in ("created", "superseded", "merged", "updated"))
    # (and a compound statement split into its clauses makes one memory per clause)
    assert made <= ingest["memories"] <= 1.05 * made and ingest["actions"]["created"] > 0.9 * N
    assert set(ingest["kinds"]) == set(data["params"]["kind_weights"])  # all eight kinds
    assert 0.05 * N < ingest["sources"]["extraction"] < 0.3 * N
    assert ingest["days"] >= 80
    for key in ("touches", "feedbacks", "recalls", "forgets"):
        assert data["activity"][key] > 0, key
    assert [w["day"] for w in data["warm_sweeps"]] == [30, 60]

    sweep = data["sweep"]
    for key in ("seconds", "cpu_seconds", "status_changes", "events"):
        assert _positive(sweep[key]), (key, sweep.get(key))
    for key in ("tier_changes", "invalidated"):
        assert isinstance(sweep[key], int) and sweep[key] >= 0
    assert sweep["status_changes"] == sum(sweep["transitions"].values())
    assert sweep["tier_changes"] == sum(sweep["tier_transitions"].values())
    assert sweep["snapshot_during_sweep"] is False
    # 60 days after the last ingest most memories have moved on; purges and expiries happen
    assert sweep["status_changes"] > 0.3 * N
    assert sweep["transitions"].get("deleted->purged", 0) > 0 and sweep["invalidated"] > 0
    assert sum(data["by_status_after"].values()) == ingest["memories"]
    assert data["by_status_after"] != data["by_status_before"]

    second = data["second_sweep"]
    assert _positive(second["seconds"]) and isinstance(second["changes"], int)
    assert second["changes_and_events"] == second["changes"] + second["appended"]
    assert data["verify"]["ok"] is True, data["verify"]["findings"]
    assert set(data["targets"]) == {"consolidate at a new now", "second consolidate, same now"}
    for target in data["targets"].values():
        assert isinstance(target["pass"], bool)
    assert data["targets"]["consolidate at a new now"]["value"] == sweep["seconds"]
    assert data["all_targets_met"] == all(t["pass"] for t in data["targets"].values())
    assert not list(tmp.glob("eventmem-bench-lifecycle-*")), "the temporary store was not removed"


def test_lifecycle_benchmark_second_sweep_changes_nothing(bench):
    _, data, _ = bench
    second = data["second_sweep"]
    assert (second["changes"], second["appended"], second["events"],
            second["changes_and_events"]) == (0, 0, 0, 0), second
    assert data["targets"]["second consolidate, same now"]["pass"] is True

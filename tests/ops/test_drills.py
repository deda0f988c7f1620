"""Quick versions of the drills of ``ops/drills`` (issue 15): each runs end to end at a small
size and every count that must be 0 is 0. The full drills are ``python -m ops.drills.NAME``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ops.drills import crash, erasure, flips, lock, readers, threads, truncate


def test_threads_drill(tmp_path: Path) -> None:
    result = threads.run(runs=1, threads=3, ops=15, sync=False, tmp=tmp_path)
    counts = result["counts"]
    assert counts["acknowledged"] == 45
    assert counts["lost"] == counts["crashes"] == 0
    assert counts["detected_corruptions"] == counts["undetected_corruptions"] == 0


def test_lock_drill(tmp_path: Path) -> None:
    """Two runs: writer.lock deleted, then writer.lock and lock.mdb."""
    result = lock.run(runs=2, before=3, attempts=3, tmp=tmp_path)
    counts = result["counts"]
    assert counts["acknowledged"] >= 6
    assert counts["second_writer_admitted"] == counts["lost"] == counts["crashes"] == 0, \
        result["runs"]
    assert counts["store_failures"] == counts["undetected_corruptions"] == 0


@pytest.mark.slow  # 14 child processes; tests/storage/test_truncated_store.py is the quick one
def test_truncate_drill(tmp_path: Path) -> None:
    result = truncate.run(memories=200, n_random=0, tmp=tmp_path)
    counts = result["counts"]
    assert counts["runs"] == 14
    assert counts["crashes"] == counts["undetected_corruptions"] == counts["lost"] == 0
    assert counts["refused"] == 14


def test_a_drill_writes_its_counts_as_json(tmp_path: Path) -> None:
    out = tmp_path / "threads.json"
    assert threads.main(["--runs", "1", "--threads", "2", "--ops", "5", "--no-sync",
                         "--out", str(out), "--tmp", str(tmp_path)]) == 0
    written = json.loads(out.read_text())
    assert written["counts"]["runs"] == 1 and "machine" in written


def test_erasure_drill(tmp_path: Path) -> None:
    result = erasure.run(runs=1, memories=18, tmp=tmp_path)
    counts = result["counts"]
    assert counts["runs"] == 1 and counts["markers"] > 20
    assert counts["hits"] == counts["kept_missing"] == 0, result["hits_by_field"]
    assert counts["verify_failures"] == counts["audit_failures"] == 0


@pytest.mark.slow  # ~3.5 s a flip (a child opens, reads, verifies and audits each copy)
def test_flips_drill(tmp_path: Path) -> None:
    result = flips.run(n_flips=6, memories=100, tmp=tmp_path)
    counts = result["counts"]
    assert counts["runs"] == 6
    assert counts["crashes"] == counts["raw_exceptions"] == 0, result["runs"]
    assert counts["undetected_corruptions"] == 0, result["runs"]
    assert counts["detected"] + counts["harmless"] == 6


@pytest.mark.slow  # child processes killed and reopened
def test_crash_drill(tmp_path: Path) -> None:
    result = crash.run(runs=3, max_delay=0.8, tmp=tmp_path)
    counts = result["counts"]
    assert counts["runs"] == 3 and counts["acknowledged"] > 0
    assert counts["lost"] == counts["crashes_at_open"] == counts["verify_failures"] == 0, \
        result["runs"]
    assert counts["writer_failed_to_start"] == 0


@pytest.mark.slow  # three processes
def test_readers_drill(tmp_path: Path) -> None:
    result = readers.run(runs=1, readers=2, writes=60, tmp=tmp_path)
    counts = result["counts"]
    assert counts["acknowledged"] == 60 and counts["reads"] > 0
    assert counts["lost"] == counts["crashes"] == counts["torn_reads"] == 0
    assert counts["verify_failures"] == 0

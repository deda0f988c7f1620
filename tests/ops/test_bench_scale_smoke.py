"""``python -m ops.bench.scale``: the low-selectivity corpus is deterministic and unselective, the
disk breakdown accounts for the whole file, the targets apply to the sizes measured, and (slow)
the benchmark runs end to end at a tiny size, writing every figure, and reuses its stores."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter

import pytest

import eventmem
from ops.bench import scale
from tests import ROOT


def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and (
        math.isfinite(value) and value > 0
    )


def test_notes_are_deterministic_short_and_unselective():
    notes = scale.generate_notes(3000, 5)
    assert notes == scale.generate_notes(3000, 5) and notes != scale.generate_notes(3000, 6)
    assert len(set(notes)) > 2700  # distinct, so the gate keeps them
    assert sum(map(len, notes)) / len(notes) < 90  # short chat-like notes
    people = Counter(n.split()[0] for n in notes)
    assert set(people) == set(scale.PEOPLE)
    assert min(people.values()) > 3000 / 20 / 2  # every name in about 1 in 20 notes
    topics = Counter(t for n in notes for t in scale.TOPICS if f"the {t}" in n)
    assert set(topics) == set(scale.TOPICS) and min(topics.values()) > 3000 / 15 / 2
    queries = scale.generate_note_queries(40, 5)
    assert queries == scale.generate_note_queries(40, 5) and len(queries) == 40
    assert all(any(p in q for p in scale.PEOPLE) or any(t in q for t in scale.TOPICS)
               for q in queries)


def test_the_disk_breakdown_accounts_for_the_whole_file(tmp_path):
    store = tmp_path / "store"
    with eventmem.open(store, clock=eventmem.ManualClock(start=scale.recall.T0),
                       config=eventmem.Config(sync=False, snapshot_every=10**9)) as mem:
        mem.remember_many(scale.generate_notes(200, 1), namespace="n")
        for i in range(3):
            mem.remember(f"one more note, number {i}", namespace="n")
            mem.snapshot()
        seq = mem.snapshot()
    built = scale.disk_breakdown(store)
    tables = built["tables"]
    assert {"log", "blobs", "vectors", "content", "snapshots", "meta"} <= set(tables)
    assert tables["log"]["entries"] == seq and tables["blobs"]["entries"] >= 200
    assert [s["seq"] for s in built["snapshots"]] == [seq]
    # The vector rows stay in the vector table alone: the snapshot names them (16 B a row).
    assert 16 * 200 < built["snapshots"][0]["bytes"] < 200 * 1024
    # A file beside data.mdb, counted in the store's bytes.
    assert built["snapshot_files_bytes"] == built["snapshots"][0]["bytes"]
    assert built["file_bytes"] == built["data_mdb_bytes"] + built["snapshot_files_bytes"]
    assert built["free_bytes"] > 0  # the pages the replaced snapshots' entries left
    pages = sum(t["pages"] for t in tables.values()) + built["free_pages"]
    assert pages * built["page_size"] <= built["used_pages"] * built["page_size"]
    assert built["used_pages"] * built["page_size"] <= built["data_mdb_bytes"]
    with eventmem.open(store) as mem:
        mem.compact()
    compacted = scale.disk_breakdown(store)
    assert compacted["free_pages"] < built["free_pages"]
    assert compacted["file_bytes"] < built["file_bytes"]


def test_targets_apply_to_the_sizes_measured():
    def entry(p50: float, disk: float) -> dict:
        return {"recall": {"p50_ms": p50, "p99_ms": 3 * p50},
                "disk": {"per_memory_compacted": disk, "text_bytes_per_memory": 100.0,
                         "tables": {}}}

    targets = scale.evaluate_targets({"sizes": {"100000": entry(4.0, 2100.0),
                                                "600": entry(1.0, 3000.0)}})
    assert targets["recall p50, distinct (100k)"]["pass"] is True
    assert targets["recall p99, distinct (100k)"]["pass"] is True
    assert targets["disk per memory after compact (+text) (100k)"] == {
        "value": 2100.0, "op": "<=", "target": 2148.0, "unit": "B+text", "pass": True,
        "size": 100_000}
    assert targets["disk per memory after compact (+text) (600)"]["pass"] is False
    assert not any("1M" in name for name in targets)


@pytest.mark.slow  # the benchmark end to end, in another process
def test_scale_benchmark_writes_every_figure_and_reuses_its_stores(tmp_path):
    out = tmp_path / "results" / "scale.json"

    def run() -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
        return subprocess.run(
            [sys.executable, "-m", "ops.bench.scale", "--sizes", "600", "--queries", "12",
             "--ingest", "60", "--calls", "10", "--no-ann", "--cache", str(tmp_path / "cache"),
             "--tmp", str(tmp_path), "--out", str(out)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
        )

    proc = run()
    assert proc.returncode == 0, proc.stderr
    assert "disk per memory" in proc.stdout and "free pages" in proc.stdout
    data = json.loads(out.read_text())
    assert data["benchmark"] == "scale" and data["params"]["sizes"] == [600]
    e = data["sizes"]["600"]
    assert e["build"]["cached"] is False and e["build_low"]["cached"] is False
    assert e["open"]["from_snapshot"] and e["verify"]["ok"] and e["audit"]["ok"]
    assert len(e["disk"]["snapshots"]) == 1  # the default keeps one
    assert e["disk"]["free_pages"] <= e["disk_as_built"]["free_pages"]
    for figure in (e["recall"]["p50_ms"], e["recall_low"]["p50_ms"], e["open"]["seconds"],
                   e["disk"]["per_memory_compacted"], e["rebuild"]["of_reader_floor"],
                   e["audit"]["of_rebuild"], e["remember"]["p50_ms"],
                   e["ingest"]["all_cores_per_s"], e["bare_read"]["events_per_s"],
                   e["bare_append"]["events_per_s"], e["consolidate"]["seconds"]):
        assert _positive(figure)
    assert [r["cores"] for r in e["ingest"]["runs"]] == scale.core_counts()
    assert "1M" not in " ".join(data["targets"])  # only the sizes that ran are judged

    again = run()
    assert again.returncode == 0, again.stderr
    again_e = json.loads(out.read_text())["sizes"]["600"]
    assert again_e["build"]["cached"] is True and again_e["build_low"]["cached"] is True

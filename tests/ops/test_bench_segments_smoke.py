"""Smoke test of ``ops.bench.segments`` at a tiny size, in process: small layouts in place of the
engine's, and an exact stand-in for pynndescent (no numba), so it checks the procedure and every
figure, not the speed."""

from __future__ import annotations

import numpy as np
import pytest

from ops.bench import segments
from projections import ann


class _Exact:
    def __init__(self, rows: np.ndarray) -> None:
        self.rows = np.array(rows, dtype=np.float32)

    def query(self, q: np.ndarray, k: int, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
        sims = self.rows @ q[0]
        order = np.lexsort((np.arange(len(sims)), -sims))[:k]
        return order[None, :].astype(np.int32), (1.0 - sims[order])[None, :]


def test_segments_benchmark_compares_layouts_and_masks_a_purge(monkeypatch):
    monkeypatch.setattr(ann, "build_index", _Exact)
    monkeypatch.setattr(ann, "dump_index", lambda index: b"\x01exact")
    monkeypatch.setattr(ann, "load_index", lambda blob, rows: _Exact(rows))
    monkeypatch.setattr(segments, "LAYOUTS", {
        "before": ann.Layout(base_rows=200, fan_in=1 << 20, min_index_rows=200),
        "after": ann.Layout(base_rows=100, fan_in=4, min_index_rows=400)})
    result = segments.run(1200, queries=20, purge=0.05, seed=3, log=lambda _: None)
    before, after = result["layouts"]["before"], result["layouts"]["after"]
    assert before["status"]["segments"] == 6 and after["status"]["segments"] == 3
    assert before["indexes_at_1m"] == 5_000 and after["built"] == 3
    assert after["rebuilt_after_purge"] == 0 and after["status_after_purge"]["dirty"] == 3
    assert after["purged_rows"] == 60
    for entry in (before, after):
        for phase in ("clean", "purged"):
            assert entry[phase]["recall@10"] == pytest.approx(1.0)  # exact stand-in
            assert entry[phase]["vector_ann_p50_ms"] > 0
        assert entry["snapshot_answers_identical"]
        assert entry["snapshot_status"]["dirty"] == entry["status_after_purge"]["dirty"]
    cold = result["cold"]
    assert cold["float32"] == {"memory": 1140 * 256 * 4, "snapshot_rows": 1140 * 256 * 4,
                               "cold_rows": 0, "rows": 1140}
    assert 0 < cold["mix"]["bytes"]["cold_rows"] < 1140 == cold["all"]["bytes"]["cold_rows"]
    # A cold row: 256 bytes of codes and a 4-byte scale, in memory and in the snapshot.
    assert cold["all"]["bytes"]["memory"] == cold["all"]["bytes"]["snapshot_rows"] + 1140 * 4 \
        == 1140 * 260
    for entry in (cold["mix"], cold["all"]):
        assert entry["recall@10"] == pytest.approx(1.0)  # the stand-in, against the cold rows
        assert entry["recall@10_vs_float32"] == entry["exact_recall@10_vs_float32"] >= 0.9
        assert entry["snapshot_answers_identical"]
    assert result["all_targets_met"], result["targets"]
    assert "after" in segments.report(result)

"""Smoke tests of the benchmarks in ops/bench: the log benchmark runs end to end at a tiny N and
writes every figure; the LoCoMo scorer gives exact figures on hand-made data (including turns
reinforced into an earlier memory). The full LoCoMo run needs the shared data and is not a test."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import eventmem
from ops.bench import locomo
from ops.bench.log import generate_texts
from tests import ROOT

# -- ops.bench.log --------------------------------------------------------------------------------


pytestmark = pytest.mark.slow  # benchmarks run end to end in other processes

def _positive(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and (
        math.isfinite(value) and value > 0
    )


def test_log_benchmark_writes_every_figure(tmp_path):
    out = tmp_path / "results" / "log.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run(
        [sys.executable, "-m", "ops.bench.log", "--n", "1500", "--calls", "50",
         "--out", str(out), "--tmp", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "PASS" in proc.stdout or "MISS" in proc.stdout
    data = json.loads(out.read_text())

    assert data["params"]["n"] == 1500 and data["params"]["calls"] == 50
    machine = data["machine"]
    assert machine["cpu_count"] >= 1 and machine["python_version"].count(".") == 2
    for section, keys in {
        "bare_append": ("events_per_s", "seconds", "mean_record_bytes"),
        "bare_append_with_content": ("events_per_s", "single_txn_p50_ms"),
        "remember_many": ("memories_per_s", "seconds", "batch_ms_p50", "batch_ms_p99"),
        "remember_latency": ("p50_ms", "p99_ms", "mean_ms", "max_ms"),
        "rebuild": ("events_per_s", "seconds", "events"),
        "open": ("seconds", "close_seconds", "store_bytes"),
    }.items():
        for key in keys:
            assert _positive(data[section][key]), (section, key, data[section].get(key))
    assert data["bare_append"]["events"] == 1500
    assert data["remember_many"]["memories"] == 1500
    assert sum(data["remember_many"]["actions"].values()) == 1500
    assert data["remember_latency"]["calls"] == 50
    # every memory's decision, the embedder registration and the single calls were replayed
    # (and the events a conflict adds: flagged, resolved, superseded)
    assert data["rebuild"]["events"] >= 1 + 1500 + 50
    assert data["open"]["opened_from"].startswith("snapshot")
    assert data["open"]["from_snapshot"] is True
    assert set(data["targets"]) == {"remember_many throughput", "remember p50 latency",
                                    "rebuild throughput", "open from snapshot"}
    for target in data["targets"].values():
        assert _positive(target["value"]) and isinstance(target["pass"], bool)
    assert data["all_targets_met"] == all(t["pass"] for t in data["targets"].values())
    assert not list(tmp_path.glob("eventmem-bench-*")), "the temporary store was not removed"


def test_generated_texts_are_deterministic_and_varied():
    texts = generate_texts(3000, seed=3)
    assert texts == generate_texts(3000, seed=3)
    assert texts != generate_texts(3000, seed=4)
    assert len({t.casefold() for t in texts}) > 0.98 * len(texts)
    assert 40 < sum(map(len, texts)) / len(texts) < 200


# -- ops.bench.locomo: the metric -----------------------------------------------------------------


def _result(memory_id: str | None, action: str) -> eventmem.RememberResult:
    return eventmem.RememberResult(memory_id=memory_id, action=action, seq=1)  # type: ignore[arg-type]


def test_reinforced_turns_map_to_the_memory_they_were_folded_into():
    mapping = locomo.map_turns(
        ["D1:1", "D1:2", "D2:1", "D2:2"],
        [_result("m1", "created"), _result("m2", "created"), _result("m1", "reinforced"),
         _result(None, "rejected")],
    )
    assert mapping == {"D1:1": "m1", "D1:2": "m2", "D2:1": "m1"}
    assert locomo.turns_by_memory(mapping) == {"m1": ["D1:1", "D2:1"], "m2": ["D1:2"]}
    with pytest.raises(ValueError):
        locomo.map_turns(["D1:1"], [])


def test_score_question_counts_every_turn_a_returned_memory_covers():
    turns_of = {"m1": ["D1:1", "D2:1"], "m2": ["D1:2"], "m3": ["D1:3"]}
    returned = ["x1", "m2", "x2", "x3", "x4", "m1", "x5"]
    # D2:1 only comes back through m1 (it was reinforced into it); D5:5 never comes back;
    # a repeated evidence id counts once.
    got = locomo.score_question(["D2:1", "D1:2", "D5:5", "D1:2"], returned, turns_of, (5, 10))
    assert got == {"recall@5": 1 / 3, "any_hit@5": 1.0, "recall@10": 2 / 3, "any_hit@10": 1.0}
    assert locomo.score_question(["D1:3"], returned, turns_of, (5, 10)) == {
        "recall@5": 0.0, "any_hit@5": 0.0, "recall@10": 0.0, "any_hit@10": 0.0}
    assert locomo.score_question(["D1:1"], [], turns_of, (5,)) == {"recall@5": 0.0,
                                                                    "any_hit@5": 0.0}
    with pytest.raises(ValueError):
        locomo.score_question([], returned, turns_of, (5, 10))
    assert locomo.cutoffs_for(10) == (5, 10)
    assert locomo.cutoffs_for(3) == (3,)


def test_aggregate_is_a_macro_average_overall_and_per_category():
    rows = [
        {"category": 1, "recall@10": 1.0, "any_hit@10": 1.0},
        {"category": 1, "recall@10": 0.5, "any_hit@10": 1.0},
        {"category": 4, "recall@10": 0.0, "any_hit@10": 0.0},
        {"category": 4, "recall@10": 0.25, "any_hit@10": 1.0},
    ]
    got = locomo.aggregate(rows, (10,))
    assert got["overall"] == {"n": 4, "recall@10": 0.4375, "any_hit@10": 0.75}
    assert got["per_category"] == {
        "multi-hop": {"n": 2, "recall@10": 0.75, "any_hit@10": 1.0},
        "single-hop": {"n": 2, "recall@10": 0.125, "any_hit@10": 0.5},
    }


# -- ops.bench.locomo: a whole run on a two-conversation fixture ----------------------------------


def _turn(conv, session, dia, index, speaker, text, ts):
    return {"conv_id": conv, "session": session, "dia_id": dia, "turn_index": index,
            "speaker": speaker, "text": text, "session_date_time": "as written", "timestamp": ts}


def _write_fixture(root: Path) -> Path:
    data = root / "locomo-fixture"
    data.mkdir()
    a1, a2, a3, b1 = ("2023-05-08T13:56:00", "2023-06-01T10:00:00", "2023-07-15T18:30:00",
                      "2022-12-17T11:01:00")
    turns = [
        # conv-a, written out of order on purpose: the runner orders sessions and turns.
        _turn("conv-a", 2, "D2:2", 4, "Bob", "I started learning the violin in May.", a2),
        _turn("conv-a", 1, "D1:1", 0, "Alice", "I adopted a puppy named Biscuit yesterday!", a1),
        _turn("conv-a", 1, "D1:2", 1, "Bob", "That's wonderful, Biscuit sounds adorable.", a1),
        _turn("conv-a", 1, "D1:3", 2, "Alice", "We went hiking at Lake Tahoe last weekend.", a1),
        # the same words as D1:1 up to case and spacing: reinforced into D1:1's memory
        _turn("conv-a", 2, "D2:1", 3, "Alice", "i adopted a puppy  named BISCUIT yesterday!", a2),
        _turn("conv-a", 3, "D3:1", 5, "Alice", "Biscuit learned to fetch at the park.", a3),
        _turn("conv-b", 1, "D1:1", 0, "Carol", "My sister Dana moved to Lisbon for work.", b1),
        _turn("conv-b", 1, "D1:2", 1, "Dan", "Lisbon is lovely in the spring.", b1),
    ]
    queries = [
        {"qid": "qa0", "conv_id": "conv-a", "question": "What is the name of Alice's puppy?",
         "answer": "Biscuit", "evidence": ["D2:1"], "category": 4},
        {"qid": "qa1", "conv_id": "conv-a",
         "question": "Which instrument is Bob learning, and where did Alice go hiking?",
         "answer": "violin; Lake Tahoe", "evidence": ["D2:2", "D1:3"], "category": 1},
        {"qid": "qa2", "conv_id": "conv-a", "question": "When did Alice adopt the puppy?",
         "answer": "?", "evidence": [], "category": 2},
        {"qid": "qa3", "conv_id": "conv-a", "question": "When did Biscuit learn to fetch?",
         "answer": "July 2023", "evidence": ["D3:1", "D9:9"], "category": 2},
        {"qid": "qb0", "conv_id": "conv-b", "question": "Where did Carol's sister move?",
         "answer": "Lisbon", "evidence": ["D1:1"], "category": 5},
    ]
    for name, rows in (("turns.jsonl", turns), ("queries.jsonl", queries)):
        (data / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return data


def test_locomo_run_on_a_fixture_gives_exact_figures(tmp_path):
    data = _write_fixture(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    result = locomo.run(data, k=10, workdir=work, log=lambda line: None)

    assert result["ingest"]["actions"] == {"created": 7, "reinforced": 1}
    assert result["ingest"]["memories"] == 7
    mapping = result["turn_to_memory"]
    assert mapping["conv-a"]["D2:1"] == mapping["conv-a"]["D1:1"]
    assert len(set(mapping["conv-a"].values())) == 5
    assert result["data"]["skipped_without_evidence"] == ["qa2"]
    assert result["data"]["scored"] == 4
    assert result["data"]["evidence_turns_not_in_data"] == 1  # D9:9

    by_qid = {row["qid"]: row for row in result["questions"]}
    # The puppy memory comes back covering both turns folded into it.
    assert ["D1:1", "D2:1"] in by_qid["qa0"]["returned_turns"]
    assert by_qid["qa0"]["recall@10"] == 1.0
    assert by_qid["qa1"]["recall@10"] == 1.0
    assert by_qid["qa3"]["recall@10"] == 0.5 and by_qid["qa3"]["any_hit@10"] == 1.0
    assert by_qid["qb0"]["recall@10"] == 1.0
    # Each namespace has at most 5 memories, all sharing a word with their question: the top 5
    # already holds every evidence turn that exists.
    assert result["overall"] == {"n": 4, "recall@5": 0.875, "any_hit@5": 1.0,
                                 "recall@10": 0.875, "any_hit@10": 1.0}
    per = result["per_category"]
    assert list(per) == ["multi-hop", "temporal", "single-hop", "adversarial"]
    assert [per[c]["n"] for c in per] == [1, 1, 1, 1]
    assert per["temporal"]["recall@10"] == 0.5
    assert per["single-hop"]["recall@10"] == per["adversarial"]["recall@10"] == 1.0
    assert "overall" in locomo.report(result) and "0.540" in locomo.report(result)
    assert list(work.iterdir()) == [], "the temporary stores were not removed"


def test_locomo_timestamps_are_read_as_utc():
    when = locomo.utc_time("2023-05-08T13:56:00")
    assert when.tzinfo is not None and when.utcoffset().total_seconds() == 0
    assert (when.hour, when.minute) == (13, 56)


def test_locomo_data_dir_resolution_and_missing_data(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(locomo.ENV_VAR, raising=False)
    assert locomo.resolve_data_dir(None) == ROOT.parent / "shared" / "bench" / "locomo-dev"
    monkeypatch.setenv(locomo.ENV_VAR, str(tmp_path / "from-env"))
    assert locomo.resolve_data_dir(None) == tmp_path / "from-env"
    assert locomo.resolve_data_dir(str(tmp_path / "given")) == tmp_path / "given"
    assert locomo.main(["--data", str(tmp_path / "nowhere"), "--out",
                        str(tmp_path / "x.json")]) == 2
    assert "no LoCoMo data" in capsys.readouterr().err

"""Smoke tests of the memory-correctness benchmark (ops/bench/mc.py): its scoring on hand-made
examples (normalised-substring matching, the correct/mixed/stale/other labels, the per-question
metrics, the lost checks, the BM25 baselines), and a run on two personas of the mc-dev split,
skipped when the shared data is not next to the checkout. The full dev run is not a test."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

import eventmem
from ops.bench import mc
from tests import ROOT

DATA = mc.resolve_data_dir(None)

# -- scoring --------------------------------------------------------------------------------------


def test_normalised_substring_matching():
    assert mc.normalise("  Moved to 9pm. ") == "moved to 9pm"
    assert mc.normalise("Zürich, São Paulo!") == "zurich sao paulo"
    assert mc.contains("The flight moved to 9pm.", "9pm")
    assert not mc.contains("It leaves at 19pm", "9pm")
    assert mc.contains("I own 3 bikes now", "3 bikes")
    assert not mc.contains("I own 13 bikes now", "3 bikes")
    assert mc.contains("I moved to ZURICH", "Zürich")
    assert mc.contains("User's new title: data-analyst", "data analyst")
    assert not mc.contains("Bostonian", "Boston")
    assert not mc.contains("anything", "")
    assert not mc.contains(None, "Boston")


def test_labels_correct_mixed_stale_other():
    outdated = ["Denver", "Austin"]
    assert mc.label("I live in Lyon now.", "Lyon", outdated) == mc.CORRECT
    assert mc.label("I lived in Denver, now Lyon", "Lyon", outdated) == mc.MIXED
    assert mc.label("I live in Denver.", "Lyon", outdated) == mc.STALE
    assert mc.label("My sister prefers coffee.", "Lyon", outdated) == mc.OTHER
    assert mc.label(None, "Lyon", outdated) == mc.OTHER
    # a statement asserting the expected value is correct although it names an outdated one
    asserting = {mc.normalise("I moved from Denver to Lyon.")}
    assert mc.label("I moved from Denver to Lyon!", "Lyon", outdated, asserting) == mc.CORRECT
    assert mc.label("I moved from Denver to Lyon!", "Lyon", outdated) == mc.MIXED
    # "also": a sentence stating two facts asserts both
    statements = [
        {"text": "I work at Globex as a data analyst.", "fact_id": "employer", "value": "Globex",
         "also": [{"fact_id": "title", "value": "data analyst"}]},
        {"text": "I moved from Denver to Lyon.", "fact_id": "residence", "value": "Lyon"},
        {"text": "Thanks!", "fact_id": None, "value": None},
    ]
    table = mc.asserting_texts(statements)
    assert table[("title", "data analyst")] == {"i work at globex as a data analyst"}
    assert table[("residence", "Lyon")] == {"i moved from denver to lyon"}
    q = {"fact_id": "residence", "expected_value": "Denver", "outdated_values": ["Lyon"]}
    assert mc.label_hits(["I moved from Denver to Lyon.", "Denver it is", "Lyon", "x"], q,
                         table) == "mcso"


def test_per_question_metrics():
    assert mc.score_labels("csoo", True) == {"acc@1": 1.0, "acc@3": 1.0, "hit@10": 1.0,
                                             "stale>top": 0.0, "mixed@1": 0.0, "empty": 0.0}
    got = mc.score_labels("soc", True)
    assert (got["acc@1"], got["acc@3"], got["stale>top"]) == (0.0, 1.0, 1.0)
    got = mc.score_labels("mooooooooos", True)  # a stale hit and no correct one
    assert got["mixed@1"] == 1.0 and got["stale>top"] == 1.0 and got["hit@10"] == 0.0
    got = mc.score_labels("ooooooooooc", False)  # an 11th hit is past k
    assert got["hit@10"] == 0.0 and got["stale>top"] is None
    assert mc.score_labels("", True) == {"acc@1": 0.0, "acc@3": 0.0, "hit@10": 0.0,
                                         "stale>top": 0.0, "mixed@1": 0.0, "empty": 1.0}


def test_aggregate_types_late_subset_and_overall():
    rows = [
        {"type": "current", "late": True, "has_outdated": True, "sys": "c"},
        {"type": "current", "late": False, "has_outdated": True, "sys": "sc"},
        {"type": "past", "late": False, "has_outdated": True, "sys": "oc"},
        {"type": "past_as_of", "late": False, "has_outdated": True, "sys": ""},
        {"type": "stable", "late": False, "has_outdated": False, "sys": "s"},
        {"type": "plan", "late": False, "has_outdated": True, "sys": "c"},
        {"type": "plan", "late": False, "has_outdated": True},  # not scored for "sys"
    ]
    got = mc.aggregate(rows, "sys")
    assert got["current"]["n"] == 2 and got["current"]["acc@1"] == 0.5
    assert got["current"]["stale>top"] == 0.5 and got["current"]["acc@3"] == 1.0
    assert got["current_late"]["n"] == 1 and got["current_late"]["acc@1"] == 1.0
    assert got["stable"]["stale>top"] is None and got["stable"]["n_outdated"] == 0
    assert got["past_as_of"]["empty"] == 1.0
    assert got["plan"]["n"] == 1
    overall = got["overall"]
    assert overall["n"] == 6 and overall["acc@1"] == pytest.approx(2 / 6)
    assert overall["n_outdated"] == 5 and overall["stale>top"] == pytest.approx(1 / 5)


def _memory(text, status, valid_until=None):
    at = datetime(2025, 1, 1, tzinfo=UTC)
    return eventmem.Memory(
        memory_id="m", namespace="ns", text=text, kind="fact", status=status, tier="episodic",
        importance=0.5, utility=0.5, stability=1.0, access_count=0, pinned=False,
        immutable=False, retention=1.0, storage_strength=0, valid_from=None,
        valid_until=valid_until, source="user", confidence=1.0, created_at=at,
        last_access_at=at)


def test_lost_check_gone_hidden_latest_and_past():
    at = datetime(2025, 8, 1, tzinfo=UTC)
    latest = {"expected_value": "Lyon", "expect_visible": True}
    past = {"expected_value": "Lyon", "expect_visible": False, "valid_at": "2025-03-01"}
    done = {"expected_value": "passport", "expect_visible": False, "plan_state": "done"}
    assert mc.lost_check([_memory("I live in Denver", "active")], latest, at) == {
        "gone": True, "hidden": False}
    assert mc.lost_check([_memory("I moved to Lyon", "active")], latest, at)["hidden"] is False
    assert mc.lost_check([_memory("I moved to Lyon", "archived")], latest, at)["hidden"] is True
    assert mc.lost_check([_memory("I moved to Lyon", "superseded")], latest, at)["hidden"]
    closed = _memory("I moved to Lyon", "active", valid_until=at - timedelta(days=1))
    assert mc.lost_check([closed], latest, at)["hidden"] is True
    assert mc.lost_check([closed, _memory("Lyon!", "stale")], latest, at)["hidden"] is False
    assert mc.lost_check([_memory("I moved to Lyon", "superseded")], past, at)["hidden"] is False
    assert mc.lost_check([_memory("I moved to Lyon", "deleted")], past, at)["hidden"] is True
    assert mc.lost_check([_memory("Renewed my passport", "purged")], done, at) == {
        "gone": False, "hidden": False}
    assert mc.lost_check([_memory(None, "erased")], done, at)["gone"] is True
    assert mc.lost_group(latest) == "latest" and mc.lost_group(done) == "past"


# -- baselines ------------------------------------------------------------------------------------


def test_tokenizer_drops_function_words_and_strips_suffixes():
    assert mc.tokenize("Where do I live?") == ["liv"]
    assert mc.tokenize("She lives in Lyon; he moved, they're moving.") == [
        "liv", "lyon", "mov", "mov"]
    assert mc.stem("bikes") == mc.stem("bike") == "bik"
    assert mc.stem("glass") == "glass" and mc.stem("has") == "has"


def test_bm25_matches_rank_bm25_okapi_on_a_small_corpus():
    docs = [Counter(d) for d in (["a", "b"], ["a", "c", "c"], ["a"], ["d"])]
    lengths = [2, 3, 1, 1]
    scores = mc.bm25_scores(docs, lengths, ["c", "a"])
    # by hand: N 4, avgdl 1.75; idf(c) = ln(3.5 / 1.5); idf(a) = ln(1.5 / 3.5) < 0 -> 0.25 x
    # the mean idf over a, b, c, d
    idf_c, idf_b = math.log(3.5 / 1.5), math.log(3.5 / 1.5)
    idf_a, idf_d = math.log(1.5 / 3.5), math.log(3.5 / 1.5)
    floor = 0.25 * (idf_a + idf_b + idf_c + idf_d) / 4

    def term(f, length):
        return f * 2.5 / (f + 1.5 * (0.25 + 0.75 * length / 1.75))

    assert scores[1] == pytest.approx(idf_c * term(2, 3) + floor * term(1, 3))
    assert scores[0] == pytest.approx(floor * term(1, 2))
    assert scores[3] == 0.0


def _statement(i, text, day):
    return {"id": f"p:{i:03d}", "at": f"2025-03-{day:02d}T10:00:00+00:00", "text": text}


def test_baseline_rankings_newest_first_and_past_cutoff():
    corpus = mc.Corpus([
        _statement(0, "I live in Denver.", 1),
        _statement(1, "My friend still lives in Boston.", 2),
        _statement(2, "I now live in Lyon.", 10),
        _statement(3, "I like tea.", 11),
    ])
    end = datetime(2025, 3, 31, tzinfo=UTC)
    # BM25: "lives" and "live" both score; the tie goes to the newest; k statements always
    assert corpus.bm25("Where do I live?", end)[:1] == [2]
    assert len(corpus.bm25("Where do I live?", end)) == 4
    assert corpus.bm25_recency("Where do I live?", end)[:3] == [2, 1, 0]
    # a past question: the good statements said at or before T first, newest first
    t = datetime(2025, 3, 5, tzinfo=UTC)
    assert corpus.bm25_recency("Where do I live?", end, valid_at=t)[:3] == [1, 0, 2]
    # past_as_of sees only the statements said up to T
    assert sorted(corpus.bm25("Where do I live?", t)) == [0, 1]
    assert corpus.bm25("anything", datetime(2025, 2, 1, tzinfo=UTC)) == []


def test_consolidation_schedule():
    start = datetime(2025, 2, 1, 16, 12, tzinfo=UTC)
    assert mc.first_consolidation(start) == datetime(2025, 2, 2, 3, tzinfo=UTC)
    early = datetime(2025, 2, 1, 1, 0, tzinfo=UTC)
    assert mc.first_consolidation(early) == datetime(2025, 2, 1, 3, tzinfo=UTC)


# -- a run on two personas ------------------------------------------------------------------------


def _rate(value: object) -> bool:
    return isinstance(value, float) and 0.0 <= value <= 1.0


@pytest.mark.slow  # runs the benchmark in another process
def test_mc_benchmark_on_two_personas(tmp_path):
    if not (DATA / "scenarios.jsonl").is_file() or not (DATA / "questions.jsonl").is_file():
        pytest.skip(f"no mc-dev data at {DATA}")
    out = tmp_path / "mc.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run(
        [sys.executable, "-m", "ops.bench.mc", "--personas", "2", "--cadence", "weekly",
         "--out", str(out), "--data", str(DATA), "--tmp", str(tmp_path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "[2/2]" in proc.stderr
    for word in ("current_late", "past_as_of", "overall", "BM25+recency", "latest/stable",
                 "found@10"):
        assert word in proc.stdout
    data = json.loads(out.read_text())
    assert data["params"]["personas"] == 2 and data["params"]["cadence"] == "weekly"
    assert set(data["results"]) == set(data["lost"]) == {"eventmem", "bm25", "bm25_recency"}
    for system, per_type in data["results"].items():
        assert list(per_type) == list(mc.RECALL_TYPES)
        for kind, figures in per_type.items():
            assert figures["n"] > 0, (system, kind)
            for metric in mc.METRICS:
                value = figures[metric]
                if metric == "stale>top" and figures["n_outdated"] == 0:
                    assert value is None
                else:
                    assert _rate(value), (system, kind, metric, value)
    for system, groups in data["lost"].items():
        for group in mc.LOST_GROUPS:
            figures = groups[group]
            assert figures["n"] > 0
            for metric in mc.LOST_METRICS:
                assert _rate(figures[metric]), (system, group, metric)
            assert figures["lost"] == pytest.approx(figures["gone"] + figures["hidden"])
            if system != "eventmem":
                assert figures["gone"] == figures["hidden"] == figures["lost"] == 0.0
    overall = data["results"]["eventmem"]["overall"]
    assert overall["n"] == sum(data["results"]["eventmem"][t]["n"] for t in mc.OVERALL_OF)
    assert data["results"]["eventmem"]["past"]["n"] == data["results"]["eventmem"][
        "past_as_of"]["n"]
    assert data["engine"]["consolidations"] > 0
    assert not list(tmp_path.glob("eventmem-mc-*"))


def test_mc_data_dir_resolution_and_missing_data(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(mc.ENV_VAR, raising=False)
    assert mc.resolve_data_dir(None) == ROOT.parent / "shared" / "bench" / "mc-dev"
    monkeypatch.setenv(mc.ENV_VAR, str(tmp_path / "from-env"))
    assert mc.resolve_data_dir(None) == tmp_path / "from-env"
    assert mc.resolve_data_dir(str(tmp_path / "given")) == tmp_path / "given"
    assert mc.main(["--data", str(tmp_path / "nowhere"), "--out", str(tmp_path / "x.json")]) == 2
    assert "no mc data" in capsys.readouterr().err

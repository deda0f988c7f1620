"""The everyday phrasings benchmark (ops/bench/phrasings.py): its cases file reads, a bad line is
a clear error, and a small file of its three forms runs and is scored."""

from __future__ import annotations

from pathlib import Path

import pytest

from ops.bench import phrasings


def test_the_shipped_cases_read_into_their_rounds():
    sections = phrasings.load(phrasings.CASES)
    assert len(sections) >= 5
    assert all(s.changes or s.plans or s.asked for s in sections)
    assert all(len(case) >= 3 for s in sections for case in s.changes)


def test_a_line_of_no_form_is_an_error(tmp_path: Path):
    cases = tmp_path / "cases.txt"
    cases.write_text("## one\nchange: I live in Oslo. || Where do I live?\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cases\.txt:2"):
        phrasings.load(cases)


def test_each_form_runs_and_is_scored(tmp_path: Path):
    cases = tmp_path / "cases.txt"
    cases.write_text(
        "## small\n"
        "change: I live in Oslo. || We moved to Bergen. || Where do I live? || Bergen\n"
        "change: I live in Oslo. || We moved to Bergen. || Where do I live? || Tromsø\n"
        "plan: I need to renew my passport by May 1. || Renewed my passport today. || "
        "I have to call the plumber about the boiler before December.\n"
        "store: I drive a Kia Rio.\n"
        "ask: What car do I drive? || Kia\n", encoding="utf-8")
    result = phrasings.run(cases)
    assert (result["cases"], result["right"]) == (4, 3)
    [section] = result["sections"]
    assert [w["words"] for w in section["wrong"]] == ["Tromsø"]
    assert "small" in phrasings.report(result)

"""The rephrased copy of the mc-dev split (ops/bench/mcphrase.py): its gold stays consistent (every
value in the texts that assert it, slips naming no value of the persona, facts and questions
dev's but for their wording), it is deterministic per seed, and its date phrases name the day of
the statement's valid_from. Run on a slice of the split, skipped when the shared data is not
next to the checkout."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ops.bench import mc, mcphrase
from ops.bench.common import read_jsonl, utc_time
from tests import ROOT

DATA = mc.resolve_data_dir(None)
needs_data = pytest.mark.skipif(not (DATA / "scenarios.jsonl").exists(),
                                reason="the mc-dev split is not next to the checkout")


def _slice(n: int = 4) -> tuple[list[dict], list[dict]]:
    personas = read_jsonl(DATA / "scenarios.jsonl")[:n]
    names = {p["namespace"] for p in personas}
    questions = [q for q in read_jsonl(DATA / "questions.jsonl") if q["namespace"] in names]
    return personas, questions


@needs_data
@pytest.mark.parametrize("seed", [1, 2])
def test_gold_stays_consistent(seed: int) -> None:
    personas, questions = _slice()
    new_personas, new_questions = mcphrase.rephrase(personas, questions, seed)
    changed = 0
    for old, new in zip(personas, new_personas, strict=True):
        assert new["facts"] == old["facts"]
        own = {str(v["value"]) for f in old["facts"] for v in f["versions"] if v["value"]}
        by_id = {s["id"]: s for s in new["statements"]}
        times = [utc_time(s["at"]) for s in new["statements"]]
        assert times == sorted(times)
        for said in old["statements"]:
            got = by_id[said["id"]]
            assert {k: v for k, v in got.items() if k != "text"} == \
                {k: v for k, v in said.items() if k != "text"}
            changed += got["text"] != said["text"]
            for value in [said.get("value")] + [a["value"] for a in said.get("also") or ()]:
                if value is not None:
                    assert mc.contains(got["text"], value), (got["text"], value)
            if said.get("fact_id") is None:
                assert got["text"] == said["text"]  # distractors are dev's
        slips = [s for s in new["statements"] if s["kind"] == mcphrase.RETRACTED]
        for slip in slips:
            assert slip["fact_id"] is None and slip["value"] is None
            assert not any(mc.contains(slip["text"], value) for value in own)
            corrected = by_id[slip["id"].removesuffix("-slip")]
            assert utc_time(corrected["at"]) - utc_time(slip["at"]) == timedelta(seconds=30)
        assert len(new["statements"]) == len(old["statements"]) + len(slips)
    assert changed > 0
    asked = 0
    for old_q, new_q in zip(questions, new_questions, strict=True):
        assert {k: v for k, v in new_q.items() if k != "question"} == \
            {k: v for k, v in old_q.items() if k != "question"}
        asked += new_q["question"] != old_q["question"]
    assert asked > 0


@needs_data
def test_slips_are_made_and_every_correction_marker_is_used() -> None:
    personas, questions = _slice(30)
    new_personas, _ = mcphrase.rephrase(personas, questions, 1)
    kinds = [s["kind"] for p in new_personas for s in p["statements"]]
    assert kinds.count(mcphrase.RETRACTED) > 20
    texts = " ".join(s["text"] for p in new_personas for s in p["statements"])
    for marker in ("Sorry, I misspoke earlier", "Correction:", "No wait", "scratch that"):
        assert marker in texts


@needs_data
def test_same_seed_same_files_other_seed_other_words(tmp_path) -> None:
    def run(seed: int, out: str) -> str:
        subprocess.run([sys.executable, "-m", "ops.bench.mcphrase", "--out", str(tmp_path / out),
                        "--seed", str(seed)], cwd=ROOT, check=True, capture_output=True)
        return (tmp_path / out / "scenarios.jsonl").read_text(encoding="utf-8")

    first = run(3, "a")
    assert run(3, "b") == first
    assert run(4, "c") != first
    assert (tmp_path / "a" / "README.md").exists()
    assert len(read_jsonl(tmp_path / "a" / "questions.jsonl")) == \
        len(read_jsonl(DATA / "questions.jsonl"))


def _day_named(phrase: str, at: datetime) -> datetime | None:
    """The day a date phrase of mcphrase names, read back by hand (the test's own reading)."""
    words = phrase.split()
    last = words[-1]
    if last in ("today",):
        return at
    if last == "yesterday":
        return at - timedelta(days=1)
    if last == "ago":
        n = {v: k for k, v in mcphrase.NUMBER_WORDS.items()}[words[-3]]
        return at - timedelta(days=n)
    if last in mcphrase.WEEKDAYS:
        back = (at.weekday() - mcphrase.WEEKDAYS.index(last)) % 7
        return at - timedelta(days=back or 7)
    if "/" in last:
        month, day = map(int, last.split("/"))
        return at.replace(month=month, day=day)
    if last in mcphrase.MONTHS:  # "the 5th of March"
        return at.replace(month=mcphrase.MONTHS.index(last) + 1, day=int(words[-3][:-2]))
    return at.replace(month=mcphrase.MONTHS.index(words[-2]) + 1, day=int(last[:-2]))


@given(st.datetimes(min_value=datetime(2025, 1, 8), max_value=datetime(2025, 12, 20)),
       st.integers(0, 6), st.sampled_from(["state", "change"]), st.integers(0, 1000))
def test_a_date_phrase_names_the_valid_from_day(at: datetime, back: int, mode: str,
                                                seed: int) -> None:
    at = at.replace(tzinfo=UTC)
    day = (at - timedelta(days=back)).replace(hour=0, minute=0, second=0, microsecond=0)
    phrase = mcphrase.date_phrase(at, day, mode, mcphrase.rng_for(seed, "x"))
    named = _day_named(phrase, at)
    assert named is not None and named.date() == day.date(), phrase


def test_a_month_is_asked_only_when_the_answer_held_all_of_it() -> None:
    fact = {"versions": [{"value": "Osaka", "valid_from": "2025-01-10T00:00:00+00:00"},
                         {"value": "Lyon", "valid_from": "2025-03-12T00:00:00+00:00"}]}
    assert mcphrase.month_whole(fact, datetime(2025, 2, 20, tzinfo=UTC))
    assert not mcphrase.month_whole(fact, datetime(2025, 3, 5, tzinfo=UTC))
    assert not mcphrase.month_whole(fact, datetime(2025, 1, 20, tzinfo=UTC))

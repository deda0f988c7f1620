"""The shifted mc split (ops/bench/mcshift.py): the replacement on hand-made texts, and a shift of
a slice of mc-dev checked for consistency (no dev entity left, every value still where the gold
says it is, the same seed the same files). The slice tests are skipped when the shared data is
not next to the checkout."""

from __future__ import annotations

import json
import re

import pytest

from ops.bench import mc, mcshift
from ops.bench.common import read_jsonl

DATA = mc.resolve_data_dir(None)
HAVE_DATA = (DATA / "scenarios.jsonl").is_file() and (DATA / "questions.jsonl").is_file()
needs_data = pytest.mark.skipif(not HAVE_DATA, reason=f"no mc-dev data at {DATA}")


def test_replacement_is_whole_word_longest_first_and_one_pass():
    shifter = mcshift.Shifter({"Pied Piper": "Hartley & Finch", "Piper": "Rose",
                               "Rose": "Will", "June": "Hope", "tea": "matcha",
                               "Acme": "Brightwater Inc."})
    assert shifter.text("I work at Pied Piper.") == "I work at Hartley & Finch."
    # one pass: "Piper" becomes "Rose", and that "Rose" is not made "Will"
    assert shifter.text("Piper met Rose.") == "Rose met Will."
    assert shifter.text("Pipers and teatime") == "Pipers and teatime"  # whole words only
    assert shifter.text("Tea over coffee; tea again") == "Matcha over coffee; matcha again"
    # a name that is also a month is left alone in a date
    assert shifter.text("June moved on June 26, 2025.") == "Hope moved on June 26, 2025."
    assert shifter.text("I work at Acme.") == "I work at Brightwater Inc."
    assert shifter.value({"fact_id": "tea", "value": "tea", "also": [{"value": "June"}]}) == {
        "fact_id": "tea", "value": "matcha", "also": [{"value": "Hope"}]}


def test_pools_hold_the_hard_cases_the_shift_is_for():
    for name in ("Anne-Marie", "Zoë", "José", "Will", "Rose", "Hope"):
        assert name in mcshift.PEOPLE
    for city in ("San Sebastián", "Rio de Janeiro", "Ho Chi Minh City", "Kraków", "Zürich"):
        assert city in mcshift.CITIES
    assert any("&" in e for e in mcshift.EMPLOYERS)
    assert any(e.endswith("Inc.") for e in mcshift.EMPLOYERS)
    for pool in (mcshift.PEOPLE, mcshift.CITIES, mcshift.EMPLOYERS, mcshift.TITLES):
        assert len(set(pool)) == len(pool)


def test_times_keep_the_hour_and_weekdays_all_move():
    import random
    times = mcshift._times(["6am", "6pm", "10am", "12pm"], random.Random(3))
    assert len(set(times.values())) == 4
    for dev, new in times.items():
        hour = int(dev[:-2]) % 12 + (12 if dev.endswith("pm") else 0)
        m = re.fullmatch(r"(\d{1,2}):(\d{2})(am|pm)?", new)
        assert m is not None, new
        got = int(m.group(1)) if m.group(3) is None else (
            int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0))
        assert got == hour and m.group(2) != "00"
    days = mcshift._derangement(mcshift.WEEKDAYS, random.Random(1))
    assert sorted(days) == sorted(mcshift.WEEKDAYS)
    assert all(a != b for a, b in zip(mcshift.WEEKDAYS, days, strict=True))


@pytest.fixture(scope="module")
def dev():
    personas = read_jsonl(DATA / "scenarios.jsonl")
    questions = read_jsonl(DATA / "questions.jsonl")
    return personas, questions, mcshift.dev_lexicon(personas, questions)


def _strings(value, key=None):
    """Every string of a record that can hold an entity."""
    if key in mcshift._STRUCTURAL:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for x in value:
            yield from _strings(x)
    elif isinstance(value, dict):
        for k, x in value.items():
            yield from _strings(x, k)


@needs_data
def test_the_lexicon_finds_distractor_only_names_and_places(dev):
    _, _, lex = dev
    people, cities = lex.kinds["person"], lex.kinds["city"]
    # names only distractors use: mid-sentence, a possessive opening a sentence, a month name
    for name in ("Mateo", "Tomasz", "June"):
        assert name in people
    assert "Auckland" in cities
    assert not {"What", "Assistant", "Spanish", "Since", "Heads"} & (set(people) | set(cities))
    assert not set(mcshift.PEOPLE + mcshift.CITIES + mcshift.EMPLOYERS) & lex.all()


@needs_data
@pytest.mark.parametrize("seed", [1, 7])
def test_a_shifted_slice_is_consistent_and_keeps_no_dev_entity(dev, seed):
    personas, questions, lex = dev
    shifted, shifted_q, table = mcshift.shift(personas[:4], questions, seed, lex)
    assert len(shifted) == 4 and shifted_q
    assert len(set(table.values())) == len(table)
    survivors = [e for e in lex.all() - set(mcshift.WEEKDAYS)
                 if e not in mcshift.MONTHS]  # "June" the month stays in dates
    pattern = re.compile(r"(?<![\w-])(?:" + "|".join(
        re.escape(e) for e in sorted(survivors, key=len, reverse=True)) + r")(?![\w-])")
    for record in [*shifted, *shifted_q]:
        for s in _strings(record):
            hit = pattern.search(s)
            assert hit is None, (hit.group() if hit else None, s)
    june = re.compile(r"\bJune\b(?!\s+\d)")
    assert not any(june.search(s) for r in [*shifted, *shifted_q] for s in _strings(r))

    namespaces = {p["namespace"] for p in shifted}
    assert {q["namespace"] for q in shifted_q} == namespaces
    for before, after in zip(personas[:4], shifted, strict=True):
        assert len(before["statements"]) == len(after["statements"])
        assert after["name"] == table[before["name"]]
        for st0, st in zip(before["statements"], after["statements"], strict=True):
            assert (st0["at"], st0["kind"], st0["fact_id"]) == (st["at"], st["kind"], st["fact_id"])
            # a value its dev statement spelled out is still spelled out
            for v0, v in [(st0.get("value"), st.get("value"))] + [
                    (a0["value"], a["value"]) for a0, a in zip(
                        st0.get("also") or (), st.get("also") or (), strict=True)]:
                if v0 is not None and mc.contains(st0["text"], v0):
                    assert mc.contains(st["text"], v), (st["text"], v)
        gold = {(f["fact_id"], v["value"]) for f in after["facts"] for v in f["versions"]
                if v.get("value") is not None}
        said = {(st["fact_id"], st["value"]) for st in after["statements"] if st["value"]}
        assert said <= gold
    texts: dict[str, list[str]] = {}
    for p in shifted:
        texts[p["namespace"]] = [st["text"] for st in p["statements"]]
    for q in shifted_q:
        # every expected value is still in some statement of its persona
        assert any(mc.contains(t, q["expected_value"]) for t in texts[q["namespace"]]), q
        assert len(q["outdated_values"]) == len(set(q["outdated_values"]))


@needs_data
def test_the_same_seed_writes_the_same_files(tmp_path):
    for name in ("a", "b", "c"):
        seed = "2" if name != "c" else "3"
        assert mcshift.main(["--out", str(tmp_path / name), "--seed", seed, "--personas", "2",
                             "--data", str(DATA)]) == 0
    for f in ("scenarios.jsonl", "questions.jsonl", "README.md"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    assert (tmp_path / "a" / "scenarios.jsonl").read_bytes() != (
        tmp_path / "c" / "scenarios.jsonl").read_bytes()
    first = json.loads((tmp_path / "a" / "scenarios.jsonl").read_text().splitlines()[0])
    assert first["split"] == "shift-2" and first["namespace"].startswith("shift2-000-")
    # the benchmark reads it
    personas, questions = mc.load(tmp_path / "a")
    assert len(personas) == 2 and set(questions) == {p["namespace"] for p in personas}


def test_missing_data(tmp_path, capsys):
    assert mcshift.main(["--out", str(tmp_path / "o"), "--data", str(tmp_path / "none")]) == 2
    assert "no mc data" in capsys.readouterr().err

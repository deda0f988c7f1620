"""The context builder (eventmem/recall/context.py): detail gated by confidence, the whole text kept
to its budget (line breaks included), no summary line twice, and ``context()`` as a recorded
recall."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.errors import InvalidInputError
from eventmem.recall.context import build_context, estimate_tokens, summary_line
from eventmem.results import Hit

DAY = timedelta(days=1)


# -- the context builder -------------------------------------------------------------------------


def hit(mid: str, text: str, relevance: float) -> Hit:
    return Hit(memory_id=mid, text=text, score=relevance, signals={"relevance": relevance},
               kind="event", created_at=datetime(2025, 5, 1, tzinfo=UTC))


def test_context_gates_detail_by_confidence() -> None:
    hits = [hit("a", "Alice moved to Berlin in March. She loves it.", 0.9),
            hit("b", "Alice's sister lives in Toronto. She visits every summer.", 0.6),
            hit("c", "Bob likes jazz", 0.2)]
    text = build_context(hits, budget_tokens=500)
    assert text.splitlines() == [
        "[1] Alice moved to Berlin in March. She loves it.",
        "    (event, recorded 2025-05-01, relevance 0.90, id a)",
        "- Alice's sister lives in Toronto.",
    ]
    assert build_context(hits[2:]) == ""


def test_context_keeps_to_its_budget() -> None:
    hits = [hit(f"m{i}", "word " * 40, 0.9 - i * 0.01) for i in range(10)]
    text = build_context(hits, budget_tokens=120)
    assert estimate_tokens(text) <= 120 + text.count("\n")
    assert text.count("[") >= 1
    # a strong hit too long for what is left goes in as its summary line
    small = build_context(hits[:1], budget_tokens=40)
    assert small.startswith("- word word")


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=200), st.floats(0, 1)), max_size=12),
       st.integers(1, 400))
def test_context_entries_fit_the_budget(items, budget) -> None:
    hits = [hit(f"m{i}", text, rel) for i, (text, rel) in enumerate(items)]
    text = build_context(hits, budget_tokens=budget)
    assert text == build_context(hits, budget_tokens=budget)  # deterministic
    entries = [e for e in text.split("\n- ") if e]
    assert sum(estimate_tokens(e) for e in entries) <= budget + 2 * len(entries)


def test_summary_line() -> None:
    assert summary_line("First sentence. Second one.") == "First sentence."
    long = "word " * 100
    assert len(summary_line(long)) <= 120 and summary_line(long).endswith("…")


def test_reader_context_is_a_recorded_recall(mem: eventmem.Engine) -> None:
    mem.remember("Alice moved to Berlin in March", namespace="x")
    mem.clock.advance(DAY)  # type: ignore[attr-defined]
    mem.remember("Bob likes jazz", namespace="x")
    seq = mem.seq
    text = mem.context("where did Alice move", namespace="x", budget_tokens=200)
    assert "Alice moved to Berlin in March" in text and "jazz" not in text
    assert mem.seq == seq + 1
    with pytest.raises(InvalidInputError):
        mem.context("Alice", namespace="x", budget_tokens=0)
    assert mem.as_of(seq=mem.seq).context("thanks!", namespace="x") == ""


# -- context(): the budget is the whole text's -------------------------------------------------


def test_context_text_fits_its_budget_with_the_line_breaks_between_entries() -> None:
    # Each summary "- abcde0" costs 2 tokens alone; the newlines joining them cost too.
    hits = [hit(f"m{i}", f"abcde{i}", 0.6) for i in range(5)]
    for budget in range(1, 14):
        assert estimate_tokens(build_context(hits, budget_tokens=budget)) <= budget


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=120), st.floats(0, 1)), max_size=10),
       st.integers(1, 300))
def test_context_never_exceeds_its_budget(items: list[tuple[str, float]], budget: int) -> None:
    hits = [hit(f"m{i}", text, rel) for i, (text, rel) in enumerate(items)]
    text = build_context(hits, budget_tokens=budget)
    assert text == "" or estimate_tokens(text) <= budget


def test_context_does_not_repeat_a_summary_line() -> None:
    hits = [hit("a", "Alice moved to Berlin. She loves the food.", 0.6),
            hit("b", "Alice moved to Berlin. She hates the weather.", 0.55),
            hit("c", "Bob plays chess.", 0.5)]
    assert build_context(hits, budget_tokens=500).splitlines() == [
        "- Alice moved to Berlin.", "- Bob plays chess."]


def test_context_of_an_empty_store_is_empty(mem: eventmem.Engine) -> None:
    assert mem.context("where does Alice live", namespace="nobody") == ""

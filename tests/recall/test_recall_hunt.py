"""The read API at its edges (recall, context, get, the graph): the bugs a hunt found, each pinned
by the test that caught it, plus the edges that held and are not covered elsewhere."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.clock import from_micros, to_micros
from eventmem.errors import InvalidInputError
from eventmem.recall.context import build_context, estimate_tokens
from eventmem.results import Hit
from eventmem.text.timeexpr import TimeRange, find_time

DAY = timedelta(days=1)


def hit(mid: str, text: str, relevance: float) -> Hit:
    return Hit(memory_id=mid, text=text, score=relevance, signals={"relevance": relevance},
               kind="event", created_at=datetime(2025, 5, 1, tzinfo=UTC))


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


# -- recall(valid_at=T): what was true then ranks as a fact, not as a hidden memory -------------


def test_a_fact_true_at_valid_at_is_not_ranked_down_for_being_superseded_since(
        mem: eventmem.Engine, clock: eventmem.ManualClock, t0: datetime) -> None:
    oslo = mem.remember("Bob lives in Oslo", namespace="a").memory_id
    clock.advance(timedelta(hours=1))
    mem.remember("Bob's sister Eva lives in Bergen", namespace="a")
    mem.remember("Bob likes skiing in Norway", namespace="a")
    clock.advance(30 * DAY)
    assert mem.remember("Bob moved to Paris", namespace="a").action == "superseded"
    then = t0 + 2 * DAY
    hits = mem.recall("where does Bob live", namespace="a", valid_at=then, k=3)
    # The store as it stood then gives the same first answer: it was the fact then.
    known_then = mem.as_of(at=then).recall("where does Bob live", namespace="a", k=3)
    assert known_then[0].memory_id == oslo
    assert hits[0].memory_id == oslo and hits[0].signals["status_weight"] == 1.0
    # Without valid_at it is hidden, and with include_hidden it still weighs as hidden.
    assert oslo not in [h.memory_id for h in mem.recall("where does Bob live", namespace="a")]
    hidden = mem.recall("where does Bob live", namespace="a", include_hidden=True, k=5)
    assert next(h for h in hidden if h.memory_id == oslo).signals["status_weight"] == 0.25


# -- the recall cache hands out copies ---------------------------------------------------------


def test_editing_a_hits_signals_does_not_change_the_next_answer(
        mem: eventmem.Engine) -> None:
    mem.remember("Bob lives in Oslo", namespace="a")
    view = mem.as_of(seq=mem.seq)
    first = view.recall("Bob", namespace="a")
    expected = dict(first[0].signals)
    first[0].signals.clear()
    again = view.recall("Bob", namespace="a")
    assert again[0].signals == expected
    again[0].signals["score"] = -1.0
    assert view.recall("Bob", namespace="a")[0].signals == expected


# -- time expressions: a leap day without a year is the latest one -----------------------------


@pytest.mark.parametrize("now,year", [
    (datetime(2025, 3, 1, tzinfo=UTC), 2024),   # the year after a leap year, after February
    (datetime(2025, 12, 31, tzinfo=UTC), 2024),
    (datetime(2028, 2, 28, tzinfo=UTC), 2024),  # before this year's has come
    (datetime(2028, 2, 29, 9, tzinfo=UTC), 2028),  # on the day itself
    (datetime(2101, 1, 1, tzinfo=UTC), 2096),   # 2100 is not a leap year
])
@pytest.mark.parametrize("text", ["what did I do on 29 February", "February 29th"])
def test_a_leap_day_without_a_year_is_the_latest_leap_day(now: datetime, year: int,
                                                          text: str) -> None:
    found = find_time(text, to_micros(now))
    assert isinstance(found, TimeRange)
    assert (from_micros(found.start), from_micros(found.end)) == (
        datetime(year, 2, 29, tzinfo=UTC), datetime(year, 3, 1, tzinfo=UTC))


# -- the graph API refuses what it cannot answer ------------------------------------------------


@pytest.fixture
def people(mem: eventmem.Engine) -> eventmem.Engine:
    mem.remember("Alice works at Acme and lives in Berlin", namespace="a")
    mem.remember("Alice is friends with Bob", namespace="a")
    mem.remember("Bob manages Carol", namespace="a")
    return mem


@pytest.mark.parametrize("kwargs,match", [
    ({"hops": 2.5}, "hops must be"), ({"hops": "2"}, "hops must be"),
    ({"hops": -1}, "hops must be"), ({"hops": True}, "hops must be"),
    ({"limit": None}, "limit must be"), ({"limit": -1}, "limit must be"),
    ({"limit": 1.5}, "limit must be"),
    ({"relation_types": "friend_of"}, "relation_types must be"),
    ({"entity_types": "person"}, "entity_types must be"),
    ({"entity_types": [5]}, "entity_types must be"),
])
def test_neighbors_refuses_bad_arguments(people: eventmem.Engine, kwargs: dict[str, Any],
                                         match: str) -> None:
    with pytest.raises(InvalidInputError, match=match):
        people.graph.neighbors("Alice", namespace="a", **kwargs)


@pytest.mark.parametrize("call", ["entity", "neighbors", "memories", "entities", "links"])
@pytest.mark.parametrize("namespace", [None, 5, ""])
def test_the_graph_refuses_a_bad_namespace_as_recall_does(people: eventmem.Engine, call: str,
                                                         namespace: Any) -> None:
    graph = people.graph
    calls = {"entity": lambda: graph.entity("Alice", namespace=namespace),
             "neighbors": lambda: graph.neighbors("Alice", namespace=namespace),
             "memories": lambda: graph.memories("Alice", namespace=namespace),
             "entities": lambda: graph.entities(namespace=namespace),
             "links": lambda: graph.links("mem_x", namespace=namespace)}
    with pytest.raises(InvalidInputError, match="namespace must be a non-empty str"):
        calls[call]()


def test_neighbors_at_the_edges_that_hold(people: eventmem.Engine) -> None:
    graph = people.graph
    assert graph.neighbors("Alice", namespace="a", hops=0) == []
    one = [(n.key, n.hops) for n in graph.neighbors("alice", namespace="a", hops=1)]
    assert sorted(one) == [("acme", 1), ("berlin", 1), ("bob", 1)]
    far = graph.neighbors("ALICE's", namespace="a", hops=5)
    assert [(n.key, n.hops) for n in far if n.hops > 1] == [("carol", 2)]
    assert graph.neighbors("Alice", namespace="a", limit=0) == []
    assert [n.key for n in graph.neighbors("Alice", namespace="a",
                                           relation_types=("friend_of",))] == ["bob"]


# -- recall inputs that hold (not covered by test_bad_input) -----------------------------------


def test_recall_at_its_input_edges(mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    for text in ["Alice moved to Berlin in March", "東京に住んでいます", "مرحبا بالعالم",
                 "café au lait is nice", "Bob likes green tea"]:
        clock.advance(timedelta(hours=1))
        mem.remember(text, namespace="a")
    for query in ["???", "😀", "\u200b", "the a of", "東京", "مرحبا", "cafe\u0301",
                  "x" * 4000, "tea " * 1001, "in 10000 BC", "99999 days ago",
                  "999999999 weeks before the trip"]:
        hits = mem.recall(query, namespace="a", k=1000)
        assert len({h.memory_id for h in hits}) == len(hits)
    assert mem.recall("green tea", namespace="a", k=1000)[0].text == "Bob likes green tea"
    assert mem.recall("green tea", namespace="nobody") == []
    for when in (datetime(1, 1, 1, tzinfo=UTC), datetime.max.replace(tzinfo=UTC)):
        assert mem.recall("green tea", namespace="a", valid_at=when) != []

"""The recall channels (eventmem/recall/channels.py): neighbouring context lends words within a
session, its smoothed bound is never below the exact score; the graph channel walks only the
relations the recall may see (true at ``valid_at``, stated by a memory not forgotten, not
superseded)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.recall.channels import (
    Lexical,
    context_scores,
    rows_of,
    same_session,
    smoothed,
    time_channel,
)
from tests.strategies import memory_record

# -- neighbouring context ------------------------------------------------------------------------


def test_context_scores_lend_neighbours_words_within_a_session() -> None:
    memories = {f"m{i}": memory_record(f"m{i}", created=i * 60_000_000) for i in range(5)}
    memories["m4"] = memory_record("m4", created=10 * 3_600_000_000)  # hours later: another session
    found = Lexical(np.array([0.0, 4.0, 0.0, 0.0, 8.0]), [f"m{i}" for i in range(5)])
    got = context_scores(found, [0, 1, 2, 3], memories, [0.5, 0.25], 1800.0, lambda m: True)
    assert got == [2.0, 4.0, 2.0, 1.0]  # m3 is 2 rows from m1; m4's words stay in its session
    # a neighbour the recall may not return lends nothing
    assert context_scores(found, [2], memories, [0.5], 1800.0, lambda m: m != "m1") == [0.0]


def test_sessions_decide_when_both_memories_name_one() -> None:
    a, b = memory_record("a", session="s1"), memory_record("b", created=10**12, session="s1")
    assert same_session(a, b, 1.0)
    assert not same_session(a, memory_record("c", session="s2"), 1e9)
    assert same_session(a, memory_record("d", created=1_000_000), 1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 10), min_size=1, max_size=30),
       st.lists(st.integers(0, 3), min_size=30, max_size=30),
       st.lists(st.booleans(), min_size=30, max_size=30))
def test_the_smoothed_bound_is_never_below_the_exact_context_score(
        scores: list[float], sessions: list[int], allowed: list[bool]) -> None:
    n = len(scores)
    names = [f"m{i}" for i in range(n)]
    memories = {m: memory_record(m, session=str(sessions[i])) for i, m in enumerate(names)}
    found = Lexical(np.array(scores), names)
    weights = [0.5, 0.25]
    exact = context_scores(found, list(range(n)), memories, weights, 1800.0,
                           lambda m: allowed[int(m[1:])])
    bound = smoothed(found.scores, weights)
    assert all(e <= b + 1e-9 for e, b in zip(exact, bound, strict=True))
    assert all(e >= s for e, s in zip(exact, scores, strict=True))  # own words always count


DAY = timedelta(days=1)


def mid(result: eventmem.RememberResult) -> str:
    assert result.memory_id is not None
    return result.memory_id


def ids(hits: list[eventmem.Hit]) -> list[str]:
    return [h.memory_id for h in hits]


# -- the graph channel walks only relations the recall may see ---------------------------------


@pytest.fixture
def husbands(mem: eventmem.Engine) -> dict[str, str]:
    mem.remember_many([f"Note {i}: the weather was mild" for i in range(5)], namespace="g")
    bob = mid(mem.remember("Bob works at Acme as an engineer", namespace="g"))
    carl = mid(mem.remember("Carl works at Globex as a chef", namespace="g"))
    married = mid(mem.remember("Alice is married to Bob", namespace="g",
                           valid_from=datetime(2025, 6, 1, tzinfo=UTC)))
    return {"bob": bob, "carl": carl, "married": married}


QUESTION = "where does Alice's husband work"


def graph_found(hits: list[eventmem.Hit], memory_id: str) -> bool:
    return any(h.memory_id == memory_id and "graph_rank" in h.signals for h in hits)


def test_the_graph_channel_follows_a_relation_the_recall_may_see(
        mem: eventmem.Engine, husbands: dict[str, str]) -> None:
    """The control: the married_to edge leads from Alice to Bob's memory."""
    assert graph_found(mem.recall(QUESTION, namespace="g", k=3), husbands["bob"])
    assert graph_found(mem.recall(QUESTION, namespace="g", k=3,
                                  valid_at=datetime(2025, 7, 1, tzinfo=UTC)), husbands["bob"])


def test_the_graph_channel_ignores_a_relation_not_true_at_valid_at(
        mem: eventmem.Engine, husbands: dict[str, str]) -> None:
    march = datetime(2025, 3, 1, tzinfo=UTC)  # before the marriage's valid time
    hits = mem.recall(QUESTION, namespace="g", k=3, valid_at=march)
    assert husbands["married"] not in ids(hits)
    assert not graph_found(hits, husbands["bob"])


def test_the_graph_channel_ignores_a_relation_only_a_forgotten_memory_states(
        mem: eventmem.Engine, husbands: dict[str, str]) -> None:
    mem.forget(husbands["married"])
    for hidden in (False, True):
        hits = mem.recall(QUESTION, namespace="g", k=3, include_hidden=hidden)
        assert graph_found(hits, husbands["bob"]) is hidden  # asked for hidden ones: it counts
    assert mem.graph.neighbors("Alice", namespace="g")  # the graph itself still knows it


def test_the_graph_channel_ignores_a_superseded_relation(mem: eventmem.Engine,
                                                         clock: eventmem.ManualClock) -> None:
    mem.remember_many([f"Note {i}: the weather was mild" for i in range(5)], namespace="g")
    berlin = mid(mem.remember("The marathon in Berlin is in September", namespace="g"))
    mem.remember("The festival in Paris is in June", namespace="g")
    old = mid(mem.remember("Alice lives in Berlin", namespace="g"))
    question = "what is on in Alice's city"
    assert graph_found(mem.recall(question, namespace="g", k=3), berlin)  # the control
    clock.advance(DAY)
    new = mem.remember("Alice lives in Paris", namespace="g", on_conflict="use_new")
    assert new.action == "superseded" and mem.get(old).status == "superseded"
    assert new.seq is not None
    assert not graph_found(mem.recall(question, namespace="g", k=3), berlin)
    # Known then (a view before the supersession), or true then: the old relation leads there.
    assert graph_found(mem.as_of(seq=new.seq - 1).recall(question, namespace="g", k=3), berlin)
    assert graph_found(mem.recall(question, namespace="g", k=3,
                                  valid_at=datetime(2025, 1, 1, 12, tzinfo=UTC)), berlin)


# -- the graph channel cannot flood ------------------------------------------------------------


def test_one_neighbour_lends_its_weight_to_a_few_memories_ranked_by_the_query(
        mem: eventmem.Engine) -> None:
    """A question naming Bob reaches memories about his neighbour Acme: at most
    GRAPH_MEMORIES_PER_NEIGHBOUR of them, those sharing most with the query first, each with its
    own rank (equal graph scores would tie in the fusion, whatever BM25 says)."""
    from eventmem.recall.channels import GRAPH_MEMORIES_PER_NEIGHBOUR

    mem.remember_many([f"Note {i}: the weather was mild" for i in range(40)], namespace="g")
    mem.remember("Bob works at Acme", namespace="g")
    mem.remember_many([f"Last week Acme shipped release {i} of the app" for i in range(12)],
                      namespace="g")
    mem.remember("Last week Acme opened a new office in Lisbon", namespace="g")
    hits = mem.recall("did Bob's company open an office?", namespace="g", k=20)
    by_graph = [h for h in hits if "graph_rank" in h.signals]
    assert 0 < len(by_graph) <= GRAPH_MEMORIES_PER_NEIGHBOUR
    ranks = sorted(int(h.signals["graph_rank"]) for h in by_graph)
    assert ranks == list(range(1, len(by_graph) + 1))  # no two share a rank
    rank = {h.text: h.signals["graph_rank"] for h in by_graph}
    office = rank["Last week Acme opened a new office in Lisbon"]
    assert all(office < r for text, r in rank.items() if text and "release" in text)


# -- time ------------------------------------------------------------------------------------------

HOUR_US = 3_600_000_000


def _rows(n: int) -> dict[str, object]:
    """``n`` memories a day apart (one session each), created in row order."""
    memories = {}
    for i in range(n):
        record = memory_record(f"m{i}", created=i * 24 * HOUR_US, session=f"s{i}")
        record.created_seq = i + 1
        memories[f"m{i}"] = record
    return memories


def test_rows_of_finds_each_memory_by_its_creation() -> None:
    memories = _rows(5)
    found = Lexical(np.zeros(5), [f"m{i}" for i in range(5)])
    assert rows_of(found, memories, ["m3", "m0", "gone"]) == [3, 0]  # type: ignore[arg-type]


def test_the_time_channel_ties_memories_to_the_span_and_ranks_by_words() -> None:
    memories = _rows(6)
    ids = [f"m{i}" for i in range(6)]
    # The span is day 2: m2 was created in it and matches words; m5 speaks of it
    # ("yesterday" said later), m4 of its whole month.
    scores = np.array([0.0, 0.0, 4.0, 0.0, 0.0, 0.0])
    found = Lexical(scores, ids)
    day = 24 * HOUR_US
    ranked = time_channel(found, 10, lambda m: True, memories, 2 * day, 3 * day,  # type: ignore[arg-type]
                          [0.5], 1.0, match=True, spoken=[("m5", 1.0), ("m4", 1 / 30)])
    got = dict(ranked)
    assert [mid for mid, _ in ranked] == ["m2", "m5", "m4"]
    assert got["m2"] == 8.0  # its words (4) on top of the tie (the best words: 4)
    assert got["m5"] == 4.0  # speaks of the day, no word of the question: the tie alone
    assert abs(got["m4"] - 4.0 / 30 ** 0.5) < 1e-9  # a month holds the day: weaker
    # A memory only created then needs a word of the question.
    found = Lexical(np.zeros(6), ids)
    ranked = time_channel(found, 10, lambda m: True, memories, 2 * day, 3 * day,  # type: ignore[arg-type]
                          [0.5], 1.0, match=True, spoken=[("m5", 1.0)])
    assert ranked == [("m5", 1.0)]
    # Without words to match (a query of nothing but its time), every memory then.
    ranked = time_channel(found, 10, lambda m: True, memories, 2 * day, 3 * day,  # type: ignore[arg-type]
                          [0.5], 1.0, match=False, spoken=[("m5", 1.0)])
    assert [mid for mid, _ in ranked] == ["m2", "m5"]
    # What the recall may not return is not proposed.
    assert time_channel(found, 10, lambda m: m != "m5", memories, 2 * day,  # type: ignore[arg-type]
                        3 * day, [0.5], 1.0, match=True, spoken=[("m5", 1.0)]) == []

"""The read path: channels, fusion, the profile composite, MMR, the gate, the context builder."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.clock import to_micros
from eventmem.errors import InvalidInputError
from eventmem.events import MemoryRecalled
from eventmem.recall.channels import Lexical, context_scores, same_session, smoothed
from eventmem.recall.context import build_context, estimate_tokens, summary_line
from eventmem.recall.fuse import rrf
from eventmem.recall.score import PROFILES, Params, activation, composite, lift, mmr
from eventmem.results import Hit
from projections.state import MemoryRecord

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def ids(hits: list[Hit]) -> list[str]:
    return [h.memory_id for h in hits]


def record(mid: str, *, created: int = 0, session: str | None = None, importance: float = 0.5,
           utility: float = 0.5, accesses: int = 0, status: str = "active",
           source: str = "user", confidence: float = 1.0) -> MemoryRecord:
    r = MemoryRecord(mid, "ns", "h" + mid, "d" + mid, "event", "test", source, 60.0, importance,
                     confidence, False, False, None, None, (), (), created, 1, created, 1)
    r.session, r.utility, r.access_count, r.status = session, utility, accesses, status  # type: ignore[assignment]
    return r


# -- fusion --------------------------------------------------------------------------------------


def test_weighted_rrf_sums_weight_over_k_plus_rank() -> None:
    lists = {"a": [("x", 2.0), ("y", 1.0)], "b": [("y", 0.9), ("z", 0.3)], "c": [("w", 5.0)]}
    fused = rrf(lists, {"a": 1.0, "b": 0.5, "c": 0.0}, 60)
    assert set(fused) == {"x", "y", "z"}  # a list weighted 0 adds no memory
    assert fused["y"]["rrf"] == pytest.approx(1 / 62 + 0.5 / 61)
    assert fused["y"]["a_rank"] == 2 and fused["y"]["b_rank"] == 1 and fused["y"]["b_weight"] == 0.5
    # support scales each term by the score over the list's best
    assert fused["y"]["support"] == pytest.approx(1 / 62 * 0.5 + 0.5 / 61)
    assert fused["z"]["support"] == pytest.approx(0.5 / 62 * (0.3 / 0.9))


def test_equal_scores_share_a_rank() -> None:
    fused = rrf({"a": [("x", 2.0), ("y", 2.0), ("z", 1.0)]}, {"a": 1.0}, 60)
    assert [fused[m]["a_rank"] for m in "xyz"] == [1, 1, 3]
    assert fused["x"]["rrf"] == fused["y"]["rrf"]


def test_a_zero_weight_list_still_explains_the_memories_others_found() -> None:
    fused = rrf({"a": [("x", 1.0)], "c": [("w", 3.0), ("x", 1.0)]}, {"a": 1.0, "c": 0.0}, 60)
    assert set(fused) == {"x"}
    assert fused["x"]["c_rank"] == 2 and fused["x"]["rrf"] == pytest.approx(1 / 61)


# -- neighbouring context ------------------------------------------------------------------------


def test_context_scores_lend_neighbours_words_within_a_session() -> None:
    memories = {f"m{i}": record(f"m{i}", created=i * 60_000_000) for i in range(5)}
    memories["m4"] = record("m4", created=10 * 3_600_000_000)  # hours later: another session
    found = Lexical(np.array([0.0, 4.0, 0.0, 0.0, 8.0]), [f"m{i}" for i in range(5)])
    got = context_scores(found, [0, 1, 2, 3], memories, [0.5, 0.25], 1800.0, lambda m: True)
    assert got == [2.0, 4.0, 2.0, 1.0]  # m3 is 2 rows from m1; m4's words stay in its session
    # a neighbour the recall may not return lends nothing
    assert context_scores(found, [2], memories, [0.5], 1800.0, lambda m: m != "m1") == [0.0]


def test_sessions_decide_when_both_memories_name_one() -> None:
    a, b = record("a", session="s1"), record("b", created=10**12, session="s1")
    assert same_session(a, b, 1.0)
    assert not same_session(a, record("c", session="s2"), 1e9)
    assert same_session(a, record("d", created=1_000_000), 1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 10), min_size=1, max_size=30),
       st.lists(st.integers(0, 3), min_size=30, max_size=30),
       st.lists(st.booleans(), min_size=30, max_size=30))
def test_the_smoothed_bound_is_never_below_the_exact_context_score(
        scores: list[float], sessions: list[int], allowed: list[bool]) -> None:
    n = len(scores)
    names = [f"m{i}" for i in range(n)]
    memories = {m: record(m, session=str(sessions[i])) for i, m in enumerate(names)}
    found = Lexical(np.array(scores), names)
    weights = [0.5, 0.25]
    exact = context_scores(found, list(range(n)), memories, weights, 1800.0,
                           lambda m: allowed[int(m[1:])])
    bound = smoothed(found.scores, weights)
    assert all(e <= b + 1e-9 for e, b in zip(exact, bound, strict=True))
    assert all(e >= s for e, s in zip(exact, scores, strict=True))  # own words always count


# -- scoring -------------------------------------------------------------------------------------


def test_profiles_are_the_architecture_weights() -> None:
    assert PROFILES["default"] == (0.35, 0.20, 0.20, 0.20, 0.05)
    assert PROFILES["recent"] == (0.30, 0.50, 0.10, 0.07, 0.03)
    for profile in PROFILES.values():
        assert sum(profile) == pytest.approx(1.0)
    # a profile that weighs semantics less lets the priors move scores more
    assert lift(PROFILES["recent"], 0.05) > lift(PROFILES["default"], 0.05) > lift(
        PROFILES["deep"], 0.05)


def test_act_r_activation() -> None:
    assert activation(1, 1.0) == pytest.approx(0.5)  # B = 0
    b = math.log(4) - 0.5 * math.log(3600)
    assert activation(4, 3600) == pytest.approx(1 / (1 + math.exp(-b)))
    assert activation(0, 0) == activation(1, 1)  # n and age floored at 1
    assert activation(10, 60) > activation(1, 60) > activation(1, 86_400)


PARAMS = Params(0.05, 30.0, 0.1, eventmem.Config().decay)
NOW = 400 * 86_400_000_000


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1), st.integers(0, 10_000), st.integers(0, NOW),
       st.sampled_from(["active", "stale"]), st.sampled_from(sorted(PROFILES)),
       st.sampled_from(["user", "agent", "extraction"]), st.floats(0, 1))
def test_reinforcement_never_outweighs_relevance(importance, utility, accesses, created, status,
                                                 profile, source, confidence) -> None:
    """The composite's factors are bounded: a memory twice as relevant as another always
    outranks it, however used, recent or important the other is (ARCHITECTURE.md section 11)."""
    weak = record("w", created=created, importance=importance, utility=utility,
                  accesses=accesses, status=status, source=source, confidence=confidence)
    weak.last_access_at = NOW  # just used: the most activation it can have
    strong = record("s", created=0, importance=0.0, utility=0.0, status="active",
                    source="extraction", confidence=0.0)
    chosen = PROFILES[profile]
    weak_score = composite(0.4, weak, NOW, chosen, PARAMS)["score"]
    assert composite(0.8, strong, NOW, chosen, PARAMS)["score"] > weak_score
    assert composite(0.0, weak, NOW, chosen, PARAMS)["score"] == 0.0


def test_composite_signals() -> None:
    r = record("a", created=NOW - 30 * 86_400_000_000, importance=0.9, source="agent",
               confidence=0.5)
    s = composite(0.5, r, NOW, PROFILES["default"], PARAMS)
    assert s["recency"] == pytest.approx(0.5)  # one half-life
    assert s["confidence"] == pytest.approx(0.45)  # agent trust 0.9 x its confidence
    assert s["status_weight"] == 1.0 and s["utility_weight"] == 1.0
    assert s["score"] == pytest.approx(0.5 * s["prior_weight"] * s["activation_weight"])
    assert composite(0.5, record("b", status="stale"), NOW, PROFILES["default"],
                     PARAMS)["status_weight"] == 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=1, max_size=12), st.integers(0, 2**32 - 1),
       st.floats(0.1, 1.0))
def test_mmr_scores_never_rise_and_picks_are_distinct(scores, seed, lam) -> None:
    scores = sorted(scores, reverse=True)
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(len(scores), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    names = [f"m{i}" for i in range(len(scores))]
    picked = mmr(names, scores, vectors, len(scores), lam, 0.0)
    assert sorted(p[0] for p in picked) == sorted(names)
    values = [p[1] for p in picked]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(values))
    assert picked[0] == (names[0], scores[0], 0.0)


def test_mmr_demotes_a_near_duplicate() -> None:
    v = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    assert [p[0] for p in mmr(["a", "b", "c"], [1.0, 0.95, 0.8], v, 3, 0.7, 0.0)] == [
        "a", "c", "b"]
    assert [p[0] for p in mmr(["a", "b", "c"], [1.0, 0.95, 0.8], v, 3, 1.0, 0.0)] == [
        "a", "b", "c"]


# -- the engine ----------------------------------------------------------------------------------


def test_small_talk_returns_nothing_and_records_nothing(mem: eventmem.Engine) -> None:
    mem.remember("Thanks to Bob the garden looks great", namespace="a")
    seq = mem.seq
    for text in ("thanks!", "ok cool", "Hi"):
        assert mem.recall(text, namespace="a") == []
    assert mem.seq == seq
    assert mem.recall("who helped with the garden", namespace="a")
    assert mem.seq == seq + 1


def test_the_answer_next_to_the_question_is_found(mem: eventmem.Engine,
                                                  clock: eventmem.ManualClock) -> None:
    """A reply holds no word of the question; its neighbour (the question asked in the
    conversation) lends it the context."""
    mem.remember_many(["Melanie: What did you research last week?",
                       "Caroline: Adoption agencies, I want to give kids a home.",
                       "Melanie: That is wonderful news."], namespace="c")
    clock.advance(40 * DAY)
    mem.remember_many(["Caroline: I painted the fence on Sunday.",
                       "Melanie: My kids love the beach."], namespace="c")
    hits = mem.recall("What did Caroline research?", namespace="c", k=3)
    texts = [h.text for h in hits]
    assert "Caroline: Adoption agencies, I want to give kids a home." in texts[:2]
    answer = next(h for h in hits if h.text and h.text.startswith("Caroline: Adoption"))
    assert answer.signals["context"] > answer.signals.get("bm25", 0.0)


def test_context_does_not_cross_sessions(mem: eventmem.Engine,
                                         clock: eventmem.ManualClock) -> None:
    first = mem.remember("We talked about the lighthouse keeper", namespace="s").memory_id
    clock.advance(2 * HOUR)
    later = mem.remember("The bakery opens at seven", namespace="s").memory_id
    hits = mem.recall("lighthouse keeper", namespace="s", k=5)
    assert ids(hits) == [first]
    assert later not in ids(hits)


def test_explicit_sessions_group_interleaved_memories(mem: eventmem.Engine) -> None:
    mem.remember("Where did you hide the spare key?", namespace="s", session="a")
    mem.remember("The match starts at eight", namespace="s", session="b")
    answer = mem.remember("Under the blue flowerpot", namespace="s", session="a").memory_id
    other = mem.remember_many([{"text": "The score was two to one", "session": "b"}],
                              namespace="s")[0].memory_id
    found = ids(mem.recall("spare key hidden", namespace="s", k=5))
    assert answer in found and other not in found


def test_a_forgotten_neighbour_lends_no_context(mem: eventmem.Engine) -> None:
    question, answer = (r.memory_id for r in mem.remember_many(
        ["Which bakery sells the rye bread?", "The one on Mill Street, near the bridge"],
        namespace="b"))
    assert answer in ids(mem.recall("rye bread bakery", namespace="b", k=5))
    mem.forget(question)
    assert mem.recall("rye bread bakery", namespace="b", k=5) == []


def test_time_in_the_query_finds_memories_of_that_time(mem: eventmem.Engine,
                                                       clock: eventmem.ManualClock,
                                                       t0: datetime) -> None:
    clock.set(datetime(2025, 5, 10, tzinfo=UTC))
    may = mem.remember("Went hiking with Tom in the hills", namespace="t").memory_id
    clock.set(datetime(2025, 9, 2, tzinfo=UTC))
    september = mem.remember("Went hiking with Tom by the lake", namespace="t").memory_id
    clock.set(datetime(2025, 11, 20, tzinfo=UTC))
    mem.remember("Tom started a new job", namespace="t")
    hits = mem.recall("where did I go hiking with Tom last May", namespace="t", k=2)
    assert ids(hits)[0] == may
    assert hits[0].signals["time_rank"] == 1 and "time_rank" not in hits[1].signals
    assert ids(mem.recall("hiking with Tom in September", namespace="t", k=1)) == [september]
    # nothing but the time: every memory then, newest first
    assert ids(mem.recall("what happened in May 2024?", namespace="t", k=1)) == [may]


def test_valid_time_meets_the_query_span(mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    clock.set(datetime(2025, 11, 1, tzinfo=UTC))
    trip = mem.remember("Our trip to Rome", namespace="v",
                        valid_from=datetime(2025, 6, 3, tzinfo=UTC),
                        valid_until=datetime(2025, 6, 10, tzinfo=UTC)).memory_id
    clock.advance(DAY)
    mem.remember("Our trip to Oslo", namespace="v")
    hits = mem.recall("our trip in June", namespace="v", k=2)
    assert ids(hits)[0] == trip and "time_rank" in hits[0].signals


def test_an_anchored_offset_finds_the_time_around_the_event(mem: eventmem.Engine,
                                                            clock: eventmem.ManualClock) -> None:
    clock.set(datetime(2025, 3, 1, tzinfo=UTC))
    bought = mem.remember("Bought new hiking boots", namespace="a").memory_id
    clock.set(datetime(2025, 3, 15, tzinfo=UTC))
    mem.remember("The trip to the Alps was amazing", namespace="a")
    clock.set(datetime(2025, 4, 20, tzinfo=UTC))
    mem.remember("Bought new running shoes", namespace="a")
    hits = mem.recall("what did I buy two weeks before the trip to the Alps?", namespace="a",
                      k=3)
    assert hits[0].memory_id == bought and "time_rank" in hits[0].signals


def test_the_expansion_finds_what_only_the_answer_says(mem: eventmem.Engine) -> None:
    went = mem.remember("She went to Porto for the festival", namespace="e").memory_id
    mem.remember("Let us meet at the station", namespace="e")
    assert ids(mem.recall("when did she go?", namespace="e", k=1)) == [went]


def test_a_compound_question_finds_both_answers(mem: eventmem.Engine) -> None:
    texts = ["Alice lives in a flat in Leeds", "Alice works as a nurse at the hospital",
             "Bob plays the trumpet", "Carol grows tomatoes", "Dan collects stamps",
             "Alice's sister lives in Toronto"]
    made = [r.memory_id for r in mem.remember_many(texts, namespace="c")]
    hits = mem.recall("Where does Alice live and what is her job at the hospital?",
                      namespace="c", k=2)
    assert set(ids(hits)) == {made[0], made[1]}
    assert any(name.endswith("@1_rank") for name in hits[0].signals) or any(
        name.endswith("@2_rank") for name in hits[0].signals)


def test_profiles_reorder_equally_relevant_memories(mem: eventmem.Engine,
                                                    clock: eventmem.ManualClock) -> None:
    old = mem.remember("The team meeting is in room A", namespace="p", importance=0.9).memory_id
    clock.advance(60 * DAY)
    # Worded apart enough (cosine 0.77) that the write gate keeps both instead of merging.
    new = mem.remember("We hold the team meeting in room B", namespace="p",
                       importance=0.1).memory_id
    clock.advance(HOUR)
    view = mem.as_of(at=clock.now())  # read-only: the recalls below do not change anything
    assert ids(view.recall("team meeting room", namespace="p", k=2, profile="recent")) == [
        new, old]
    assert ids(view.recall("team meeting room", namespace="p", k=2, profile="important")) == [
        old, new]
    with pytest.raises(InvalidInputError, match="profile"):
        view.recall("team meeting room", namespace="p", profile="fastest")


def test_as_of_and_valid_at_hold_in_every_channel(mem: eventmem.Engine,
                                                  clock: eventmem.ManualClock) -> None:
    clock.set(datetime(2025, 5, 1, tzinfo=UTC))
    before = mem.remember("Question: where is the red notebook?", namespace="h").memory_id
    cut = mem.seq
    late = mem.remember("In the top drawer of the desk", namespace="h").memory_id  # lends nothing
    clock.set(datetime(2025, 5, 2, tzinfo=UTC))
    bounded = mem.remember("The red notebook is on loan to Sam", namespace="h",
                           valid_until=datetime(2025, 5, 3, tzinfo=UTC)).memory_id
    past = mem.as_of(seq=cut)
    for query in ("red notebook", "red notebook in May 2024", "what happened yesterday"):
        assert set(ids(past.recall(query, namespace="h", k=10))) <= {before}
    assert late in ids(mem.recall("red notebook", namespace="h", k=10))
    at = datetime(2025, 5, 4, tzinfo=UTC)
    for query in ("red notebook", "red notebook in May 2024", "red notebook on loan"):
        assert bounded not in ids(mem.recall(query, namespace="h", k=10, valid_at=at))


def test_recall_is_deterministic(tmp_path: Path, t0: datetime) -> None:
    texts = [f"Note {i}: the {w} is {c}" for i, (w, c) in enumerate(
        [("door", "red"), ("car", "blue"), ("door", "green"), ("cat", "red"), ("hat", "red")])]

    def run(path: Path) -> list[tuple[str, float]]:
        with eventmem.open(path, clock=eventmem.ManualClock(start=t0)) as m:
            m.remember_many(texts, namespace="d")
            return [(h.memory_id, h.score) for h in m.recall("red door", namespace="d", k=5)]

    assert run(tmp_path / "a") == run(tmp_path / "b")


def test_a_plugged_in_channel_is_fused(mem: eventmem.Engine) -> None:
    made = [r.memory_id for r in mem.remember_many(["Alice knows Bob", "Carol likes jazz"],
                                                   namespace="g")]
    mem.extra_channels = {"graph": lambda views, ns, query, n, allowed: [(made[1], 1.0)]}
    hits = mem.recall("who does Alice know", namespace="g", k=2)
    by_id = {h.memory_id: h for h in hits}
    assert by_id[made[1]].signals["graph_rank"] == 1


def test_recall_records_the_hits_it_returned(mem: eventmem.Engine) -> None:
    mem.remember_many(["Ivy repairs bicycles", "Jon repairs clocks"], namespace="r")
    seq = mem.seq
    hits = mem.recall("who repairs bicycles", namespace="r", k=2, profile="deep")
    [(_, event)] = list(mem.events(seq + 1))
    assert isinstance(event, MemoryRecalled)
    assert event.memory_ids == tuple(ids(hits))
    assert event.scores == tuple(h.score for h in hits)


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


# -- the CLI -------------------------------------------------------------------------------------


def test_cli_explain_prints_the_plan_and_the_factors(tmp_path: Path) -> None:
    store = str(tmp_path / "s")

    def cli(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "eventmem.cli", "--store", store, *args],
                              capture_output=True, text=True, check=True, timeout=120).stdout

    cli("remember", "Priya lives in Toronto", "-n", "sam")
    out = cli("recall", "when did Priya move to Toronto?", "-n", "sam", "--explain",
              "--profile", "recent")
    assert out.splitlines()[0] == "query: intent temporal; expanded 'Priya moved to Toronto'"
    assert "via vector #1" in out and "context #1" in out
    assert "relevance" in out and "x prior" in out and "redundancy" in out
    assert to_micros(datetime.now(UTC)) > 0

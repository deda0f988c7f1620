"""Recall through the engine: the gate, context, sessions, time in the query and valid time, query
expansion, compound questions, profiles, ``as_of`` and ``valid_at`` in every channel,
determinism, plugged-in channels, the recorded hits, and the input edges that hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.errors import InvalidInputError
from eventmem.events import MemoryRecalled
from eventmem.results import Hit
from replay.groups import PLASTICITY

HOUR = timedelta(hours=1)

DAY = timedelta(days=1)


def ids(hits: list[Hit]) -> list[str]:
    return [h.memory_id for h in hits]


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
    assert ids(mem.recall("what happened in May 2025?", namespace="t", k=1)) == [may]
    # another year asks for another time: nothing of it was said
    assert mem.recall("what happened in May 2024?", namespace="t", k=1) == []


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
    (_, event), *after = list(mem.events(seq + 1))
    assert isinstance(event, MemoryRecalled)
    assert all(isinstance(e, PLASTICITY) for _, e in after)  # co-activation, spreading
    assert event.memory_ids == tuple(ids(hits))
    assert event.scores == tuple(h.score for h in hits)


def mid(result: eventmem.RememberResult) -> str:
    assert result.memory_id is not None
    return result.memory_id


# -- true at T: one version of a merged fact ----------------------------------------------------


def test_valid_at_returns_a_merged_fact_once(mem: eventmem.Engine,
                                             clock: eventmem.ManualClock) -> None:
    """A merge leaves the merged-away memory's valid time open (its facts carry on in the
    merge); "true at T" answered with both, the same fact twice."""
    first = mid(mem.remember("Alice enjoys hiking in the Alps every summer", namespace="a"))
    cut = mem.seq
    clock.advance(DAY)
    merged = mem.remember("Alice enjoys hiking in the Alps every summer with her dog",
                          namespace="a")
    assert merged.action == "merged" and mem.get(first).status == "superseded"
    # The merge carries the fact from when it was first stated (a day ago), not before it.
    for when in (clock.now(), clock.now() - DAY / 2, clock.now() + 30 * DAY):
        hits = mem.recall("Alice hiking", namespace="a", k=5, valid_at=when)
        assert ids(hits) == [merged.memory_id]
    assert mem.recall("Alice hiking", namespace="a", k=5, valid_at=clock.now() - 2 * DAY) == []
    # Known before the merge, the first version is the one that answers.
    before = mem.as_of(seq=cut)
    assert ids(before.recall("Alice hiking", namespace="a", k=5, valid_at=clock.now())) == [
        first]
    # Asked for hidden memories too, both versions come back.
    assert set(ids(mem.recall("Alice hiking", namespace="a", k=5, valid_at=clock.now(),
                              include_hidden=True))) == {first, merged.memory_id}


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
    # Nothing was stated in year 1; everything holds at the end of time.
    assert mem.recall("green tea", namespace="a", valid_at=datetime(1, 1, 1, tzinfo=UTC)) == []
    assert mem.recall("green tea", namespace="a",
                      valid_at=datetime.max.replace(tzinfo=UTC)) != []

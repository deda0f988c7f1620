"""The recall side of plasticity (eventmem/recall/plasticity.py): the co-retrieval boost and
mood-congruent recall, shown in a hit's signals, and never lifting a hit above a more relevant
one (issue 14 item 2; tests/recall/test_score.py states it for access and activation)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.policies.plasticity import PlasticityParams
from eventmem.recall.plasticity import boosted
from projections.state import State, pair_key
from tests.strategies import memory_record

T0 = datetime(2026, 1, 1, 9, tzinfo=UTC)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 1.0), st.floats(0.5, 1.5), st.floats(-1, 1),
                          st.integers(0, 6)), min_size=1, max_size=12),
       st.sampled_from(["I was happy", "I was sad", "where is it"]), st.integers(1, 5))
def test_boosts_never_lift_a_hit_above_a_more_relevant_one(rows, query, k) -> None:
    state = State()
    pool = []
    for i, (relevance, factor, valence, together) in enumerate(rows):
        mid = f"m{i}"
        record = memory_record(mid)
        record.valence = valence
        state.memories[mid] = record
        if i and together:
            state.coretrieved[pair_key("m0", mid)] = together
        score = relevance * factor
        pool.append((-score, mid, {"relevance": relevance, "score": score}))
    pool.sort(key=lambda item: (item[0], item[1]))
    before = {mid: -neg for neg, mid, _ in pool}
    after = boosted([(n, m, dict(s)) for n, m, s in pool], state, query, k,
                    PlasticityParams(coretrieval_boost=0.05))
    assert sorted(m for _, m, _ in after) == sorted(before)
    scores = {mid: s["score"] for _, mid, s in after}
    for mid, signals in ((m, s) for _, m, s in after):
        assert scores[mid] >= before[mid]  # a boost never lowers a score
        if scores[mid] > before[mid]:  # a boosted hit stays under every more relevant one
            for _, other, s in after:
                if s["relevance"] > signals["relevance"]:
                    assert scores[mid] < scores[other]


def test_pairs_co_retrieved_three_times_are_boosted(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    config = eventmem.Config(plasticity=PlasticityParams(coretrieval_boost=0.05))  # off: 0.0
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        a = mem.remember("Rex the dog likes the park").memory_id
        b = mem.remember("Rex the dog barks at the mailman").memory_id
        for _ in range(3):
            clock.advance(timedelta(minutes=1))
            assert all("coretrieval" not in h.signals for h in mem.recall("Rex the dog", k=2))
        hits = {h.memory_id: h for h in mem.recall("Rex the dog", k=2)}
        assert hits[a].signals["coretrieval"] == 3.0 and hits[b].signals["coretrieval"] == 3.0
    with eventmem.open(tmp_path / "t", clock=clock) as mem:  # the default: counted, not boosted
        mem.remember("Rex the dog likes the park")
        mem.remember("Rex the dog barks at the mailman")
        for _ in range(4):
            clock.advance(timedelta(minutes=1))
            assert all("coretrieval" not in h.signals for h in mem.recall("Rex the dog", k=2))
        assert max(mem._views.state.coretrieved.values()) == 4


def test_a_query_with_a_mood_weighs_memories_of_its_valence(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        happy = mem.remember("I was happy at the concert with Ana").memory_id
        sad = mem.remember("I was sad at the concert without Ana").memory_id
        hits = {h.memory_id: h for h in mem.recall("when was I happy at the concert", k=5)}
        assert hits[happy].signals["mood_weight"] == 1.1
        assert "mood_weight" not in hits[sad].signals
        off = eventmem.Config(plasticity=PlasticityParams(mood_boost=1.0))
    with eventmem.open(tmp_path / "t", clock=eventmem.ManualClock(start=T0),
                       config=off) as mem:
        mem.remember("I was happy at the concert with Ana")
        assert all("mood_weight" not in h.signals
                   for h in mem.recall("when was I happy at the concert", k=5))

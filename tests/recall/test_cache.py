"""The recall cache: bounded LRU, keyed by the log head so it can never serve a stale answer,
handing out copies (editing a hit does not change the next answer), and never serving an answer
a plugged-in channel shaped once the channel is gone."""

from __future__ import annotations

from collections import OrderedDict
from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

import eventmem
from eventmem.recall.cache import RecallCache, recall_key


def test_an_append_changes_the_key_and_hides_the_old_answer(mem, clock):
    mem.remember("Alice moved to Berlin in March", namespace="alice")
    cache: RecallCache[tuple[str, ...]] = RecallCache(8)
    options = {"k": 5, "include_hidden": False}
    before = recall_key("where does alice live", "alice", mem.head().seq, options)
    hits = tuple(h.memory_id for h in mem.recall("where does alice live", namespace="alice"))
    cache.put(before, hits)
    assert cache.get(before) == hits

    clock.advance(timedelta(minutes=1))
    forgotten = mem.remember("Alice moved to Lisbon in May", namespace="alice").memory_id
    mem.forget(forgotten)
    after = recall_key("where does alice live", "alice", mem.head().seq, options)
    assert after != before and after.head > before.head
    assert cache.get(after) is None  # the new state must be searched
    assert cache.get(before) is None  # and the old answer is gone for good
    assert len(cache) == 0


def test_the_key_holds_every_option_in_a_canonical_order():
    a = recall_key("q", "ns", 7, {"k": 5, "valid_at": 10, "include_hidden": False})
    b = recall_key("q", "ns", 7, {"include_hidden": False, "valid_at": 10, "k": 5})
    assert a == b and hash(a) == hash(b)
    assert a != recall_key("q", "ns", 7, {"k": 6, "valid_at": 10, "include_hidden": False})
    assert a != recall_key("q", "other", 7, {"k": 5, "valid_at": 10, "include_hidden": False})
    assert a != recall_key("Q", "ns", 7, {"k": 5, "valid_at": 10, "include_hidden": False})
    assert recall_key("q", "ns", 7) == recall_key("q", "ns", 7, {})
    for head in (-1, True, 1.0, "3"):
        with pytest.raises(ValueError):
            recall_key("q", "ns", head)  # type: ignore[arg-type]


def test_least_recently_used_goes_first():
    cache: RecallCache[str] = RecallCache(2)
    k1, k2, k3 = (recall_key(q, "ns", 1) for q in ("a", "b", "c"))
    cache.put(k1, "A")
    cache.put(k2, "B")
    assert cache.get(k1) == "A"  # k1 is now the most recently used
    cache.put(k3, "C")
    assert cache.get(k2) is None and cache.get(k1) == "A" and cache.get(k3) == "C"
    assert (cache.hits, cache.misses) == (3, 1)
    cache.clear()
    assert len(cache) == 0 and cache.get(k1) is None


def test_an_answer_of_an_older_head_is_not_kept():
    cache: RecallCache[str] = RecallCache(4)
    cache.put(recall_key("a", "ns", 5), "new")
    cache.put(recall_key("b", "ns", 4), "old")  # computed before the head moved on
    assert cache.get(recall_key("b", "ns", 4)) is None
    assert cache.get(recall_key("a", "ns", 5)) == "new"


def test_max_entries_must_be_positive():
    for bad in (0, -1, True, 2.0):
        with pytest.raises(ValueError):
            RecallCache(bad)  # type: ignore[arg-type]


ops = st.lists(st.tuples(st.sampled_from(("get", "put")), st.integers(0, 5), st.integers(0, 3)),
               max_size=60)


@given(st.integers(1, 4), ops)
def test_behaves_like_a_model_lru_that_forgets_older_heads(size, steps):
    cache: RecallCache[int] = RecallCache(size)
    model: OrderedDict[tuple[int, int], int] = OrderedDict()
    newest = -1
    for i, (op, query, head) in enumerate(steps):
        key = recall_key(str(query), "ns", head)
        if head > newest:
            newest = head
            model.clear()
        if op == "put":
            if head == newest:
                model[(query, head)] = i
                model.move_to_end((query, head))
                while len(model) > size:
                    model.popitem(last=False)
            cache.put(key, i)
        else:
            expected = model.get((query, head))
            if expected is not None:
                model.move_to_end((query, head))
            assert cache.get(key) == expected
        assert len(cache) == len(model) <= size


def test_recall_answers_come_from_the_cache_only_while_the_head_stands(tmp_path):
    from datetime import UTC, datetime

    import eventmem

    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    with eventmem.open(tmp_path / "store", clock=clock) as mem:
        first = mem.remember("The spare key is under the blue pot").memory_id
        view = mem.as_of(seq=mem.seq)
        answer = view.recall("where is the spare key")
        assert view.recall("where is the spare key") == answer
        assert view._recall_cache.hits == 1
        # The engine records each recall (the head moves), and a forget is never served stale.
        assert [h.memory_id for h in mem.recall("where is the spare key")] == [first]
        mem.forget(first)
        assert mem.recall("where is the spare key") == []


def mid(result: eventmem.RememberResult) -> str:
    assert result.memory_id is not None
    return result.memory_id


# -- a plugged-in channel's answer -----------------------------------------------------------------


def test_an_answer_a_plugged_in_channel_shaped_is_not_served_once_it_is_gone(
        mem: eventmem.Engine) -> None:
    made = [mid(r) for r in mem.remember_many(["Alice knows Bob", "Carol likes jazz"],
                                                   namespace="g")]
    view = mem.as_of(seq=mem.seq)
    view.extra_channels = {"boost": lambda views, ns, query, n, allowed: [(made[1], 1.0)]}
    assert "boost_rank" in view.recall("who does Alice know", namespace="g", k=2)[1].signals
    view.extra_channels = {}
    assert all("boost_rank" not in h.signals
               for h in view.recall("who does Alice know", namespace="g", k=2))


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

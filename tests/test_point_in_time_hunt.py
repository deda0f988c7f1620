"""Point in time ("known at": ``as_of``) and "true at" (``valid_at``): the bugs a hunt found, each
pinned by the test that caught it, and the property that a view of seq n answers exactly as the
engine did when its head was n, and as a store rebuilt from the log up to n does.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.clock import to_micros
from eventmem.config import Config
from eventmem.errors import NotFoundError, ReadOnlyError
from eventmem.policies.lifecycle import LifecycleParams
from eventmem.reader import Reader, View
from replay.rebuild import rebuild

DAY = timedelta(days=1)


def mid(result: eventmem.RememberResult) -> str:
    assert result.memory_id is not None
    return result.memory_id


def ids(hits: list[eventmem.Hit]) -> list[str]:
    return [h.memory_id for h in hits]


# -- a view answers every query method the engine does, and refuses every write ---------------


def test_a_view_lists_the_conflicts_as_they_stood(mem: eventmem.Engine,
                                                 clock: eventmem.ManualClock) -> None:
    mem.remember("Alice lives in Berlin", namespace="a")
    before = mem.as_of(seq=mem.seq)
    clock.advance(DAY)
    flagged = mem.remember("Alice lives in Paris", namespace="a", on_conflict="ask")
    assert flagged.conflict_id is not None
    open_view = mem.as_of(seq=mem.seq)
    mem.resolve(flagged.conflict_id, strategy="use_new")
    assert before.conflicts(namespace="a") == []
    [seen] = open_view.conflicts(namespace="a")
    assert (seen.conflict_id, seen.status) == (flagged.conflict_id, "open")
    assert open_view.conflicts(namespace="a", status="resolved") == []
    assert mem.as_of(seq=mem.seq).conflicts(namespace="a", status=None) == mem.conflicts(
        namespace="a", status=None)
    assert mem.conflicts(namespace="a")[:1] == []  # the engine has moved on; the view has not


@pytest.mark.parametrize("write", ["feedback", "touch", "consolidate", "snapshot", "resolve"])
def test_every_write_on_a_view_is_refused_as_read_only(mem: eventmem.Engine, write: str) -> None:
    memory = mid(mem.remember("Alice lives in Berlin", namespace="a"))
    flagged = mem.remember("Alice lives in Paris", namespace="a", on_conflict="ask")
    view, head = mem.as_of(seq=mem.seq), mem.head()
    calls = {"feedback": lambda: view.feedback(memory, useful=True),
             "touch": lambda: view.touch(memory),
             "consolidate": lambda: view.consolidate(),
             "snapshot": lambda: view.snapshot(),
             "resolve": lambda: view.resolve(flagged.conflict_id)}
    with pytest.raises(ReadOnlyError, match="read-only view"):
        calls[write]()
    assert mem.head() == head


# -- erasure reaches every view, one made before the erase too ---------------------------------


def test_an_erase_reaches_a_view_made_before_it(mem: eventmem.Engine,
                                                clock: eventmem.ManualClock) -> None:
    secret = "Alice secretly adores quince marmalade from Zanzibar"
    gone = mid(mem.remember(secret, namespace="a"))
    kept = mid(mem.remember("Bob works at Acme in London", namespace="a"))
    clock.advance(DAY)
    view = mem.as_of(seq=mem.seq)
    assert view.recall("quince marmalade Zanzibar", namespace="a")[0].text == secret  # cached
    assert view.graph.entity("Zanzibar", namespace="a").memory_ids == (gone,)
    mem.erase(gone)
    hits = view.recall("quince marmalade Zanzibar", namespace="a", k=5)
    assert gone not in ids(hits) and all(h.text != secret for h in hits)
    assert gone not in ids(view.recall("quince marmalade Zanzibar", namespace="a", k=5,
                                       include_hidden=True))
    record = view.get(gone)
    assert (record.status, record.text) == ("erased", None)
    assert secret not in view.context("quince marmalade Zanzibar", namespace="a")
    with pytest.raises(NotFoundError):
        view.graph.entity("Zanzibar", namespace="a")
    assert view.get(kept).text == "Bob works at Acme in London"
    assert view.seq == mem.as_of(seq=view.seq).seq  # still the same point in time
    fresh = mem.as_of(seq=view.seq)
    assert [msgspec.structs.asdict(m) for m in view.memories()] == [
        msgspec.structs.asdict(m) for m in fresh.memories()]


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


# -- the recall cache ---------------------------------------------------------------------------


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


# -- the property: a view of seq n answers as the engine did at n -------------------------------

PEOPLE = ("Alice", "Bob", "Carol")
TEXTS = st.one_of(
    st.builds("{} lives in {}".format, st.sampled_from(PEOPLE),
              st.sampled_from(("Berlin", "Paris", "Oslo"))),
    st.builds("{} works at {}".format, st.sampled_from(PEOPLE),
              st.sampled_from(("Acme", "Globex"))),
    st.builds("{} is married to {}".format, st.sampled_from(PEOPLE), st.sampled_from(PEOPLE)),
    st.builds("Yesterday {} visited {} for the conference".format, st.sampled_from(PEOPLE),
              st.sampled_from(("Rome", "Oslo"))),
)
STRATEGIES = st.sampled_from((None, "ask", "use_new", "keep_existing", "merge", "temporal"))
OPS = st.one_of(
    st.tuples(st.just("remember"), TEXTS, STRATEGIES, st.integers(-1, 3), st.integers(0, 3)),
    st.tuples(st.just("forget"), st.integers(0, 30)),
    st.tuples(st.just("resolve"), st.sampled_from(("use_new", "keep_existing", "merge"))),
    st.tuples(st.just("sweep"), st.integers(1, 60)),
    st.tuples(st.just("feedback"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("advance"), st.integers(1, 48)),
)
QUERIES = ("where does Alice live", "Bob's wife", "what happened yesterday",
           "where does Carol's husband work")


def answers(reader: Reader, now: datetime) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for query in QUERIES:
        for valid_at in (None, now - 2 * DAY, now + 5 * DAY):
            for hidden in (False, True):
                out[query, valid_at, hidden] = [
                    (h.memory_id, h.score, h.text) for h in reader.recall(
                        query, namespace="n", k=4, valid_at=valid_at, include_hidden=hidden)]
    out["memories"] = [msgspec.structs.asdict(m) for m in reader.memories()]
    out["conflicts"] = reader.conflicts(namespace="n", status=None)
    out["entities"] = reader.graph.entities(namespace="n")
    out["timelines"] = [reader.timeline(m["memory_id"]) for m in out["memories"]]
    out["hot"] = reader.hot(namespace="n")
    return out


def run(path: Path, program: list[tuple[Any, ...]], snapshot_every: int) -> None:
    # No purge: it drops a text's bytes from the store, so no view can show them afterwards.
    config = Config(record_recalls=False, snapshot_every=snapshot_every,
                    lifecycle=LifecycleParams(purge_after_deleted_days=1e9))
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    live: dict[int, tuple[dict[Any, Any], datetime]] = {}
    made: list[str] = []
    with eventmem.open(path, clock=clock, config=config) as mem:
        for op in program:
            if op[0] == "remember":
                _, text, strategy, start, length = op
                valid_from = None if start < 0 else clock.now() + start * DAY
                valid_until = None if not length or valid_from is None else \
                    valid_from + length * DAY
                made.append(mid(mem.remember(text, namespace="n", on_conflict=strategy,
                                         valid_from=valid_from,
                                         valid_until=valid_until)))
            elif op[0] == "forget" and made:
                mem.forget(made[op[1] % len(made)])
            elif op[0] == "resolve" and (open_ := mem.conflicts(namespace="n")):
                mem.resolve(open_[0].conflict_id, strategy=op[1])
            elif op[0] == "sweep":
                clock.advance(op[1] * DAY)
                mem.consolidate()
            elif op[0] == "feedback" and made:
                mem.feedback(made[op[1] % len(made)], useful=op[2])
            elif op[0] == "advance":
                clock.advance(timedelta(hours=op[1]))
            last_at = next(mem.events(mem.seq, mem.seq))[1].at
            if to_micros(clock.now()) <= last_at:  # the engine's now is the head's time
                live[mem.seq] = answers(mem, mem.now()), mem.now()
        for seq, (then, now) in live.items():
            view = mem.as_of(seq=seq)
            assert view.now() == now
            assert answers(view, now) == then, f"as_of(seq={seq}) differs from the live answer"
            rebuilt = View(mem.store, rebuild(mem.store, until=seq), mem.embedder, config,
                           to_micros(now))
            assert answers(rebuilt, now) == then, f"rebuild(until={seq}) differs"


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=st.lists(OPS, min_size=1, max_size=12),
       snapshot_every=st.sampled_from((3, 1_000)))
def test_a_view_of_seq_n_answers_as_the_engine_did_at_n(program: list[tuple[Any, ...]],
                                                         snapshot_every: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run(Path(tmp) / "store", program, snapshot_every)


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
    for when in (clock.now(), clock.now() - 2 * DAY, clock.now() + 30 * DAY):
        hits = mem.recall("Alice hiking", namespace="a", k=5, valid_at=when)
        assert ids(hits) == [merged.memory_id]
    # Known before the merge, the first version is the one that answers.
    before = mem.as_of(seq=cut)
    assert ids(before.recall("Alice hiking", namespace="a", k=5, valid_at=clock.now())) == [
        first]
    # Asked for hidden memories too, both versions come back.
    assert set(ids(mem.recall("Alice hiking", namespace="a", k=5, valid_at=clock.now(),
                              include_hidden=True))) == {first, merged.memory_id}

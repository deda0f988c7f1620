"""The knowledge graph through the engine: what the write path extracts and links is what
``mem.graph`` answers, on live stores, read-only views and rebuilds alike; and the graph API
refuses what it cannot answer as recall does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

import eventmem
from eventmem.errors import InvalidInputError
from replay import rebuild


def test_entities_and_relations_from_what_was_remembered(mem):
    mem.remember("Alice works at Acme and lives in Berlin", namespace="a")
    mem.remember("Alice is friends with Bob", namespace="a")
    mem.remember("Bob manages Carol", namespace="a")
    alice = mem.graph.entity("alice", namespace="a")
    assert (alice.name, alice.type, alice.mentions) == ("Alice", "person", 2)
    stated = {(r.subject, r.relation, r.object) for r in alice.relations if not r.derived}
    assert stated == {("alice", "works_at", "acme"), ("alice", "lives_in", "berlin"),
                      ("alice", "friend_of", "bob")}
    # friend_of is symmetric: Bob's profile shows the inverse, derived edge.
    bob = mem.graph.entity("Bob", namespace="a")
    assert ("bob", "friend_of", "alice", True) in {
        (r.subject, r.relation, r.object, r.derived) for r in bob.relations}
    two_hops = mem.graph.neighbors("Alice", namespace="a", hops=2)
    assert [(n.key, n.hops) for n in two_hops if n.key == "carol"] == [("carol", 2)]
    assert [n.key for n in mem.graph.neighbors("Alice", namespace="a", hops=1,
                                               entity_types=["organization"])] == ["acme"]
    assert len(mem.graph.memories("Alice", namespace="a")) == 2


def test_relation_strength_is_reinforced_and_fades(mem, clock):
    mem.remember("Dana works at Globex", namespace="d")
    first = next(r for r in mem.graph.entity("Dana", namespace="d").relations
                 if r.relation == "works_at")
    clock.advance(timedelta(days=1))
    mem.remember("Dana works at Globex in the data team", namespace="d")
    again = next(r for r in mem.graph.entity("Dana", namespace="d").relations
                 if r.relation == "works_at")
    assert again.count == 2 and again.confidence > first.confidence
    assert again.strength > first.strength
    clock.advance(timedelta(days=200))
    faded = next(r for r in mem.graph.entity("Dana", namespace="d").relations
                 if r.relation == "works_at")
    assert faded.strength < again.strength


def test_namespaces_never_share_entities(mem):
    mem.remember("Alice lives in Berlin", namespace="a")
    with pytest.raises(eventmem.NotFoundError):
        mem.graph.entity("Alice", namespace="b")
    assert mem.graph.entities(namespace="b") == []


def test_memory_links_record_supersession_conflict_and_shared_entities(mem, clock):
    old = mem.remember("Bob lives in Oslo", namespace="b").memory_id
    clock.advance(timedelta(days=3))
    new = mem.remember("Bob moved to Paris", namespace="b")
    assert new.action == "superseded" and new.neighbour == old
    links = {(link.other, link.relation) for link in mem.graph.links(new.memory_id,
                                                                     namespace="b")}
    assert (old, "supersedes") in links and (old, "contradicts") in links
    later = mem.remember("Bob adopted a dog in Paris because the flat is big", namespace="b")
    relations = {link.relation for link in mem.graph.links(later.memory_id, namespace="b")}
    assert "same_entity" in relations  # Paris, named by the memory it superseded Oslo with


def test_graph_answers_as_of_a_past_point(mem, clock):
    mem.remember("Alice works at Acme", namespace="a")
    cut = mem.seq
    mem.remember("Erin founded Initech", namespace="a")
    view = mem.as_of(seq=cut)
    assert view.graph.entity("Alice", namespace="a").name == "Alice"
    with pytest.raises(eventmem.NotFoundError):
        view.graph.entity("Erin", namespace="a")
    assert mem.graph.entity("Erin", namespace="a").type == "person"


def test_a_rebuild_and_a_reopen_give_the_same_graph(store_path, clock):
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember_many(["Alice works at Acme", "Alice is married to Sam",
                           "Sam's sister Kim lives in Lisbon"], namespace="a")
        live = mem._views.digests()["graph"]
        assert rebuild(mem.store).digests()["graph"] == live
    with eventmem.open(store_path, clock=clock) as mem:
        assert mem._views.digests()["graph"] == live
        assert mem.graph.entity("Sam", namespace="a").type == "person"


def test_an_entitys_timeline_and_what_we_believed_then_about_earlier(mem, clock, t0):
    berlin = mem.remember("Alice lives in Berlin", namespace="a").memory_id
    clock.advance(timedelta(days=40))
    believed_at = clock.now()
    clock.advance(timedelta(days=20))
    paris = mem.remember("Alice moved to Paris", namespace="a").memory_id
    assert [v.memory_id for v in mem.timeline(entity="Alice", namespace="a")] == [berlin, paris]
    first, second = mem.timeline(entity="Alice", namespace="a")
    assert first.valid_until == second.valid_from == clock.now()
    assert first.retracted_at == clock.now() and second.retracted_at is None
    # What did we believe, 40 days in, about where Alice lived on day 10? Berlin: Paris was not
    # known yet. And what do we believe now about day 10? Still Berlin (valid time).
    day10 = t0 + timedelta(days=10)
    then = mem.as_of(at=believed_at)
    assert [h.memory_id for h in then.recall("where does Alice live", namespace="a",
                                             valid_at=day10)] == [berlin]
    assert [h.memory_id for h in mem.recall("where does Alice live", namespace="a",
                                            valid_at=day10)] == [berlin]
    assert [h.memory_id for h in mem.recall("where does Alice live", namespace="a",
                                            valid_at=clock.now())] == [paris]
    with pytest.raises(eventmem.InvalidInputError):
        mem.timeline()


def test_recall_follows_the_graph_to_a_neighbours_memories(mem):
    mem.remember_many([
        "Alice is married to Sam",
        "Sam works at Initech as an accountant",
        "The weather in Lisbon was lovely",
        "I bought a new bike with a red frame",
        "We watched a documentary about whales",
    ], namespace="g")
    hits = mem.recall("Where does Alice's husband work?", namespace="g", k=3)
    by_id = {h.text: h for h in hits}
    sam = by_id["Sam works at Initech as an accountant"]
    # The question never names Sam: the graph channel reached his memory through Alice's
    # married_to edge (its rank is in the explain).
    assert sam.signals["graph_rank"] >= 1
    assert "Alice is married to Sam" in by_id


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

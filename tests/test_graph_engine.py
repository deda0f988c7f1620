"""The knowledge graph through the engine: what the write path extracts and links is what
``mem.graph`` answers, on live stores, read-only views and rebuilds alike."""

from __future__ import annotations

from datetime import timedelta

import pytest

import eventmem
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


def test_the_dream_cycle_prunes_relations_long_unstated_and_keeps_their_entities(mem, clock):
    mem.remember("Dana works at Globex", namespace="d")
    mem.remember("Erin works at Initech", namespace="d")
    clock.advance(timedelta(days=300))
    mem.remember("Erin works at Initech, still", namespace="d")  # restated: stays strong
    clock.advance(timedelta(days=200))
    report = mem.consolidate()
    assert report.pruned_relations == 1
    dana = mem.graph.entity("Dana", namespace="d")
    assert dana.relations == () and len(dana.memory_ids) == 1  # the entity and its memory stay
    assert [r.relation for r in mem.graph.entity("Erin", namespace="d").relations] == [
        "works_at"]
    assert mem.consolidate(now=clock.now()).pruned_relations == 0  # idempotent at one now
    assert rebuild(mem.store).digests() == mem._views.digests()
    assert mem.audit().ok
    # The event names relations by digest: no entity name enters the immutable log.
    [pruned] = [e for _, e in mem.events() if type(e).__name__ == "RelationsPruned"]
    assert "globex" not in repr(pruned).lower() and "dana" not in repr(pruned).lower()

"""The knowledge-graph projection (projections.graph) and its public facade (eventmem.graph)."""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable
from datetime import UTC, datetime

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem import codec
from eventmem.errors import InvalidInputError, NotFoundError
from eventmem.events import (
    ConflictFlagged,
    EntityRef,
    Event,
    Extraction,
    LifecycleTransitioned,
    MemoryIngested,
    MemoryLink,
    MemoryRecalled,
    MemorySuperseded,
    RelationRef,
    StatusChange,
)
from eventmem.graph import GraphReader, _key
from eventmem.policies.extract.relations import entity_key
from eventmem.storage.envelope import Envelope
from projections import graph as gv
from projections.graph import Graph, GraphDump, GraphParams

DAY = 86_400_000_000
T0 = 1_735_689_600_000_000  # 2025-01-01 UTC


# -- building events by hand ------------------------------------------------------------------


def ent(key: str, name: str | None = None, type: str = "person") -> EntityRef:
    return EntityRef(key=key, name=name or key.title(), type=type)  # type: ignore[arg-type]


def rel(subject: str, relation: str, obj: str, confidence: float = 0.8) -> RelationRef:
    return RelationRef(subject=subject, relation=relation, object=obj, confidence=confidence)


# The extraction of each content, as the store keeps it beside the text (by content hash).
EXTRACTIONS: dict[str, bytes] = {}


def ingest(mid: str, *, ns: str = "default", at: int = T0, entities: Iterable[EntityRef] = (),
           relations: Iterable[RelationRef] = (), links: Iterable[MemoryLink] = ()
           ) -> MemoryIngested:
    """An ingest whose content's extraction names these entities and relations."""
    extraction = codec.encode_value(Extraction(entities=tuple(entities),
                                               relations=tuple(relations)))
    chash = hashlib.blake2b(extraction, digest_size=16).hexdigest()
    EXTRACTIONS[chash] = extraction
    return MemoryIngested(at=at, namespace=ns, memory_id=mid, content_hash=chash,
                          dedup_key="d" + mid, kind="event", links=tuple(links))


def purge(*mids: str, ns: str = "default", at: int = T0, status: str = "purged"
          ) -> LifecycleTransitioned:
    return LifecycleTransitioned(at=at, namespace=ns, now=at, changes=tuple(
        StatusChange(memory_id=m, from_status="deleted", to_status=status, reason="purge",
                     retention=0.0) for m in mids))


def supersede(old: str, new: str, *, ns: str = "default", at: int = T0) -> MemorySuperseded:
    return MemorySuperseded(at=at, namespace=ns, memory_id=old, by=new, until=at, rule="update")


def conflict(existing: str, new: str, *, ns: str = "default", at: int = T0) -> ConflictFlagged:
    return ConflictFlagged(at=at, namespace=ns, conflict_id="c" + new, memory_id=existing,
                           other_id=new, content_hash="e" + new, rule="r", similarity=0.9,
                           strategy="ask")


def envelopes(events: Iterable[Event]) -> list[Envelope]:
    """The events as the log reader hands them to the fold: ingests with their extraction."""
    return [Envelope(seq, event, extraction=EXTRACTIONS.get(getattr(event, "content_hash", "")))
            for seq, event in enumerate(events, start=1)]


def fold(events: Iterable[Event], params: GraphParams | None = None) -> Graph:
    return gv.apply_many(Graph(params), envelopes(events))


def dump_bytes(graph: Graph) -> bytes:
    return codec.encode_value(graph.dump())


def reader(graph: Graph, now: int = T0) -> GraphReader:
    return GraphReader(lambda: graph, lambda: now)


# -- random histories -------------------------------------------------------------------------

KEYS = ("alice", "bob", "carol", "acme", "berlin")
RELATIONS = ("friend_of", "parent_of", "child_of", "works_at", "manages", "knows")


@st.composite
def histories(draw: st.DrawFn, namespaces: tuple[str, ...] = ("a", "b"),
              max_events: int = 24) -> list[Event]:
    """Ingests with entities, relations and links, supersessions, conflicts, recalls (which the
    graph ignores) and purges, over some namespaces; a purged memory is never referenced again.
    Each event's details come from one drawn seed: drawing every choice made generation the
    bulk of these tests' time, and shrinking still removes events and zeroes seeds."""
    events: list[Event] = []
    live: dict[str, list[str]] = {ns: [] for ns in namespaces}
    at = T0
    steps = draw(st.lists(st.tuples(st.sampled_from(
        ["ingest"] * 6 + ["supersede", "conflict", "purge", "recall"]), st.integers(0, 2**32)),
        min_size=1, max_size=max_events))
    for i, (op, seed) in enumerate(steps):
        rnd = random.Random(seed)
        at += rnd.choice([0, DAY // 24, 3 * DAY])
        ns = namespaces[seed % len(namespaces)]
        mids = live[ns]
        if op == "ingest" or not mids:
            mid = f"{ns}-m{i}"
            entities = [ent(k, rnd.choice([k.title(), k.upper()]),
                            rnd.choice(["person", "organization", "other"]))
                        for k in rnd.sample(KEYS, rnd.randint(0, 3))]
            relations = [rel(rnd.choice(KEYS), rnd.choice(RELATIONS), rnd.choice(KEYS),
                             rnd.choice([0.3, 0.5, 0.9])) for _ in range(rnd.randint(0, 2))]
            links = [MemoryLink(target=t, relation=rnd.choice(["related_to", "elaborates",
                                                               "causes"]),
                                weight=rnd.choice([0.2, 0.5, 0.7]))
                     for t in rnd.sample(mids, min(len(mids), rnd.randint(0, 2)))]
            events.append(ingest(mid, ns=ns, at=at, entities=entities, relations=relations,
                                 links=links))
            mids.append(mid)
        elif op in ("supersede", "conflict") and len(mids) >= 2:
            old, new = rnd.sample(mids, 2)
            make = supersede if op == "supersede" else conflict
            events.append(make(old, new, ns=ns, at=at))
        elif op == "purge":
            gone = rnd.sample(mids, min(len(mids), rnd.randint(1, 2)))
            events.append(purge(*gone, ns=ns, at=at, status=rnd.choice(["purged", "erased"])))
            live[ns] = [m for m in mids if m not in gone]
        else:
            events.append(MemoryRecalled(at=at, namespace=ns, query="q", k=1,
                                         memory_ids=(mids[0],), scores=(1.0,)))
    return events


def without(events: list[Event], gone: set[str]) -> list[Event]:
    """The history in which the memories ``gone`` were never ingested nor linked."""
    kept: list[Event] = []
    for e in events:
        match e:
            case MemoryIngested() if e.memory_id in gone:
                continue
            case MemoryIngested():
                kept.append(msgspec.structs.replace(
                    e, links=tuple(x for x in e.links if x.target not in gone)))
            case MemorySuperseded() | ConflictFlagged() if {e.memory_id, e.other_id if
                                                           isinstance(e, ConflictFlagged)
                                                           else e.by} & gone:
                continue
            case LifecycleTransitioned():
                continue
            case _:
                kept.append(e)
    return kept


def purged_in(events: list[Event]) -> set[str]:
    return {c.memory_id for e in events if isinstance(e, LifecycleTransitioned)
            for c in e.changes}


def canonical_adjacency(graph: Graph) -> Graph:
    """Sort each entity's edge list: its order records when an edge was first seen, which no
    query exposes (they all sort)."""
    for ns in graph.namespaces.values():
        for node in ns.entities.values():
            node.edges.sort()
    return graph


def everything(graph: Graph, ns: str, now: int) -> list[object]:
    """Every query's answer for every entity and memory a namespace could hold."""
    r = reader(graph, now)
    out: list[object] = [r.entities(namespace=ns)]
    for key in KEYS:
        out.append(gv.relations(graph, ns, key, now))
        out.append(gv.neighbors(graph, ns, key, now, hops=3))
        out.append(gv.memories_of(graph, ns, key))
    out.append(gv.reachable_memories(graph, ns, KEYS, now, hops=2))
    for i in range(30):
        for prefix in ("a", "b"):
            out.append(gv.memory_links(graph, ns, f"{prefix}-m{i}"))
    return out


# -- determinism, snapshots, chunking ---------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(histories())
def test_folding_the_same_events_twice_dumps_identical_bytes(events: list[Event]) -> None:
    assert dump_bytes(fold(events)) == dump_bytes(fold(events))


@settings(max_examples=100, deadline=None)
@given(histories(), st.data())
def test_dump_load_round_trip_then_folding_on_equals_folding_straight(
        events: list[Event], data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(events)))
    envs = envelopes(events)
    prefix = gv.apply_many(Graph(), envs[:cut])
    raw = dump_bytes(prefix)
    restored = Graph.load(msgspec.msgpack.decode(raw, type=GraphDump))
    assert dump_bytes(restored) == raw
    assert everything(restored, "a", T0 + 9 * DAY) == everything(prefix, "a", T0 + 9 * DAY)
    gv.apply_many(restored, envs[cut:])
    assert dump_bytes(restored) == dump_bytes(gv.apply_many(Graph(), envs))


@settings(max_examples=100, deadline=None)
@given(histories(), st.lists(st.integers(1, 6), min_size=1, max_size=8))
def test_one_at_a_time_equals_apply_many_over_chunks(events: list[Event],
                                                     sizes: list[int]) -> None:
    envs = envelopes(events)
    single = Graph()
    for env in envs:
        assert gv.apply(single, env) is single
    chunked, i, n = Graph(), 0, 0
    while i < len(envs):
        size = sizes[n % len(sizes)]
        gv.apply_many(chunked, iter(envs[i:i + size]))  # any iterable, consumed once
        i, n = i + size, n + 1
    assert dump_bytes(chunked) == dump_bytes(single)


# -- entities ---------------------------------------------------------------------------------


def test_entity_keeps_first_name_first_specific_type_times_and_mentions() -> None:
    graph = fold([
        ingest("m1", at=T0, entities=[ent("alice", "alice", "other")]),
        ingest("m2", at=T0 + DAY, entities=[ent("alice", "Alice", "person"),
                                            ent("alice", "ALICE", "place")]),  # once per memory
        ingest("m3", at=T0 + 2 * DAY, entities=[ent("alice", "Ally", "place")]),
        ingest("m4", at=T0 + 3 * DAY),  # no extraction: the graph does not change
    ])
    e = reader(graph).entity("Alice")
    assert (e.key, e.name, e.type, e.mentions) == ("alice", "alice", "person", 3)
    assert e.memory_ids == ("m1", "m2", "m3")
    assert e.first_seen == datetime(2025, 1, 1, tzinfo=UTC)
    assert e.last_seen == datetime(2025, 1, 3, tzinfo=UTC)
    assert e.first_seen.tzinfo is not None


def test_relation_endpoints_missing_from_entities_are_mentions_too() -> None:
    graph = fold([ingest("m1", relations=[rel("alice", "works_at", "acme"),
                                          rel("alice", "bad\x00name", "acme")])])
    acme = reader(graph).entity("acme")
    assert (acme.name, acme.type, acme.memory_ids) == ("acme", "other", ("m1",))
    # A key the extractor would never make is left out rather than crash a replay.
    assert [v.relation for v in acme.relations] == ["works_at"]


# -- relations --------------------------------------------------------------------------------


def triples(graph: Graph, key: str) -> set[tuple[str, str, str, bool]]:
    return {(v.subject, v.relation, v.object, v.derived)
            for v in gv.relations(graph, "default", key, T0)}


def test_symmetric_and_paired_relations_get_derived_inverses() -> None:
    graph = fold([ingest("m1", entities=[ent("a"), ent("b"), ent("c"), ent("d")], relations=[
        rel("a", "friend_of", "b"), rel("a", "parent_of", "c"), rel("d", "manages", "a"),
        rel("a", "works_at", "d")])])
    assert triples(graph, "a") == {
        ("a", "friend_of", "b", False), ("b", "friend_of", "a", True),
        ("a", "parent_of", "c", False), ("c", "child_of", "a", True),
        ("d", "manages", "a", False), ("a", "reports_to", "d", True),
        ("a", "works_at", "d", False),  # not invertible: no derived edge
    }
    assert ("c", "child_of", "a", True) in triples(graph, "c")


def test_a_stated_inverse_is_not_derived_again() -> None:
    graph = fold([ingest("m1", entities=[ent("a"), ent("b")], relations=[
        rel("a", "friend_of", "b"), rel("b", "friend_of", "a", 0.5)])])
    assert triples(graph, "a") == {("a", "friend_of", "b", False),
                                   ("b", "friend_of", "a", False)}


def test_repeated_relation_is_reinforced_toward_one_or_raised_to_a_higher_observation() -> None:
    r = ("alice", "works_at", "acme")
    graph = fold([
        ingest("m1", at=T0, relations=[rel(*r, 0.5)]),
        ingest("m2", at=T0 + DAY, relations=[rel(*r, 0.5), rel(*r, 0.5)]),  # once per memory
        ingest("m3", at=T0 + 2 * DAY, relations=[rel(*r, 0.9)]),
        ingest("m4", at=T0 + 3 * DAY, relations=[rel(*r, 0.1)]),
    ])
    edge = graph.namespaces["default"].edges[gv.edge_key(*r)]
    assert edge.count == 4
    assert edge.confidence == pytest.approx(0.92)  # 0.5 -> 0.6 -> 0.9 (higher) -> 0.92
    assert (edge.first_at, edge.last_at) == (T0, T0 + 3 * DAY)
    (view,) = [v for v in reader(graph).entity("alice").relations if not v.derived]
    assert (view.count, view.confidence) == (4, pytest.approx(0.92))


def test_strength_formula_at_a_given_now() -> None:
    params = GraphParams()
    edge = gv.Edge(0.8, T0, T0, ["m1", T0, 0.8])
    expected = 0.1 * 0.4 + math.exp(-1.0) * 0.3 + 0.8 * 0.5 ** (30 / 180) * 0.3
    assert gv.strength(edge, T0 + 30 * DAY, params) == pytest.approx(expected)
    assert gv.strength(edge, T0, params) == pytest.approx(0.04 + 0.3 + 0.24)
    assert gv.strength(edge, T0 - DAY, params) == gv.strength(edge, T0, params)  # no future
    many = gv.Edge(1.0, T0, T0, ["m", T0, 1.0] * 25)
    assert gv.strength(many, T0, params) == pytest.approx(1.0)  # the count saturates at 10
    assert gv.strength(edge, T0 + 180 * DAY, GraphParams(recency_days=1e9)) == pytest.approx(
        0.04 + 0.3 + 0.4 * 0.3)  # confidence halves in its half-life


def test_relations_sort_by_strength_then_key() -> None:
    graph = fold([
        ingest("m1", at=T0, relations=[rel("a", "likes", "z"), rel("a", "likes", "y")]),
        ingest("m2", at=T0 + DAY, relations=[rel("a", "likes", "z")]),
        ingest("m3", at=T0 + DAY, relations=[rel("a", "likes", "x", 0.8)]),
    ])
    views = gv.relations(graph, "default", "a", T0 + DAY)
    assert [v.object for v in views] == ["z", "x", "y"]  # twice seen; then fresher; then older
    assert views == sorted(views, key=lambda v: (-v.strength, v.subject, v.relation, v.object))


# -- neighbours and reachable memories -------------------------------------------------------


def chain() -> Graph:
    """a -friend_of- b -works_at- acme <-works_at- c ; b -parent_of- d ; acme is in berlin."""
    return fold([ingest("m1", entities=[
        ent("a"), ent("b"), ent("c"), ent("d"), ent("acme", type="organization"),
        ent("berlin", type="place")], relations=[
        rel("a", "friend_of", "b"), rel("b", "works_at", "acme"), rel("c", "works_at", "acme"),
        rel("b", "parent_of", "d"), rel("acme", "located_in", "berlin")])])


def test_neighbors_respect_hops_and_report_the_path() -> None:
    graph = chain()
    one = gv.neighbors(graph, "default", "a", T0, hops=1)
    assert [(n.key, n.hops, n.via) for n in one] == [("b", 1, (("a", "friend_of", "b"),))]
    two = gv.neighbors(graph, "default", "a", T0, hops=2)
    assert [(n.key, n.hops) for n in two] == [("b", 1), ("acme", 2), ("d", 2)]
    three = {n.key: n for n in gv.neighbors(graph, "default", "a", T0, hops=3)}
    assert set(three) == {"b", "acme", "d", "c", "berlin"}
    # Against its direction an invertible edge reads the derived way, any other as stated.
    assert three["c"].via[-1] == ("c", "works_at", "acme")
    up = gv.neighbors(graph, "default", "d", T0, hops=1)
    assert up[0].via == (("d", "child_of", "b"),)
    assert three["c"].score == pytest.approx(
        gv.strength(graph.namespaces["default"].edges[gv.edge_key("a", "friend_of", "b")],
                    T0, graph.params) ** 3)


def test_neighbor_type_filters_limit_the_walk_and_limit_truncates() -> None:
    graph = chain()
    persons = gv.neighbors(graph, "default", "a", T0, hops=3, entity_types=["person"])
    assert [n.key for n in persons] == ["b", "d"]  # acme is not entered, so c is not reached
    works = gv.neighbors(graph, "default", "b", T0, hops=2, relation_types=["works_at"])
    assert [n.key for n in works] == ["acme", "c"]
    # A derived name matches the stored edge it inverts.
    assert [n.key for n in gv.neighbors(graph, "default", "d", T0, relation_types=[
        "child_of"])] == ["b"]
    assert len(gv.neighbors(graph, "default", "a", T0, hops=3, limit=2)) == 2
    assert gv.neighbors(graph, "default", "a", T0, hops=0) == []
    assert gv.neighbors(graph, "default", "nobody", T0) == []


def test_reachable_memories_score_direct_mentions_one_and_paths_by_strength_product() -> None:
    graph = fold([
        ingest("m1", entities=[ent("a")]),
        ingest("m2", entities=[ent("a"), ent("b")], relations=[rel("a", "knows", "b")]),
        ingest("m3", entities=[ent("c")], relations=[rel("b", "knows", "c")]),
        ingest("m4", entities=[ent("d")], relations=[rel("c", "knows", "d")]),
    ])
    edges = graph.namespaces["default"].edges
    s_ab = gv.strength(edges[gv.edge_key("a", "knows", "b")], T0, graph.params)
    s_bc = gv.strength(edges[gv.edge_key("b", "knows", "c")], T0, graph.params)
    found = gv.reachable_memories(graph, "default", ["a"], T0, hops=2)
    # m3 states b knows c, so it mentions b (one hop); m4 mentions c (two hops).
    assert found == [("m1", 1.0), ("m2", 1.0), ("m3", pytest.approx(s_ab)),
                     ("m4", pytest.approx(s_ab * s_bc))]
    assert gv.reachable_memories(graph, "default", ["a"], T0, hops=2, limit=1) == [("m1", 1.0)]
    assert gv.reachable_memories(graph, "default", ["a"], T0, hops=0) == [("m1", 1.0),
                                                                          ("m2", 1.0)]


# -- memory links -----------------------------------------------------------------------------


def link(target: str, weight: float, relation: str = "related_to") -> MemoryLink:
    return MemoryLink(target=target, relation=relation, weight=weight)  # type: ignore[arg-type]


def test_links_are_kept_both_ways_from_ingests_supersessions_and_conflicts() -> None:
    graph = fold([ingest("m1"), ingest("m2", links=[link("m1", 0.4)]),
                  ingest("m3", links=[link("m1", 0.6), link("m1", 0.9)]),  # the stronger kept
                  supersede("m1", "m3"), conflict("m2", "m3")])
    r = reader(graph)
    assert [(x.other, x.relation, x.weight, x.direction) for x in r.links("m1")] == [
        ("m3", "supersedes", 1.0, "in"), ("m3", "related_to", 0.9, "in"),
        ("m2", "related_to", 0.4, "in")]
    assert [(x.other, x.relation, x.direction) for x in r.links("m3")] == [
        ("m1", "supersedes", "out"), ("m2", "contradicts", "out"), ("m1", "related_to", "out")]
    assert r.links("m1", namespace="other") == []


def test_cap_prunes_weakest_prunable_link_first_and_keeps_log_facts() -> None:
    params = GraphParams(max_links_per_memory=4)
    events: list[Event] = [supersede("old", "hub"), conflict("rival", "hub"),
                           ingest("hub", links=[link("x", 0.5), link("b", 0.2), link("a", 0.2)])]
    graph = fold(events, params)

    def held() -> set[tuple[str, str]]:
        return {(x.other, x.relation) for x in gv.memory_links(graph, "default", "hub")}

    # a and b tie at 0.2: a, the lower id, goes; supersedes and contradicts are never candidates.
    assert held() == {("old", "supersedes"), ("rival", "contradicts"), ("x", "related_to"),
                      ("b", "related_to")}
    assert gv.memory_links(graph, "default", "a") == []  # the mirror went with it
    gv.apply_many(graph, envelopes([ingest("c", links=[link("hub", 0.1)])]))
    assert ("c", "related_to") not in held()  # the new link itself was the weakest
    assert gv.memory_links(graph, "default", "c") == []
    gv.apply_many(graph, envelopes([ingest("y", links=[link("hub", 0.9)])]))
    assert held() == {("old", "supersedes"), ("rival", "contradicts"), ("x", "related_to"),
                      ("y", "related_to")}
    gv.apply_many(graph, envelopes([supersede("older", "hub"), conflict("other", "hub"),
                                    supersede("oldest", "hub")]))
    assert held() == {("old", "supersedes"), ("rival", "contradicts"), ("older", "supersedes"),
                      ("other", "contradicts"), ("oldest", "supersedes")}  # past the cap


def test_cap_is_held_on_the_target_side_too() -> None:
    params = GraphParams(max_links_per_memory=2)
    graph = fold([ingest("t"), ingest("m1", links=[link("t", 0.3)]),
                  ingest("m2", links=[link("t", 0.1)]), ingest("m3", links=[link("t", 0.9)])],
                 params)
    assert [x.other for x in gv.memory_links(graph, "default", "t")] == ["m3", "m1"]
    assert gv.memory_links(graph, "default", "m2") == []


# -- purges -----------------------------------------------------------------------------------


def test_purge_removes_every_trace_of_a_memory() -> None:
    graph = fold([
        ingest("m1", at=T0, entities=[ent("alice", "Ali")], relations=[
            rel("alice", "friend_of", "bob", 0.9)]),
        ingest("m2", at=T0 + DAY, entities=[ent("alice", "Alice", "other"), ent("carol")],
               relations=[rel("alice", "friend_of", "bob", 0.4), rel("alice", "knows", "carol")],
               links=[link("m1", 0.5)]),
        supersede("m1", "m2"),
        purge("m1", status="erased"),
    ])
    r = reader(graph)
    alice = r.entity("alice")
    assert (alice.name, alice.type, alice.memory_ids) == ("Alice", "other", ("m2",))
    assert alice.first_seen == datetime(2025, 1, 2, tzinfo=UTC)
    (friend,) = [x for x in alice.relations if x.relation == "friend_of" and not x.derived]
    assert (friend.count, friend.confidence) == (1, 0.4)  # as if m1 had never said 0.9
    assert r.links("m2") == [] and r.links("m1") == []
    gv.apply(graph, Envelope(9, purge("m2")))
    assert graph.namespaces == {}  # nothing of either memory is left
    with pytest.raises(NotFoundError):
        r.entity("alice")


@settings(max_examples=150, deadline=None)
@given(histories(namespaces=("a",)))
def test_purge_equals_never_having_ingested(events: list[Event]) -> None:
    big = GraphParams(max_links_per_memory=1000)  # pruning under the cap has no undo
    purged = fold(events, big)
    never = fold(without(events, purged_in(events)), big)
    assert dump_bytes(canonical_adjacency(purged)) == dump_bytes(canonical_adjacency(never))
    raw = dump_bytes(purged)
    for mid in purged_in(events):  # as msgpack strings: a-m1 must not match inside a-m13
        assert codec.encode_value(mid) not in raw


@settings(max_examples=150, deadline=None)
@given(histories(namespaces=("a",)), st.integers(0, 400), st.floats(0.05, 0.9))
def test_weak_edges_judge_a_pending_purge_as_its_fold_leaves_the_graph(
        events: list[Event], days: int, below: float) -> None:
    """The dream cycle judges relations on the graph as the cycle began, knowing which memories
    its own sweep purges: that must be what folding the purge gives (and so what a rebuild,
    which never sees a purged memory's extraction, gives)."""
    gone = purged_in(events)
    before = [e for e in events if not isinstance(e, LifecycleTransitioned)]
    now = T0 + days * DAY
    judged = gv.weak_edges(fold(before), "a", now, below=below, idle_days=30,
                           purged=frozenset(gone))
    folded = gv.weak_edges(fold(without(before, gone)), "a", now, below=below, idle_days=30)
    assert judged == folded


def test_a_relation_only_purged_memories_stated_is_not_pruned_but_dropped() -> None:
    r = ("alice", "lives_in", "paris")
    graph = fold([ingest("m1", at=T0, relations=[rel(*r, 0.5)]),
                  ingest("m2", at=T0 + 200 * DAY, relations=[rel(*r, 0.5)])])
    late = T0 + 400 * DAY
    assert [d for d, _ in gv.weak_edges(graph, "default", late, below=0.5, idle_days=30)]
    assert gv.weak_edges(graph, "default", late, below=0.5, idle_days=30,
                         purged=frozenset({"m1", "m2"})) == []
    # m2 purged: judged on m1's statement alone (older, so weaker), the graph left untouched.
    alone = gv.weak_edges(graph, "default", late, below=0.5, idle_days=30,
                          purged=frozenset({"m2"}))
    both = gv.weak_edges(graph, "default", late, below=0.5, idle_days=30)
    assert alone[0][1] < both[0][1]
    assert graph.namespaces["default"].edges[gv.edge_key(*r)].count == 2


# -- namespaces -------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(histories(namespaces=("a", "b"), max_events=30))
def test_a_namespace_answers_as_if_the_other_did_not_exist(events: list[Event]) -> None:
    both = fold(events)
    alone = fold([e for e in events if e.namespace == "a"])
    now = events[-1].at + DAY
    assert everything(both, "a", now) == everything(alone, "a", now)
    for answer in everything(both, "a", now):
        assert "b-m" not in repr(answer)


# -- the facade -------------------------------------------------------------------------------


def test_key_normalization_is_extractions() -> None:
    assert _key("Alice's") == "alice"
    assert _key("  ACME,   Inc. ") == "acme inc"
    assert _key("Zoë’s") == "zoë"
    assert _key("new_york") == "new york" == entity_key("New York")
    with pytest.raises(InvalidInputError):
        _key("  ...  ")
    with pytest.raises(InvalidInputError):
        _key(42)  # type: ignore[arg-type]


def test_reader_queries_by_name_per_namespace() -> None:
    graph = fold([
        ingest("m1", ns="alice", entities=[ent("alice", "Alice"), ent("acme", "Acme",
                                                                     "organization")],
               relations=[rel("alice", "works_at", "acme")]),
        ingest("m2", ns="alice", entities=[ent("alice", "Alice")]),
    ])
    now = T0 + 10 * DAY
    r = GraphReader(lambda: graph, lambda: now)
    assert r.memories("Alice's", namespace="alice") == ["m1", "m2"]
    assert [(n.key, n.name, n.type) for n in r.neighbors("ALICE", namespace="alice")] == [
        ("acme", "Acme", "organization")]
    assert [e.key for e in r.entities(namespace="alice")] == ["alice", "acme"]  # most mentioned
    assert [e.key for e in r.entities(namespace="alice", type="organization")] == ["acme"]
    assert r.entity("acme", namespace="alice").relations[0].strength == pytest.approx(
        gv.strength(graph.namespaces["alice"].edges[gv.edge_key("alice", "works_at", "acme")],
                    now, graph.params))
    assert r.entities() == []
    for call in (r.entity, r.memories, r.neighbors):
        with pytest.raises(NotFoundError, match="no entity 'Alice'"):
            call("Alice")  # the default namespace has none

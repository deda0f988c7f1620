"""Memory-to-memory links (projections/links.py, folded by projections/graph.py): the O(1)
buckets fold exactly as the rule reads one link at a time (a plain list model, written here),
under small caps, self links, repeated links, supersessions, conflicts and purges; the columnar
dump is canonical, and a loaded dump answers and folds on as the graph it was taken from."""

from __future__ import annotations

import hashlib
import random
from typing import cast

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventmem import codec
from eventmem.events import (
    ConflictFlagged,
    Event,
    LifecycleTransitioned,
    MemoryIngested,
    MemoryLink,
    MemorySuperseded,
    StatusChange,
)
from eventmem.storage.envelope import Envelope
from projections import graph as gv
from projections.graph import Graph, GraphDump, GraphParams
from projections.links import Links, LinksDump, flip, link_key, split_link

T0 = 1_700_000_000_000_000
UNPRUNABLE = {"supersedes", "contradicts"}


# -- the rule, one link at a time, on plain lists ----------------------------------------------


class Model:
    """Each memory's links as a list of [other, relation, weight, outgoing], as the rule says:
    add on both ends (a repeat keeps the strongest weight), then hold the carrier and then the
    target to the cap by dropping the weakest prunable link (ties by other, relation,
    direction) from both of its ends; a purge drops every link of the purged memories."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.links: dict[str, list[list[object]]] = {}

    def link(self, source: str, target: str, relation: str, weight: float) -> None:
        if source == target:
            return
        for mid, other, out in ((source, target, True), (target, source, False)):
            entries = self.links.setdefault(mid, [])
            for e in entries:
                if e[0] == other and e[1] == relation and e[3] == out:
                    e[2] = max(cast(float, e[2]), weight)
                    break
            else:
                entries.append([other, relation, weight, out])
        self.hold(source)
        self.hold(target)

    def hold(self, mid: str) -> None:
        entries = self.links.get(mid)
        while entries is not None and len(entries) > self.cap:
            prunable = [e for e in entries if e[1] not in UNPRUNABLE]
            if not prunable:
                return
            weakest = min(prunable, key=lambda e: (e[2], e[0], e[1], e[3]))
            entries.remove(weakest)
            self.drop(str(weakest[0]), mid, weakest[1], not weakest[3])
        if entries is not None and not entries:
            del self.links[mid]

    def drop(self, mid: str, other: str, relation: object, out: object) -> None:
        entries = self.links.get(mid, [])
        entries[:] = [e for e in entries if not (e[0] == other and (
            relation is None or (e[1] == relation and e[3] == out)))]
        if not entries:
            self.links.pop(mid, None)

    def purge(self, mids: set[str]) -> None:
        for mid in sorted(mids):
            for e in self.links.pop(mid, []):
                self.drop(str(e[0]), mid, None, None)

    def held(self, mid: str) -> list[tuple[object, ...]]:
        return sorted(tuple(e) for e in self.links.get(mid, []))


def apply_model(model: Model, event: Event) -> None:
    match event:
        case MemoryIngested():
            for x in event.links:
                model.link(event.memory_id, x.target, x.relation, x.weight)
        case MemorySuperseded() if event.memory_id != event.by:
            model.link(event.by, event.memory_id, "supersedes", 1.0)
        case ConflictFlagged() if event.memory_id != event.other_id:
            model.link(event.other_id, event.memory_id, "contradicts", 1.0)
        case LifecycleTransitioned():
            model.purge({c.memory_id for c in event.changes})
        case _:
            pass


# -- histories that stress the links -----------------------------------------------------------

MIDS = [f"m{i}" for i in range(40)]


def _ingest(mid: str, links: list[MemoryLink]) -> MemoryIngested:
    return MemoryIngested(at=T0, namespace="n", memory_id=mid,
                          content_hash=hashlib.blake2b(mid.encode(), digest_size=16).hexdigest(),
                          dedup_key=mid, kind="event", links=tuple(links))


@st.composite
def link_histories(draw: st.DrawFn) -> list[Event]:
    """Mostly new memories linking to earlier ones (as a store grows), with now and then a
    repeated id, a link to itself or to a memory never seen, a repeated link; supersessions,
    conflicts and purges. Few memories and small caps, so caps act often."""
    steps = draw(st.lists(st.tuples(st.sampled_from(["ingest"] * 6 + ["supersede", "conflict",
                                                                      "purge"]),
                                    st.integers(0, 2**32)), min_size=1, max_size=36))
    events: list[Event] = []
    seen: list[str] = []
    for i, (op, seed) in enumerate(steps):
        rnd = random.Random(seed)
        pool = seen or [MIDS[0]]
        if op == "ingest":
            mid = MIDS[i] if rnd.random() < 0.85 or not seen else rnd.choice(seen)
            targets = [*pool, mid, MIDS[-1]] if rnd.random() < 0.2 else pool
            links = [MemoryLink(target=rnd.choice(targets),
                                relation=rnd.choice(["related_to", "same_entity", "causes"]),
                                weight=rnd.choice([0.1, 0.2, 0.5, 0.9]))
                     for _ in range(rnd.randint(0, 4))]
            events.append(_ingest(mid, links))
            if mid not in seen:
                seen.append(mid)
        elif op == "supersede":
            events.append(MemorySuperseded(at=T0, namespace="n", memory_id=rnd.choice(pool),
                                           by=rnd.choice(pool), until=T0, rule="update"))
        elif op == "conflict":
            events.append(ConflictFlagged(at=T0, namespace="n", conflict_id="c",
                                          memory_id=rnd.choice(pool), other_id=rnd.choice(pool),
                                          content_hash="e", rule="r", similarity=0.9,
                                          strategy="ask"))
        else:
            events.append(LifecycleTransitioned(at=T0, namespace="n", now=T0, changes=tuple(
                StatusChange(memory_id=m, from_status="deleted", to_status="purged",
                             reason="purge", retention=0.0)
                for m in rnd.sample(pool, min(len(pool), rnd.randint(1, 2))))))
    return events


def envs(events: list[Event]) -> list[Envelope]:
    return [Envelope(seq, e) for seq, e in enumerate(events, start=1)]


def held(graph: Graph, mid: str) -> list[tuple[object, ...]]:
    return sorted((x.other, x.relation, x.weight, x.outgoing)
                  for x in gv.memory_links(graph, "n", mid))


def dump_bytes(graph: Graph) -> bytes:
    return codec.encode_value(graph.dump())


def reload(graph: Graph) -> Graph:
    return Graph.load(msgspec.msgpack.decode(dump_bytes(graph), type=GraphDump))


CAPS = st.sampled_from([0, 1, 2, 3, 32])


# -- the fold against the rule -----------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(link_histories(), CAPS)
def test_links_fold_as_the_rule_reads_one_link_at_a_time(events: list[Event], cap: int) -> None:
    model = Model(cap)
    for e in events:
        apply_model(model, e)
    graph = gv.apply_many(Graph(GraphParams(max_links_per_memory=cap)), envs(events))
    for mid in MIDS:
        assert held(graph, mid) == model.held(mid)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(link_histories(), CAPS, st.data())
def test_a_loaded_dump_answers_and_folds_on_as_the_original(events: list[Event], cap: int,
                                                              data: st.DataObject) -> None:
    cut = data.draw(st.integers(0, len(events)))
    params = GraphParams(max_links_per_memory=cap)
    straight = gv.apply_many(Graph(params), envs(events))
    prefix = gv.apply_many(Graph(params), envs(events[:cut]))
    restored = reload(prefix)
    assert dump_bytes(restored) == dump_bytes(prefix)  # untouched: the same columns
    for mid in MIDS:  # read in place, before the fold takes any holder's rows
        assert held(restored, mid) == held(prefix, mid)
    gv.apply_many(restored, envs(events)[cut:])
    assert dump_bytes(restored) == dump_bytes(straight)
    for mid in MIDS:
        assert held(restored, mid) == held(straight, mid)


def test_the_dump_is_the_same_whatever_order_the_links_were_held_in() -> None:
    entries = [("a", ("b", "related_to", True), 0.5), ("b", ("a", "related_to", False), 0.5),
               ("a", ("c", "causes", True), 0.25), ("c", ("a", "causes", False), 0.25),
               ("c", ("b", "same_entity", True), 1.0), ("b", ("c", "same_entity", False), 1.0),
               ("a", ("b", "causes", False), 0.75), ("b", ("a", "causes", True), 0.75)]
    dumps = set()
    for seed in range(6):
        shuffled = entries[:]
        random.Random(seed).shuffle(shuffled)
        links = Links()
        for mid, key, weight in shuffled:
            links.bucket(mid)[link_key(*key)] = weight
        dumps.add(codec.encode_value(links.dump()))
    assert len(dumps) == 1
    dump = msgspec.msgpack.decode(dumps.pop(), type=LinksDump)
    assert dump.ids == ("a", "b", "c")
    assert dump.relations == ("causes", "related_to", "same_entity")


def test_a_holder_taken_from_the_loaded_rows_dumps_as_before() -> None:
    links = Links()
    for mid, other in (("x", "y"), ("y", "x")):
        links.bucket(mid)[link_key(other, "related_to", mid == "x")] = 0.5
    raw = codec.encode_value(links.dump())
    loaded = Links(msgspec.msgpack.decode(raw, type=LinksDump))
    assert len(loaded) == 2 and loaded.view("x") == [("y", "related_to", 0.5, True)]
    assert loaded.get("x") == {link_key("y", "related_to", True): 0.5}  # taken: now a bucket
    assert len(loaded) == 2
    assert codec.encode_value(loaded.dump()) == raw
    loaded.discard("x", link_key("y", "related_to", True))
    loaded.discard("y", link_key("x", "related_to", False))
    assert len(loaded) == 0 and codec.encode_value(loaded.dump()) == codec.encode_value(
        Links().dump())


def test_relations_no_longer_held_leave_the_table() -> None:
    graph = gv.apply_many(Graph(), envs([
        _ingest("a", [MemoryLink(target="b", relation="causes", weight=0.5)]),
        _ingest("c", [MemoryLink(target="b", relation="related_to", weight=0.5)])]))
    restored = reload(graph)
    purge = LifecycleTransitioned(at=T0, namespace="n", now=T0, changes=(StatusChange(
        memory_id="a", from_status="deleted", to_status="purged", reason="p", retention=0.0),))
    gv.apply(restored, Envelope(3, purge))
    gv.apply(graph, Envelope(3, purge))
    assert restored.dump().namespaces["n"].links.relations == ("related_to",)
    assert dump_bytes(restored) == dump_bytes(graph)


@pytest.mark.parametrize("field", ["counts", "others", "codes"])
def test_damaged_link_columns_are_refused(field: str) -> None:
    links = Links()
    links.bucket("a")[link_key("b", "related_to", True)] = 0.5
    links.bucket("b")[link_key("a", "related_to", False)] = 0.5
    dump = links.dump()
    bad = {"counts": b"\x09\x00\x00\x00\x01\x00\x00\x00", "others": b"\x07\x00\x00\x00" * 2,
           "codes": b"\x09\x00" * 2}[field]
    with pytest.raises(ValueError):
        Links(msgspec.structs.replace(dump, **{field: bad}))


NAMES = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(NAMES, NAMES, st.booleans()), min_size=2, max_size=6))
def test_link_keys_split_back_and_sort_as_their_tuples(links: list[tuple[str, str, bool]]) -> None:
    for other, relation, outgoing in links:
        key = link_key(other, relation, outgoing)
        assert split_link(key) == (other, relation, outgoing)
        assert flip(key, "h") == link_key("h", relation, not outgoing)
    # The cap breaks weight ties by key: the keys must sort as the tuples they stand for.
    assert sorted(links) == [split_link(k) for k in sorted(link_key(*x) for x in links)]

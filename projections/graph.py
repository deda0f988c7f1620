"""The knowledge-graph projection: entities, typed relations and memory-to-memory links.

A fold of the extraction stored with each ingested memory's content (``Envelope.extraction``:
entities and relations), of the links its ingest recorded (``MemoryIngested.links``), of
supersessions and flagged conflicts (links), and of purges and erasures (which remove every
trace). Everything lives per namespace: a namespace never sees another's entities or memories.

Only stored facts are folded. Inverse edges of symmetric and paired relations (``friend_of``,
``parent_of`` / ``child_of``...) are derived at query time from the stored edge, which halves the
fold's work and leaves a purge one edge to remove. Strength is a pure function of an edge and
``now``.

Each entity and edge keeps its observations (memory, time, surface form or confidence) so that a
purge can recompute it as if the purged memories had never been ingested: their name, type, times
and reinforced confidence leave no trace.

This module holds, in order, the structures the graph folds into (and a snapshot holds), the
fold, and the pure read functions that weigh and walk the graph.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, MutableMapping
from typing import NamedTuple, cast

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.errors import CorruptRecordError
from eventmem.events import (
    ConflictFlagged,
    Extraction,
    LifecycleTransitioned,
    MemoryErased,
    MemoryIngested,
    MemoryLink,
    MemorySuperseded,
    RelationsPruned,
    edge_digest,
    purged_ids,
)
from eventmem.storage.envelope import Envelope
from projections.links import IN, OUT, SEP, Bucket, Key, Links, LinksDump, flip, split_link

# The knowledge graph's structures: its parameters, entities, edges, per-namespace graphs and
# their snapshot form, and the keys of stored edges.
#
# The fold (below) builds them, the read functions (after it) weigh and walk them; a snapshot
# holds :class:`GraphDump`.

EDGE_SEP = "\x00"  # entity keys are normalized words and spaces: they never contain it


class GraphParams(msgspec.Struct, frozen=True, kw_only=True):
    """How the graph folds and weighs. ``reinforce`` and ``max_links_per_memory`` shape the fold
    (the graph keeps the ones it was built with); the rest only shape strength at query time."""

    reinforce: float = 0.2  # a repeated relation moves its confidence this far toward 1
    max_links_per_memory: int = 32  # beyond it, the weakest prunable link of the memory goes
    count_saturation: int = 10  # observations past this add no strength
    count_weight: float = 0.4
    recency_weight: float = 0.3
    confidence_weight: float = 0.3
    recency_days: float = 30.0  # recency = exp(-days since last seen / recency_days)
    confidence_half_life_days: float = 180.0  # unconfirmed confidence halves in this time


class EntityNode(msgspec.Struct, array_like=True, gc=False):
    """One entity of a namespace and its mentions, in log order."""

    name: str  # the surface form of its first mention
    type: str  # the first type other than "other" among its mentions
    first_at: int
    last_at: int
    # Four items per mention: memory id, time, surface form (None: same as ``name``), type. One
    # flat list, not four: a rebuild creates one per new entity, and containers are its cost.
    mentions: list[str | int | None]
    edges: list[str]  # keys of the stored edges it is subject or object of, first seen first

    @property
    def memory_ids(self) -> list[str]:
        """The memories that mention it, each once, in log order."""
        return self.mentions[0::4]  # type: ignore[return-value]


class Edge(msgspec.Struct, array_like=True, gc=False):
    """One stored relation (subject, relation, object) and its observations, in log order."""

    confidence: float  # reinforced by every observation
    first_at: int
    last_at: int
    observations: list[str | int | float]  # three per observation: memory id, time, confidence

    @property
    def count(self) -> int:
        """How many memories stated it."""
        return len(self.observations) // 3

    @property
    def memory_ids(self) -> list[str]:
        """The memories that stated it, each once, in log order."""
        return self.observations[0::3]  # type: ignore[return-value]


class NamespaceGraph:
    """The graph of one namespace."""

    __slots__ = ("edges", "entities", "links")

    def __init__(self, entities: MutableMapping[str, EntityNode] | None = None,
                 edges: MutableMapping[str, Edge] | None = None,
                 links: Links | None = None) -> None:
        # Loaded from a snapshot, these are projections.columns.LazyMap (decoded on first use).
        self.entities: MutableMapping[str, EntityNode] = {} if entities is None else entities
        # by "subject NUL relation NUL object"
        self.edges: MutableMapping[str, Edge] = {} if edges is None else edges
        self.links = Links() if links is None else links  # memory id -> its links


class NamespaceDump(msgspec.Struct, array_like=True):
    """One namespace's graph as a snapshot holds it."""

    entities: MutableMapping[str, EntityNode]
    edges: MutableMapping[str, Edge]
    links: LinksDump


class GraphDump(msgspec.Struct, kw_only=True):
    """The serializable graph; canonical under :func:`eventmem.codec.encode_value` (maps are
    encoded with sorted keys, mentions and observations are in log order, links are sorted)."""

    params: GraphParams
    namespaces: dict[str, NamespaceDump]


class Graph:
    """Every namespace's graph, folded in place (see :func:`apply`)."""

    __slots__ = ("namespaces", "params")

    def __init__(self, params: GraphParams | None = None) -> None:
        self.params = params if params is not None else GraphParams()
        self.namespaces: dict[str, NamespaceGraph] = {}

    def dump(self) -> GraphDump:
        """The canonical serializable form (shares the live entities and edges: encode it at
        once)."""
        return GraphDump(params=self.params, namespaces={
            name: NamespaceDump(ns.entities, ns.edges, ns.links.dump())
            for name, ns in self.namespaces.items()})

    @classmethod
    def load(cls, dump: GraphDump) -> Graph:
        """The graph a dump was taken from (folding on behaves as on the original)."""
        graph = cls(dump.params)
        graph.namespaces = {name: NamespaceGraph(ns.entities, ns.edges, Links(ns.links))
                            for name, ns in dump.namespaces.items()}
        return graph


def edge_key(subject: str, relation: str, obj: str) -> str:
    """The key of a stored edge in :attr:`NamespaceGraph.edges`."""
    return f"{subject}{EDGE_SEP}{relation}{EDGE_SEP}{obj}"


def split_key(key: str) -> tuple[str, str, str]:
    """(subject, relation, object) of an edge key."""
    subject, relation, obj = key.split(EDGE_SEP)
    return subject, relation, obj


def refold_edge(edge: Edge, purged: frozenset[str], reinforce: float) -> bool:
    """Keep only the observations of surviving memories, and recompute what they decide (the
    fold's own arithmetic, so the edge is as if the purged memories had never stated it); False
    when none is left."""
    obs = edge.observations
    keep = [i for i in range(0, len(obs), 3) if obs[i] not in purged]
    if not keep:
        return False
    edge.observations = [item for i in keep for item in obs[i:i + 3]]
    confidences = cast(list[float], edge.observations[2::3])
    confidence = confidences[0]
    for c in confidences[1:]:  # the fold's own arithmetic, in the same order
        confidence = max(confidence + (1.0 - confidence) * reinforce, c)
    edge.confidence = confidence
    ats = cast(list[int], edge.observations[1::3])
    edge.first_at, edge.last_at = min(ats), max(ats)
    return True


# The graph's public names: its structures, the fold and the read functions.
__all__ = [
    "INVERSE",
    "SYMMETRIC",
    "UNPRUNABLE",
    "Edge",
    "EdgeView",
    "EntityNode",
    "Graph",
    "GraphDump",
    "GraphParams",
    "LinkView",
    "NamespaceDump",
    "NamespaceGraph",
    "NeighborView",
    "apply",
    "apply_many",
    "edge_key",
    "entity",
    "entity_keys",
    "latest_memories",
    "memories_of",
    "memory_links",
    "neighbors",
    "reachable_memories",
    "relations",
    "split_key",
    "strength",
    "weak_edges",
]

# Links that record facts of the log; the cap never prunes them.
UNPRUNABLE = frozenset({"supersedes", "contradicts"})
# How the bucket keys of those links end (projections.links.link_key).
_FACT_ENDINGS = tuple(f"{SEP}{relation}{way}" for relation in sorted(UNPRUNABLE)
                      for way in (IN, OUT))

_EXTRACTION = msgspec.msgpack.Decoder(Extraction)
_NOTHING = Extraction()


# -- the fold ----------------------------------------------------------------------------------


def apply(graph: Graph, env: Envelope) -> Graph:
    """Fold one envelope into the graph (in place) and return it."""
    event = env.event
    match event:
        case MemoryIngested():
            # The extraction comes with the content (None once purged or erased: a rebuild then
            # folds no trace of it).
            extraction = _extraction(env) if env.extraction else _NOTHING
            if extraction.entities or extraction.relations or event.links:
                _ingest(graph, event, extraction)
        case MemorySuperseded(memory_id=old, by=new) if old != new:
            _link(graph.params, _namespace(graph, event.namespace), new, old, "supersedes", 1.0)
        case ConflictFlagged(memory_id=existing, other_id=new) if existing != new:
            _link(graph.params, _namespace(graph, event.namespace), new, existing,
                  "contradicts", 1.0)
        case RelationsPruned(edges=digests):
            ns = graph.namespaces.get(event.namespace)
            if ns is not None:
                _prune(ns, event.namespace, frozenset(digests))
        case LifecycleTransitioned() | MemoryErased() if (purged := purged_ids(event)):
            ns = graph.namespaces.get(event.namespace)
            if ns is not None:
                _purge(graph.params, ns, purged)
                if not (ns.entities or ns.links):
                    del graph.namespaces[event.namespace]  # as if it had never been there
        case _:
            pass
    return graph


def _extraction(env: Envelope) -> Extraction:
    """The ingest's cached extraction; a damaged one is a corrupt record, named by its seq."""
    try:
        return _EXTRACTION.decode(env.extraction)  # type: ignore[arg-type]
    except (msgspec.DecodeError, UnicodeDecodeError):
        raise CorruptRecordError(
            "the cached extraction of its content does not decode", seq=env.seq) from None


def apply_many(graph: Graph, envs: Iterable[Envelope]) -> Graph:
    """Fold envelopes in order: the same graph as folding them one at a time."""
    for env in envs:
        apply(graph, env)
    return graph


def _namespace(graph: Graph, namespace: str) -> NamespaceGraph:
    ns = graph.namespaces.get(namespace)
    if ns is None:
        ns = graph.namespaces[namespace] = NamespaceGraph()
    return ns


def _ingest(graph: Graph, e: MemoryIngested, extraction: Extraction) -> None:
    ns = _namespace(graph, e.namespace)
    mid, at, entities = e.memory_id, e.at, ns.entities
    for ref in extraction.entities:
        _mention(entities, ref.key, ref.name, ref.type, mid, at)
    if extraction.relations:
        edges, reinforce = ns.edges, graph.params.reinforce
        for rel in extraction.relations:
            s, o, c = rel.subject, rel.object, rel.confidence
            # A relation mentions both ends, so an edge's memories are always among its ends'
            # (a purge that empties an entity has already removed its edges).
            subject = _mention(entities, s, s, "other", mid, at)
            obj = _mention(entities, o, o, "other", mid, at)
            key = f"{s}{EDGE_SEP}{rel.relation}{EDGE_SEP}{o}"
            if key.count(EDGE_SEP) != 2:  # not a key an extractor makes; a replay must not crash
                continue
            edge = edges.get(key)
            if edge is None:
                edges[key] = Edge(c, at, at, [mid, at, c])
                subject.edges.append(key)
                if obj is not subject:
                    obj.edges.append(key)
            elif edge.observations[-3] != mid:  # a memory states a fact once
                edge.confidence = max(edge.confidence + (1.0 - edge.confidence) * reinforce, c)
                if at > edge.last_at:
                    edge.last_at = at
                elif at < edge.first_at:
                    edge.first_at = at
                edge.observations += (mid, at, c)
    if e.links:
        _link_all(ns.links, graph.params.max_links_per_memory, mid, e.links)


def _mention(entities: MutableMapping[str, EntityNode], key: str, name: str, type_: str, mid: str,
             at: int) -> EntityNode:
    """Memory ``mid`` mentions entity ``key`` (once, however often it names it)."""
    node = entities.get(key)
    if node is None:  # (the decoder hands out one shared string per literal type)
        node = entities[key] = EntityNode(name, type_, at, at, [mid, at, None, type_], [])
    elif node.mentions[-4] != mid:
        node.mentions += (mid, at, None if name == node.name else name, type_)
        if at > node.last_at:
            node.last_at = at
        elif at < node.first_at:
            node.first_at = at
        if node.type == "other":
            node.type = type_
    return node


def _link(params: GraphParams, ns: NamespaceGraph, source: str, target: str, relation: str,
          weight: float) -> None:
    """Record source -> target on both memories, then hold both to the cap."""
    _link_one(ns.links, params.max_links_per_memory, source, target, relation, weight)


def _link_all(links: Links, cap: int, source: str, targets: tuple[MemoryLink, ...]) -> None:
    """:func:`_link` for each link an ingest recorded, in order: the hot loop of a rebuild."""
    if len(targets) <= cap and links.get(source) is None:
        # The usual case, a new memory: it holds no link, so by symmetry none of its targets
        # holds one to it; with distinct links within the cap, its own cap never acts, so its
        # bucket can be made at once and each target only needs the mirror and its own cap.
        # The targets are capped in the same order as one link at a time would.
        own: Bucket = {f"{x.target}{SEP}{x.relation}{OUT}": x.weight for x in targets}
        if len(own) == len(targets):
            links.buckets[source] = own
            _mirror_all(links, cap, source, own, targets)
            return
    for link in targets:
        _link_one(links, cap, source, link.target, link.relation, link.weight)


def _mirror_all(links: Links, cap: int, source: str, own: Bucket,
                targets: tuple[MemoryLink, ...]) -> None:
    buckets = links.buckets
    get = buckets.get
    # Every target of one relation holds the source under the same key: one string for them
    # all, not one per link (a rebuild makes one key per link otherwise, and keeps them).
    mirrored: dict[str, Key] = {}
    for link in targets:
        target, relation = link.target, link.relation
        if target == source:  # a memory is not its own neighbour
            del own[f"{source}{SEP}{relation}{OUT}"]
            continue
        there = get(target)
        if there is None:
            there = links.bucket(target)
        key = mirrored.get(relation)
        if key is None:
            key = mirrored[relation] = f"{source}{SEP}{relation}{IN}"
        there[key] = link.weight
        if len(there) > cap:
            _cap(links, target, cap)
    if not own:  # every one of its links was the weakest at its target (or pointed at itself)
        buckets.pop(source, None)


def _link_one(links: Links, cap: int, source: str, target: str, relation: str,
              weight: float) -> None:
    if source == target:
        return  # a memory is not its own neighbour
    _hold(links.bucket(source), f"{target}{SEP}{relation}{OUT}", weight)
    there = links.bucket(target)
    _hold(there, f"{source}{SEP}{relation}{IN}", weight)
    if len(links.buckets.get(source, ())) > cap:
        _cap(links, source, cap)
    if len(there) > cap:  # (emptied and dropped, it is not over any cap)
        _cap(links, target, cap)


def _hold(bucket: Bucket, key: Key, weight: float) -> None:
    held = bucket.setdefault(key, weight)
    if weight > held:  # seen again: keep the strongest
        bucket[key] = weight


def _cap(links: Links, mid: str, cap: int) -> None:
    entries = links.buckets.get(mid)  # gone when the new link itself was pruned at the other end
    while entries is not None and len(entries) > cap:
        # Weakest first; ties by the key (the other memory's id, then relation and direction),
        # so the choice never depends on order. Facts of the log are never candidates.
        prunable = [(weight, key) for key, weight in entries.items()
                    if not key.endswith(_FACT_ENDINGS)]
        if not prunable:
            return  # facts of the log are kept even past the cap
        key = min(prunable)[1]
        del entries[key]
        links.discard(split_link(key)[0], flip(key, mid))
    if entries is not None and not entries:  # a cap of 0
        del links.buckets[mid]


def _purge(params: GraphParams, ns: NamespaceGraph, purged: frozenset[str]) -> None:
    """Remove the purged memories from every entity, edge and link, recomputing what they
    touched as if they had never been folded. A pass over the namespace's entities: purges are
    rare and batched per sweep, and the fold keeps no per-memory index for them."""
    links = ns.links
    for mid in sorted(purged):
        for key in links.pop(mid):  # every link is held at both ends
            links.discard(split_link(key)[0], flip(key, mid))
    entities, edges = ns.entities, ns.edges
    touched = [key for key, node in entities.items()
               if not purged.isdisjoint(node.mentions[0::4])]
    for key in touched:
        for ekey in list(entities[key].edges):
            edge = edges.get(ekey)  # None: already removed from its other end
            if (edge is None or purged.isdisjoint(edge.observations[0::3])
                    or refold_edge(edge, purged, params.reinforce)):
                continue
            del edges[ekey]
            subject, _, obj = split_key(ekey)
            for end in (subject,) if subject == obj else (subject, obj):
                entities[end].edges.remove(ekey)
    for key in touched:
        if not _refold_entity(entities[key], purged):
            del entities[key]


def _prune(ns: NamespaceGraph, namespace: str, digests: frozenset[str]) -> None:
    """Drop the relations named by these digests (the entities stay: their mentions are facts
    of the memories that name them). A pass over the namespace's edges: prunes are one event
    per consolidation."""
    entities, edges = ns.entities, ns.edges
    for ekey in [k for k in edges if edge_digest(namespace, k) in digests]:
        del edges[ekey]
        subject, _, obj = split_key(ekey)
        for end in (subject,) if subject == obj else (subject, obj):
            entities[end].edges.remove(ekey)


def _refold_entity(node: EntityNode, purged: frozenset[str]) -> bool:
    """Keep only the mentions of surviving memories; False when none is left."""
    old = node.mentions
    keep = [i for i in range(0, len(old), 4) if old[i] not in purged]
    if not keep:
        return False
    # Surface forms resolved against the old name, then stored against the new one.
    forms = [cast(str, old[i + 2] or node.name) for i in keep]
    types = [cast(str, old[i + 3]) for i in keep]
    node.name = forms[0]
    node.mentions = []
    for i, form, type_ in zip(keep, forms, types, strict=True):
        node.mentions += (old[i], old[i + 1], None if form == node.name else form, type_)
    node.type = next((t for t in types if t != "other"), "other")
    ats = cast(list[int], node.mentions[1::4])
    node.first_at, node.last_at = min(ats), max(ats)
    return True


# The knowledge graph's pure read functions: strength, entities, relations, walks and links.
#
# Each takes the graph (and ``now`` where time matters) and changes nothing. Inverse edges of
# symmetric and paired relations are derived here, at query time, from the stored edge.

# Relations true in both directions, and pairs where one direction implies the other.
SYMMETRIC = frozenset({"friend_of", "sibling_of", "married_to", "dating", "collaborates_with",
                       "competitor_of", "partner_of", "knows"})
INVERSE: dict[str, str] = {
    **{r: r for r in sorted(SYMMETRIC)},
    "parent_of": "child_of", "child_of": "parent_of",
    "manages": "reports_to", "reports_to": "manages",
}


class EdgeView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A relation as a query sees it, weighed at the query's ``now``."""

    subject: str
    relation: str
    object: str
    strength: float
    count: int
    confidence: float
    derived: bool  # the inverse of a stored edge
    first_at: int
    last_at: int


class NeighborView(NamedTuple):
    """An entity a walk reached, and the path that reached it."""

    key: str
    hops: int
    score: float  # product of the strengths along the path
    via: tuple[tuple[str, str, str], ...]  # (subject, relation, object) of each hop, in order


class LinkView(NamedTuple):
    """A link as one of its memories holds it."""

    other: str
    relation: str
    weight: float
    outgoing: bool


def strength(edge: Edge, now: int, params: GraphParams) -> float:
    """``count * w_c + recency * w_r + confidence_now * w_k``: the count saturates, recency and
    confidence decay with the days since the edge was last seen (a future edge counts as now)."""
    days = max(0, now - edge.last_at) / MICROS_PER_DAY
    count = min(edge.count, params.count_saturation) / params.count_saturation
    recency = math.exp(-days / params.recency_days)
    confidence = edge.confidence * 0.5 ** (days / params.confidence_half_life_days)
    return (count * params.count_weight + recency * params.recency_weight
            + confidence * params.confidence_weight)


def entity(graph: Graph, namespace: str, key: str) -> EntityNode | None:
    """The entity ``key`` of a namespace, or None."""
    ns = graph.namespaces.get(namespace)
    return ns.entities.get(key) if ns is not None else None


def entity_keys(graph: Graph, namespace: str) -> list[str]:
    """Every entity key of a namespace, sorted."""
    ns = graph.namespaces.get(namespace)
    return sorted(ns.entities) if ns is not None else []


def memories_of(graph: Graph, namespace: str, key: str) -> list[str]:
    """The memories that mention an entity, in log order."""
    node = entity(graph, namespace, key)
    return node.memory_ids if node is not None else []


def latest_memories(graph: Graph, namespace: str, key: str, n: int) -> tuple[int, list[str]]:
    """How many memories mention an entity, and the latest ``n`` of them in log order, without
    copying them all (a hub is mentioned by thousands; the write path asks on every ingest)."""
    node = entity(graph, namespace, key)
    if node is None or n <= 0:
        return (0 if node is None else len(node.mentions) // 4), []
    mentions = node.mentions
    return len(mentions) // 4, mentions[max(0, len(mentions) - 4 * n)::4]  # type: ignore[return-value]


def relations(graph: Graph, namespace: str, key: str, now: int,
              params: GraphParams | None = None) -> list[EdgeView]:
    """Every relation an entity takes part in (as subject or object), stored and derived, by
    strength (strongest first), then subject, relation, object."""
    ns = graph.namespaces.get(namespace)
    node = ns.entities.get(key) if ns is not None else None
    if ns is None or node is None:
        return []
    params = graph.params if params is None else params
    found: list[EdgeView] = []
    for ekey in node.edges:
        edge = ns.edges[ekey]
        s, r, o = split_key(ekey)
        st = strength(edge, now, params)
        n, c, first, last = edge.count, edge.confidence, edge.first_at, edge.last_at
        found.append(EdgeView(s, r, o, st, n, c, False, first, last))
        inverse = INVERSE.get(r)
        if inverse is not None and edge_key(o, inverse, s) not in ns.edges:
            found.append(EdgeView(o, inverse, s, st, n, c, True, first, last))
    found.sort(key=lambda v: (-v.strength, v.subject, v.relation, v.object, v.derived))
    return found


def _steps(ns: NamespaceGraph, key: str, now: int, params: GraphParams,
           relation_types: frozenset[str] | None,
           stated_by: Callable[[str], bool] | None = None,
           ) -> list[tuple[str, float, tuple[str, str, str]]]:
    """The entities one hop from ``key`` along any stored edge, either way: (other, strength,
    the hop as a triple oriented from ``key`` where an inverse relation allows). With
    ``stated_by``, only edges that at least one memory it accepts states."""
    steps = []
    for ekey in ns.entities[key].edges:
        if stated_by is not None and not any(
                stated_by(mid) for mid in ns.edges[ekey].memory_ids):
            continue
        s, r, o = split_key(ekey)
        inverse = INVERSE.get(r)
        if relation_types is not None and r not in relation_types and (
                inverse is None or inverse not in relation_types):
            continue
        if s == key:
            other, hop = o, (s, r, o)
        else:
            other, hop = s, ((o, inverse, s) if inverse is not None else (s, r, o))
        steps.append((other, strength(ns.edges[ekey], now, params), hop))
    return steps


def neighbors(graph: Graph, namespace: str, key: str, now: int, *, hops: int = 1,
              relation_types: Iterable[str] | None = None,
              entity_types: Iterable[str] | None = None, limit: int = 50,
              params: GraphParams | None = None,
              stated_by: Callable[[str], bool] | None = None) -> list[NeighborView]:
    """Entities within ``hops`` of ``key`` (breadth first, edges followed either way), nearest
    first, then by path score (highest first), then key. The type filters limit the walk: a path
    passes only through matching relations and entities. Each entity is reached by its best
    path among the shortest (ties by the path itself).

    ``stated_by``: a path passes only through relations some memory it accepts states (a
    recall's eligibility: a relation only a forgotten, superseded or not-yet-valid memory
    states must not steer what the recall returns)."""
    ns = graph.namespaces.get(namespace)
    if ns is None or key not in ns.entities or hops < 1 or limit < 1:
        return []
    params = graph.params if params is None else params
    rel_ok = frozenset(relation_types) if relation_types is not None else None
    ent_ok = frozenset(entity_types) if entity_types is not None else None
    seen = {key}
    frontier: dict[str, tuple[float, tuple[tuple[str, str, str], ...]]] = {key: (1.0, ())}
    found: list[NeighborView] = []
    for hop in range(1, hops + 1):
        reached: dict[str, tuple[float, tuple[tuple[str, str, str], ...]]] = {}
        for cur in sorted(frontier):
            score, via = frontier[cur]
            for other, st, step in _steps(ns, cur, now, params, rel_ok, stated_by):
                if other in seen or (ent_ok is not None
                                     and ns.entities[other].type not in ent_ok):
                    continue
                candidate = (score * st, (*via, step))
                best = reached.get(other)
                if best is None or (-candidate[0], candidate[1]) < (-best[0], best[1]):
                    reached[other] = candidate
        if not reached:
            break
        seen.update(reached)
        level = sorted(reached.items(), key=lambda item: (-item[1][0], item[0]))
        found += [NeighborView(k, hop, sc, via) for k, (sc, via) in level]
        if len(found) >= limit:
            break
        frontier = reached
    return found[:limit]


def reachable_memories(graph: Graph, namespace: str, keys: Iterable[str], now: int, *,
                       hops: int = 1, limit: int | None = None,
                       params: GraphParams | None = None) -> list[tuple[str, float]]:
    """Memories that mention the given entities (score 1.0) or an entity within ``hops`` of
    them (score: the best product of strengths along a path), best first, then by id."""
    ns = graph.namespaces.get(namespace)
    if ns is None:
        return []
    params = graph.params if params is None else params
    best = {key: 1.0 for key in sorted(set(keys)) if key in ns.entities}
    frontier = dict(best)
    for _ in range(max(hops, 0)):
        improved: dict[str, float] = {}
        for cur in sorted(frontier):
            for other, st, _step in _steps(ns, cur, now, params, None):
                score = frontier[cur] * st
                if score > best.get(other, 0.0) and score > improved.get(other, 0.0):
                    improved[other] = score
        if not improved:
            break
        best.update(improved)
        frontier = improved
    scores: dict[str, float] = {}
    for key, score in best.items():
        for mid in ns.entities[key].memory_ids:
            if score > scores.get(mid, 0.0):
                scores[mid] = score
    ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    return ranked if limit is None else ranked[:limit]


def memory_links(graph: Graph, namespace: str, memory_id: str) -> list[LinkView]:
    """A memory's links (both directions), strongest first, then by the other memory's id."""
    ns = graph.namespaces.get(namespace)
    views = [LinkView(*x) for x in ns.links.view(memory_id)] if ns is not None else []
    views.sort(key=lambda v: (-v.weight, v.other, v.relation, not v.outgoing))
    return views


def weak_edges(graph: Graph, namespace: str, now: int, *, below: float, idle_days: float,
               purged: frozenset[str] = frozenset()) -> list[tuple[str, float]]:
    """The relations of a namespace weaker than ``below`` at ``now`` and not seen for
    ``idle_days``, as (digest, strength), sorted by digest: what a prune would drop.

    ``purged``: memories about to be purged (by the same maintenance run): each relation is
    judged as their purge leaves it (only what the others stated; gone when nobody else did),
    which is also how a rebuild, which never sees a purged memory's extraction, knows it."""
    ns = graph.namespaces.get(namespace)
    if ns is None:
        return []
    idle = idle_days * MICROS_PER_DAY
    found = []
    for ekey, edge in ns.edges.items():
        if purged and not purged.isdisjoint(edge.observations[0::3]):
            edge = Edge(edge.confidence, edge.first_at, edge.last_at, list(edge.observations))
            if not refold_edge(edge, purged, graph.params.reinforce):
                continue  # the purge removes it anyway
        if now - edge.last_at < idle:
            continue
        value = strength(edge, now, graph.params)
        if value < below:
            found.append((edge_digest(namespace, ekey), value))
    return sorted(found)

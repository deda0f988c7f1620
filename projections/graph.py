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

This module holds the fold. The structures it folds into are in :mod:`projections.graph_types`,
the read functions in :mod:`projections.graph_reads`; both are importable from here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import msgspec

from eventmem.envelope import Envelope
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
from projections.graph_reads import (
    INVERSE,
    SYMMETRIC,
    EdgeView,
    LinkView,
    NeighborView,
    entity,
    entity_keys,
    latest_memories,
    memories_of,
    memory_links,
    neighbors,
    reachable_memories,
    relations,
    strength,
    weak_edges,
)
from projections.graph_types import (
    EDGE_SEP,
    Edge,
    EntityNode,
    Graph,
    GraphDump,
    GraphParams,
    NamespaceDump,
    NamespaceGraph,
    edge_key,
    refold_edge,
    split_key,
)
from projections.links import IN, OUT, SEP, Bucket, Key, Links, flip, split_link

# The structures and the read functions, importable from here as before the split.
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


def _mention(entities: dict[str, EntityNode], key: str, name: str, type_: str, mid: str,
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
    prefix = source + SEP
    for link in targets:
        target = link.target
        if target == source:  # a memory is not its own neighbour
            del own[f"{source}{SEP}{link.relation}{OUT}"]
            continue
        there = get(target)
        if there is None:
            there = links.bucket(target)
        there[f"{prefix}{link.relation}{IN}"] = link.weight
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


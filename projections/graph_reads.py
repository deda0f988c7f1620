"""The knowledge graph's pure read functions: strength, entities, relations, walks and links.

Each takes the graph (and ``now`` where time matters) and changes nothing. Inverse edges of
symmetric and paired relations are derived here, at query time, from the stored edge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import NamedTuple

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.events import edge_digest
from projections.graph_types import (
    Edge,
    EntityNode,
    Graph,
    GraphParams,
    NamespaceGraph,
    edge_key,
    refold_edge,
    split_key,
)

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

"""The knowledge graph's structures: its parameters, entities, edges, per-namespace graphs and
their snapshot form, and the keys of stored edges.

The fold (:mod:`projections.graph`) builds them, the read functions (:mod:`projections.graph_reads`)
weigh and walk them; a snapshot holds :class:`GraphDump`.
"""

from __future__ import annotations

from typing import cast

import msgspec

from projections.links import Links, LinksDump

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
        return self.mentions[0::4]  # type: ignore[return-value]


class Edge(msgspec.Struct, array_like=True, gc=False):
    """One stored relation (subject, relation, object) and its observations, in log order."""

    confidence: float  # reinforced by every observation
    first_at: int
    last_at: int
    observations: list[str | int | float]  # three per observation: memory id, time, confidence

    @property
    def count(self) -> int:
        return len(self.observations) // 3

    @property
    def memory_ids(self) -> list[str]:
        return self.observations[0::3]  # type: ignore[return-value]


class NamespaceGraph:
    """The graph of one namespace."""

    __slots__ = ("edges", "entities", "links")

    def __init__(self, entities: dict[str, EntityNode] | None = None,
                 edges: dict[str, Edge] | None = None, links: Links | None = None) -> None:
        self.entities: dict[str, EntityNode] = {} if entities is None else entities
        # by "subject NUL relation NUL object"
        self.edges: dict[str, Edge] = {} if edges is None else edges
        self.links = Links() if links is None else links  # memory id -> its links


class NamespaceDump(msgspec.Struct, array_like=True):
    """One namespace's graph as a snapshot holds it."""

    entities: dict[str, EntityNode]
    edges: dict[str, Edge]
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

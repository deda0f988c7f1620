"""The knowledge graph as the public API shows it: ``mem.graph.entity("Alice")`` and friends.

:class:`GraphReader` answers from the graph projection (:mod:`projections.graph`) at the engine's
or view's ``now``; it never writes. Entities are looked up by name, normalized to their key the
way extraction keys them, within one namespace.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar

import msgspec

from eventmem import checks
from eventmem.clock import from_micros
from eventmem.config import Config
from eventmem.errors import InvalidInputError, NotFoundError
from eventmem.policies.extract.relations import entity_key
from projections import graph as graph_view
from projections.graph import EdgeView, Graph

__all__ = ["Entity", "GraphReader", "Link", "Neighbor", "Relation"]


class Relation(msgspec.Struct, frozen=True, kw_only=True):
    """A typed relation between two entities (by key), weighed at the reader's ``now``."""

    subject: str
    relation: str
    object: str
    strength: float  # count, recency and decayed confidence combined, in [0, 1]
    count: int  # how many memories state it
    confidence: float  # reinforced by every statement
    derived: bool  # the inverse of a stated relation (friend_of both ways, child_of for parent_of)
    first_seen: datetime
    last_seen: datetime


class Entity(msgspec.Struct, frozen=True, kw_only=True):
    """What the graph knows about one entity of a namespace."""

    key: str
    name: str  # as first written
    type: str  # person, organization, place, product, concept, event or other
    mentions: int  # how many memories mention it
    first_seen: datetime
    last_seen: datetime
    relations: tuple[Relation, ...]  # strongest first
    memory_ids: tuple[str, ...]  # oldest mention first


class Neighbor(msgspec.Struct, frozen=True, kw_only=True):
    """An entity reached from another, with the path that reached it."""

    key: str
    name: str
    type: str
    hops: int
    score: float  # product of the relation strengths along the path
    via: tuple[tuple[str, str, str], ...]  # (subject, relation, object) of each hop, in order


class Link(msgspec.Struct, frozen=True, kw_only=True):
    """A relation between two memories; ``direction`` "out": ``memory_id`` states it."""

    memory_id: str
    other: str
    relation: str  # supersedes, contradicts, causes, elaborates, same_entity, related_to, part_of
    weight: float
    direction: Literal["out", "in"]


P = ParamSpec("P")
R = TypeVar("R")


def _locked(method: Callable[Concatenate[GraphReader, P], R]
            ) -> Callable[Concatenate[GraphReader, P], R]:
    """``method`` run under the reader's lock (its engine's: see GraphReader.__init__)."""
    @functools.wraps(method)
    def run(self: GraphReader, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)
    return run


class GraphReader:
    """Read-only queries over the graph projection. ``views_getter`` returns the current
    :class:`~projections.graph.Graph` and ``now_getter`` the reader's now (epoch microseconds),
    so a reader follows its engine or view as both move on."""

    def __init__(self, views_getter: Callable[[], Graph], now_getter: Callable[[], int],
                 config: Config | None = None, *,
                 lock: AbstractContextManager[Any] | None = None) -> None:
        self._graph = views_getter
        self._now = now_getter
        self._config = Config() if config is None else config
        # The engine's (or view's) lock: a query walks the graph while no other thread folds
        # into it (eventmem.reader.serialized).
        self._lock = nullcontext() if lock is None else lock

    def _namespace(self, namespace: object) -> str:
        # Refused as recall refuses it: a namespace of None or 5 is a mistake, not an empty one.
        return checks.namespace(namespace, self._config)

    @_locked
    def entity(self, name: str, *, namespace: str = "default") -> Entity:
        """The entity named ``name``: type, mentions, relations and the memories mentioning it.
        Raises :class:`~eventmem.errors.NotFoundError` when the namespace has no such entity."""
        namespace = self._namespace(namespace)
        graph, key = self._graph(), _key(name)
        node = graph_view.entity(graph, namespace, key)
        if node is None:
            raise _unknown(name, namespace)
        return _entity(graph, namespace, key, node, self._now())

    @_locked
    def neighbors(self, name: str, *, namespace: str = "default", hops: int = 1,
                  relation_types: Iterable[str] | None = None,
                  entity_types: Iterable[str] | None = None, limit: int = 50) -> list[Neighbor]:
        """Entities within ``hops`` relations of ``name`` (either direction), nearest first,
        then strongest path first. ``relation_types`` and ``entity_types`` limit the walk: a path
        passes only through matching relations and entities. ``hops`` 0 reaches nothing, and
        so does ``limit`` 0."""
        namespace = self._namespace(namespace)
        hops = _count(hops, "hops")
        limit = _count(limit, "limit")
        relation_types = _names(relation_types, "relation_types")
        entity_types = _names(entity_types, "entity_types")
        graph, key = self._graph(), _key(name)
        if graph_view.entity(graph, namespace, key) is None:
            raise _unknown(name, namespace)
        found = graph_view.neighbors(
            graph, namespace, key, self._now(), hops=hops, relation_types=relation_types,
            entity_types=entity_types, limit=limit)
        nodes = graph.namespaces[namespace].entities
        return [Neighbor(key=n.key, name=nodes[n.key].name, type=nodes[n.key].type, hops=n.hops,
                         score=n.score, via=n.via) for n in found]

    @_locked
    def memories(self, name: str, *, namespace: str = "default") -> list[str]:
        """The ids of the memories that mention ``name``, oldest first."""
        namespace = self._namespace(namespace)
        graph, key = self._graph(), _key(name)
        node = graph_view.entity(graph, namespace, key)
        if node is None:
            raise _unknown(name, namespace)
        return list(node.memory_ids)

    @_locked
    def entities(self, *, namespace: str = "default", type: str | None = None) -> list[Entity]:
        """Every entity of a namespace (of one ``type`` if given), most mentioned first, then by
        key."""
        namespace = self._namespace(namespace)
        graph, now = self._graph(), self._now()
        found = []
        for key in graph_view.entity_keys(graph, namespace):
            node = graph.namespaces[namespace].entities[key]
            if type is None or node.type == type:
                found.append(_entity(graph, namespace, key, node, now))
        found.sort(key=lambda e: (-e.mentions, e.key))
        return found

    @_locked
    def links(self, memory_id: str, *, namespace: str = "default") -> list[Link]:
        """A memory's links to other memories (both directions), strongest first."""
        namespace = self._namespace(namespace)
        if not isinstance(memory_id, str):
            raise InvalidInputError(f"memory_id must be a str, got {type(memory_id).__name__}")
        return [Link(memory_id=memory_id, other=v.other, relation=v.relation, weight=v.weight,
                     direction="out" if v.outgoing else "in")
                for v in graph_view.memory_links(self._graph(), namespace, memory_id)]


def _key(name: str) -> str:
    """An entity's key from its name, exactly as extraction keys what it finds."""
    if not isinstance(name, str):
        raise InvalidInputError(f"an entity name must be a str, got {type(name).__name__}")
    key = entity_key(name)
    if not key:
        raise InvalidInputError(f"entity name {name!r} has no letters or digits")
    return key


def _count(value: object, field: str) -> int:
    """A non-negative int (booleans are refused: they are almost always a mistake)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError(f"{field} must be a non-negative int, got {value!r}")
    return value


def _names(value: Iterable[str] | None, field: str) -> frozenset[str] | None:
    """A filter of relation or entity types: None, or an iterable of str (a lone str would be
    read as its letters, and match nothing)."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidInputError(f"{field} must be a list of str, got {value!r}")
    names = frozenset(value)
    if not all(isinstance(n, str) for n in names):
        raise InvalidInputError(f"{field} must be a list of str, got {value!r}")
    return names


def _unknown(name: str, namespace: str) -> NotFoundError:
    return NotFoundError(f"no entity {name!r} in namespace {namespace!r}; "
                         "list them with graph.entities(namespace=...)")


def _relation(view: EdgeView) -> Relation:
    return Relation(subject=view.subject, relation=view.relation, object=view.object,
                    strength=view.strength, count=view.count, confidence=view.confidence,
                    derived=view.derived, first_seen=from_micros(view.first_at),
                    last_seen=from_micros(view.last_at))


def _entity(graph: Graph, namespace: str, key: str, node: graph_view.EntityNode,
            now: int) -> Entity:
    return Entity(
        key=key, name=node.name, type=node.type, mentions=len(node.memory_ids),
        first_seen=from_micros(node.first_at), last_seen=from_micros(node.last_at),
        relations=tuple(_relation(v) for v in graph_view.relations(graph, namespace, key, now)),
        memory_ids=tuple(node.memory_ids),
    )

"""``eventmem.connect(url, token=)``: a store served by ``eventmem serve``, used like an engine.

The client has the engine's methods that the server offers, with the same arguments, and answers
with the same records (:class:`eventmem.Hit`, :class:`eventmem.Memory`...), so code switches
between in-process and remote by one line::

    mem = eventmem.open("store")                      # in process
    mem = eventmem.connect("http://127.0.0.1:8765")   # through the server

An error the server answers is raised as the same eventmem error class (``NotFoundError``,
``InvalidInputError``...); a refused token as :class:`~eventmem.serve.wire.AccessDeniedError`
(an ``EventmemError`` and a ``PermissionError``). Standard library only (``http.client``): one
keep-alive connection per thread, so a client may be shared between threads.
"""

from __future__ import annotations

import http.client
import threading
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from eventmem import transfer
from eventmem.errors import InvalidInputError
from eventmem.graph import Entity, Link, Neighbor
from eventmem.maintain.sweep import ConsolidationReport
from eventmem.results import (
    Box,
    Conflict,
    HistoryEntry,
    Hit,
    Memory,
    RememberResult,
    Version,
)
from eventmem.serve import wire
from eventmem.storage.log import Head
from eventmem.write.erase import Erasure
from replay.audit import AuditReport
from replay.compare import TOLERANCE
from replay.verify import VerifyReport

_RETRIES = 1  # a keep-alive connection the server closed is retried once on a fresh one
_IMPORT_CHUNK = 1_000  # memories per import request: the server's Limits.max_batch


def _mapping(value: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A caller's mapping as the request carries it (a dict); anything else is passed on for
    the server to refuse with its own message."""
    return dict(value) if isinstance(value, Mapping) else value


class Transport:
    """POSTs JSON to one server: a keep-alive connection per thread, the bearer token on each
    request, errors raised as eventmem errors."""

    def __init__(self, url: str, *, token: str | None, timeout: float) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise InvalidInputError(f"not an http(s) URL: {url!r}")
        self._https = parsed.scheme == "https"
        self._host, self._port = parsed.hostname, parsed.port
        self._base = parsed.path.rstrip("/")
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._timeout = timeout
        self._local = threading.local()
        self.url = url

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=self._timeout)
            self._local.conn = conn
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()

    def request(self, method: str, path: str, body: bytes | None, result: Any) -> Any:
        """Send one request and decode the answer into ``result`` (a type msgspec decodes)."""
        for attempt in range(_RETRIES + 1):
            conn = self._connection()
            try:
                conn.request(method, self._base + path, body=body, headers=self._headers)
                response = conn.getresponse()
                data = response.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self._drop()
                if attempt == _RETRIES:
                    raise
                continue
            except BaseException:
                self._drop()
                raise
            if response.will_close:
                self._drop()
            if response.status != 200:
                raise wire.error_from(response.status, data)
            return msgspec.json.decode(data, type=result)
        raise AssertionError("unreachable")

    def call(self, name: str, request: wire.Request, result: Any) -> Any:
        """``POST /v1/<name>`` with ``request`` as its body."""
        return self.request("POST", f"/v1/{name}", msgspec.json.encode(request), result)

    def close(self) -> None:
        """Close this thread's connection (others close with their threads)."""
        self._drop()


def _past(at: datetime | None, seq: int | None) -> wire.AsOf:
    if (at is None) == (seq is None):
        raise InvalidInputError("as_of takes exactly one of at= or seq=")
    return wire.AsOf(at=at, seq=seq)


class RemoteGraph:
    """The knowledge graph through the server: ``entity``, ``neighbors``, ``memories``,
    ``entities``, ``links``, as :class:`eventmem.GraphReader`."""

    def __init__(self, transport: Transport, as_of: wire.AsOf | None) -> None:
        self._t, self._as_of = transport, as_of

    def entity(self, name: str, *, namespace: str = "default") -> Entity:
        """The entity named ``name``: type, mentions, relations and memories."""
        return self._t.call("graph/entity", wire.EntityRequest(
            name=name, namespace=namespace, as_of=self._as_of), Entity)

    def neighbors(self, name: str, *, namespace: str = "default", hops: int = 1,
                  relation_types: Iterable[str] | None = None,
                  entity_types: Iterable[str] | None = None, limit: int = 50) -> list[Neighbor]:
        """Entities within ``hops`` relations of ``name``, nearest first."""
        return self._t.call("graph/neighbors", wire.NeighborsRequest(
            name=name, namespace=namespace, hops=hops,
            relation_types=None if relation_types is None else tuple(relation_types),
            entity_types=None if entity_types is None else tuple(entity_types), limit=limit,
            as_of=self._as_of), list[Neighbor])

    def memories(self, name: str, *, namespace: str = "default") -> list[str]:
        """The ids of the memories that mention ``name``, oldest first."""
        return self._t.call("graph/memories", wire.EntityRequest(
            name=name, namespace=namespace, as_of=self._as_of), list[str])

    def entities(self, *, namespace: str = "default", type: str | None = None) -> list[Entity]:
        """Every entity of a namespace (of one ``type`` if given)."""
        return self._t.call("graph/entities", wire.EntitiesRequest(
            namespace=namespace, type=type, as_of=self._as_of), list[Entity])

    def links(self, memory_id: str, *, namespace: str = "default") -> list[Link]:
        """A memory's links to other memories."""
        return self._t.call("graph/links", wire.LinksRequest(
            memory_id=memory_id, namespace=namespace, as_of=self._as_of), list[Link])


class RemoteView:
    """The read methods, answered by the server from the store as it stood at ``as_of``
    (:meth:`Client.as_of`), as :class:`eventmem.View` answers them."""

    def __init__(self, transport: Transport, as_of: wire.AsOf | None) -> None:
        self._t, self._as_of = transport, as_of

    def get(self, memory_id: str, *, valid_at: datetime | None = None) -> Memory:
        """The memory with this id (with ``valid_at``: NotFoundError unless true then)."""
        return self._t.call("get", wire.GetRequest(memory_id=memory_id, valid_at=valid_at,
                                                   as_of=self._as_of), Memory)

    def recall(self, query: str, *, namespace: str = "default", k: int = 5,
               valid_at: datetime | None = None, include_hidden: bool = False,
               profile: str = "default", min_score: float | None = None,
               filters: Mapping[str, Any] | None = None, session: str | None = None,
               include_hot: bool = False, box_context: int = 0) -> list[Hit]:
        """The ``k`` memories of ``namespace`` that best answer ``query``, best first
        (``session``, ``include_hot`` and ``box_context`` as :meth:`eventmem.Engine.recall`
        takes them)."""
        return self._t.call("recall", wire.RecallRequest(
            query=query, namespace=namespace, k=k, valid_at=valid_at,
            include_hidden=include_hidden, profile=profile, min_score=min_score,
            filters=_mapping(filters), as_of=self._as_of, session=session,
            include_hot=include_hot, box_context=box_context), list[Hit])

    def context(self, query: str, *, namespace: str = "default", k: int = 10,
                budget_tokens: int = 1_000, valid_at: datetime | None = None,
                profile: str = "default", filters: Mapping[str, Any] | None = None) -> str:
        """A prompt block for ``query`` within ``budget_tokens``."""
        return self._t.call("context", wire.ContextRequest(
            query=query, namespace=namespace, k=k, budget_tokens=budget_tokens,
            valid_at=valid_at, profile=profile, filters=_mapping(filters), as_of=self._as_of),
            wire.ContextResult).context

    def history(self, memory_id: str) -> list[HistoryEntry]:
        """Every event that touched ``memory_id``, oldest first."""
        return self._t.call("history", wire.MemoryRequest(memory_id=memory_id,
                                                          as_of=self._as_of),
                            list[HistoryEntry])

    def timeline(self, memory_id: str | None = None, *, entity: str | None = None,
                 namespace: str = "default") -> list[Version]:
        """The versions of a fact, or the memories of an entity, oldest first."""
        return self._t.call("timeline", wire.TimelineRequest(
            memory_id=memory_id, entity=entity, namespace=namespace, as_of=self._as_of),
            list[Version])

    def conflicts(self, *, namespace: str = "default", status: str | None = "open"
                  ) -> list[Conflict]:
        """The contradictions of ``namespace`` (open ones by default)."""
        return self._t.call("conflicts", wire.ConflictsRequest(
            namespace=namespace, status=status, as_of=self._as_of), list[Conflict])

    def memories(self, *, namespace: str = "default", status: str | Sequence[str] | None = None,
                 kind: str | None = None, tags: Sequence[str] | None = None,
                 since: datetime | None = None, until: datetime | None = None,
                 limit: int = 100, cursor: str | None = None,
                 filters: Mapping[str, Any] | None = None) -> list[Memory]:
        """A namespace's memories, filtered and paged (the server sends 1,000 at most)."""
        statuses = (status,) if isinstance(status, str) else (
            None if status is None else tuple(status))
        return self._t.call("memories", wire.MemoriesRequest(
            namespace=namespace, status=statuses, kind=kind,
            tags=None if tags is None else tuple(tags), since=since, until=until, limit=limit,
            cursor=cursor, filters=_mapping(filters), as_of=self._as_of), list[Memory])

    def export_memories(self, destination: transfer.Destination, *,
                        namespace: str = "default", include_archived: bool = False) -> int:
        """Write ``namespace``'s current memories to ``destination`` (a path or a text stream)
        as JSON lines, as :meth:`eventmem.Engine.export_memories`; returns how many."""
        lines = self._t.call("export", wire.ExportRequest(
            namespace=namespace, include_archived=include_archived, as_of=self._as_of),
            list[transfer.Exported])
        return transfer.write(lines, destination)

    def namespaces(self) -> list[str]:
        """The namespaces holding memories that this token may read."""
        return self._t.call("namespaces", wire.NamespacesRequest(as_of=self._as_of), list[str])

    def hot(self, *, namespace: str = "default", k: int = 5) -> list[Memory]:
        """The always-relevant memories of ``namespace``, best first."""
        return self._t.call("hot", wire.HotRequest(namespace=namespace, k=k, as_of=self._as_of),
                            list[Memory])

    def boxes(self, *, namespace: str = "default", session: str | None = None,
              trace_id: str | None = None) -> list[Box]:
        """The memory boxes of ``namespace`` (of one ``session`` or trace, if given)."""
        return self._t.call("boxes", wire.BoxesRequest(
            namespace=namespace, session=session, trace_id=trace_id, as_of=self._as_of),
            list[Box])

    def trace(self, trace_id: str, *, namespace: str = "default") -> list[Box]:
        """The boxes of one trace of ``namespace``, in the order they were sealed."""
        return self._t.call("trace", wire.TraceRequest(
            trace_id=trace_id, namespace=namespace, as_of=self._as_of), list[Box])

    def stats(self) -> dict[str, Any]:
        """Counts and means over the store (needs the ``*`` grant)."""
        return self._t.call("stats", wire.StatsRequest(as_of=self._as_of), dict[str, Any])

    @property
    def graph(self) -> RemoteGraph:
        """The knowledge graph: ``graph.entity(name, namespace=)`` and friends."""
        return RemoteGraph(self._t, self._as_of)


class Client(RemoteView):
    """A store served by ``eventmem serve``: the engine's methods over HTTP (see the module
    docstring). Use :func:`connect`; close it, or use it as a context manager."""

    def __init__(self, url: str, *, token: str | None = None, timeout: float = 300.0) -> None:
        super().__init__(Transport(url, token=token, timeout=timeout), None)

    @property
    def url(self) -> str:
        """The server's URL."""
        return self._t.url

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close this thread's connection to the server (the store stays open there)."""
        self._t.close()

    def health(self) -> wire.Health:
        """Whether the server is up, and its store's seq (needs no token)."""
        return self._t.request("GET", "/v1/health", None, wire.Health)

    @property
    def seq(self) -> int:
        """The store's last seq."""
        return self.health().seq

    # -- writing --------------------------------------------------------------------------------

    def remember(self, text: str, *, namespace: str = "default", kind: str | None = None,
                 source: str = "user", importance: float | None = None,
                 confidence: float = 1.0, valid_from: datetime | None = None,
                 valid_until: datetime | None = None, pinned: bool = False,
                 immutable: bool = False, tags: Sequence[str] = (), refs: Sequence[str] = (),
                 session: str | None = None, on_conflict: str | None = None,
                 metadata: Mapping[str, Any] | None = None,
                 tier: str | None = None) -> RememberResult:
        """Store what the agent learned; returns the action taken (see Engine.remember)."""
        return self._t.call("remember", wire.RememberRequest(
            text=text, namespace=namespace, kind=kind, source=source, importance=importance,
            confidence=confidence, valid_from=valid_from, valid_until=valid_until,
            pinned=pinned, immutable=immutable, tags=tuple(tags), refs=tuple(refs),
            session=session, on_conflict=on_conflict, metadata=_mapping(metadata), tier=tier),
            RememberResult)

    def update(self, memory_id: str, text: str, *,
               metadata: Mapping[str, Any] | None = None) -> RememberResult:
        """Replace a memory's text: a new version superseding it (see Engine.update)."""
        return self._t.call("update", wire.UpdateRequest(
            memory_id=memory_id, text=text, metadata=_mapping(metadata)), RememberResult)

    def import_memories(self, source: transfer.Destination, *,
                        namespace: str | None = None) -> list[RememberResult]:
        """Import an export (a path or a text stream of JSON lines), as
        :meth:`eventmem.Engine.import_memories`. The server takes 1,000 memories per request:
        each request is checked whole and written atomically, and a run that stops half way
        can be run again (memories already present are skipped)."""
        found = [record for _, record in transfer.records(source)]
        results: list[RememberResult] = []
        for start in range(0, len(found), _IMPORT_CHUNK):
            results += self._t.call("import", wire.ImportRequest(
                memories=found[start:start + _IMPORT_CHUNK], namespace=namespace),
                list[RememberResult])
        return results

    def remember_many(self, items: Iterable[str | Mapping[str, Any]], *,
                      namespace: str = "default") -> list[RememberResult]:
        """Remember many texts in one atomic, durable append on the server."""
        if isinstance(items, str | bytes | Mapping) or not isinstance(items, Iterable):
            raise InvalidInputError(
                "remember_many takes a list of texts or mappings; for one text use remember()")
        body = msgspec.json.encode({"items": [i if isinstance(i, str) else dict(i)
                                              for i in items], "namespace": namespace})
        return self._t.request("POST", "/v1/remember_many", body, list[RememberResult])

    def forget(self, memory_id: str, *, reason: str = "explicit") -> int:
        """Delete a memory (an event); returns its seq."""
        return self._t.call("forget", wire.ForgetRequest(memory_id=memory_id, reason=reason),
                            wire.SeqResult).seq

    def erase(self, memory_id: str | None = None, *, namespace: str | None = None,
              reason: str = "request") -> Erasure:
        """Erase a memory's content or a namespace's; returns what it erased."""
        return self._t.call("erase", wire.EraseRequest(memory_id=memory_id, namespace=namespace,
                                                       reason=reason), Erasure)

    def pin(self, memory_id: str) -> int:
        """Pin a memory: exempt from forgetting. Returns the seq."""
        return self._t.call("pin", wire.MemoryRequest(memory_id=memory_id), wire.SeqResult).seq

    def unpin(self, memory_id: str) -> int:
        """Unpin a memory. Returns the seq."""
        return self._t.call("unpin", wire.MemoryRequest(memory_id=memory_id),
                            wire.SeqResult).seq

    def touch(self, memory_id: str) -> int:
        """Record that the agent used a memory. Returns the seq."""
        return self._t.call("touch", wire.MemoryRequest(memory_id=memory_id),
                            wire.SeqResult).seq

    def resolve_commitment(self, memory_id: str) -> int:
        """Mark a plan or commitment done (see Engine.resolve_commitment). Returns the seq."""
        return self._t.call("resolve_commitment", wire.MemoryRequest(memory_id=memory_id),
                            wire.SeqResult).seq

    def feedback(self, memory_id: str, *, useful: bool | float = True) -> float:
        """Say whether a memory helped; returns its new utility."""
        return self._t.call("feedback", wire.FeedbackRequest(memory_id=memory_id, useful=useful),
                            wire.UtilityResult).utility

    def resolve(self, conflict_id: str, *, strategy: str = "use_new",
                namespace: str | None = None) -> RememberResult:
        """Settle an open conflict (``namespace``, if known, spares the server a search); the
        server checks the caller may write its namespace."""
        return self._t.call("resolve", wire.ResolveRequest(
            conflict_id=conflict_id, strategy=strategy, namespace=namespace), RememberResult)

    def consolidate(self, *, now: datetime | None = None) -> ConsolidationReport:
        """Maintenance at ``now`` (default: the server's clock); needs the ``*`` grant."""
        return self._t.call("consolidate", wire.ConsolidateRequest(now=now), ConsolidationReport)

    # -- the past, and checks -------------------------------------------------------------------

    def as_of(self, *, at: datetime | None = None, seq: int | None = None) -> RemoteView:
        """The read methods as of time ``at`` or just after ``seq`` (answered by the server)."""
        return RemoteView(self._t, _past(at, seq))

    def verify(self) -> VerifyReport:
        """Check the hash chain, blobs and projections on the server (needs ``*``)."""
        return self._t.call("verify", wire.Empty(), VerifyReport)

    def audit(self, *, until: int | None = None, tolerance: float = TOLERANCE) -> AuditReport:
        """Re-derive every recorded decision on the server (needs ``*``)."""
        return self._t.call("audit", wire.AuditRequest(until=until, tolerance=tolerance),
                            AuditReport)

    def head(self) -> Head:
        """The log's head: its last seq and chain hash (needs ``*``)."""
        found: wire.HeadResult = self._t.call("head", wire.Empty(), wire.HeadResult)
        return Head(found.seq, bytes.fromhex(found.hash))


def connect(url: str, *, token: str | None = None, timeout: float = 300.0) -> Client:
    """A client of the ``eventmem serve`` at ``url`` (``http://127.0.0.1:8765``), with the
    engine's methods and result types. ``token``: the bearer token (``eventmem token add``).
    ``timeout``: seconds to wait for one answer; an audit of a large store takes minutes."""
    return Client(url, token=token, timeout=timeout)

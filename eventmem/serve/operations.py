"""The operations the server offers, in one table: the HTTP routes, the OpenAPI schema and the
client are drawn from it, so none of them can leave an operation out.

Each :class:`Operation` names its path, its request and result types, and a function that runs
it on the engine for one caller (a :class:`Call`: the engine, the caller's grant, the limits).
The function checks the grant before it reads or writes:

- an operation naming a namespace needs that namespace (read or write); outside the grant it is
  refused with 403;
- an operation naming a memory by id needs the memory's namespace; a memory the caller may not
  read answers 404 as an unknown id does, so ids of other tenants cannot be probed (a write to a
  memory it may only read, 403);
- the store-wide operations (stats, verify, audit, consolidate, head) need the ``*`` grant.

Every refusal is written to the store's ops log (the token id, the operation, the namespace and
the status; never a text or a query). Recall and context are reads, although the live engine
records them as accesses.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

import eventmem
from eventmem.errors import InvalidInputError, NotFoundError
from eventmem.serve import wire
from eventmem.serve.tokens import ALL, Grant, Mode
from eventmem.transfer import Exported


@dataclass(frozen=True)
class Limits:
    """What one call may ask for: request bodies up to ``max_body`` bytes, recall and hot up to
    ``max_k`` results, remember_many up to ``max_batch`` items."""

    max_body: int = 1 << 20
    max_k: int = 100
    max_batch: int = 1_000


class Call:
    """One caller's call: the engine, the caller's grant and the server's limits, and the
    access checks every operation makes through it."""

    def __init__(self, engine: eventmem.Engine, grant: Grant, limits: Limits, op: str) -> None:
        self.engine, self.grant, self.limits, self.op = engine, grant, limits, op

    def deny(self, namespace: str, status: int, why: str) -> None:
        """Write a refusal to the ops log (never a text)."""
        self.engine.log_op("access_denied", token_id=self.grant.token_id, operation=self.op,
                           namespace=namespace, status=status, why=why)

    def need(self, namespace: Any, mode: Mode) -> None:
        """Refuse (403) unless the grant covers ``namespace`` for ``mode``."""
        if not isinstance(namespace, str):
            return  # the engine refuses it as bad input
        if not self.grant.allows(namespace, mode):
            self.deny(namespace, 403, mode)
            what = "the store-wide operations" if namespace == ALL else f"namespace {namespace!r}"
            raise wire.AccessDeniedError(f"this token does not grant {mode} access to {what}")

    def store_wide(self, mode: Mode) -> None:
        """Refuse (403) unless the grant is ``*``."""
        self.need(ALL, mode)

    def reader(self, as_of: wire.AsOf | None) -> eventmem.Engine | eventmem.View:
        """The live engine, or a read-only view of the store at ``as_of``."""
        if as_of is None:
            return self.engine
        return self.engine.as_of(at=as_of.at, seq=as_of.seq)

    def memory(self, reader: eventmem.Engine | eventmem.View, memory_id: str,
               mode: Mode) -> eventmem.Memory:
        """The memory, if the grant covers its namespace for ``mode``. A memory the caller may
        not even read answers NotFoundError, as for an unknown id; one it may read but not
        write, 403. Refusals are logged."""
        memory = reader.get(memory_id)
        if not self.grant.allows(memory.namespace, "read"):
            self.deny(memory.namespace, 404, mode)
            raise NotFoundError(f"no memory {memory_id!r} in this store")
        self.need(memory.namespace, mode)
        return memory

    def k(self, k: int) -> int:
        """``k`` within the server's bound."""
        if isinstance(k, int) and not isinstance(k, bool) and k > self.limits.max_k:
            raise InvalidInputError(f"k must be at most {self.limits.max_k} on this server")
        return k


@dataclass(frozen=True)
class Operation:
    """One operation: ``POST /v1/<name>`` with a ``request`` body, answering ``result``."""

    name: str
    request: type[wire.Request]
    result: Any  # a type msgspec can decode into (a Struct, list[Struct], dict, ...)
    run: Callable[[Call, Any], Any]
    summary: str
    writes: bool = False

    @property
    def path(self) -> str:
        """The route: ``/v1/<name>``."""
        return f"/v1/{self.name}"


# -- the operations ------------------------------------------------------------------------------


def _remember(call: Call, req: wire.RememberRequest) -> eventmem.RememberResult:
    call.need(req.namespace, "write")
    options = msgspec.structs.asdict(req)
    return call.engine.remember(options.pop("text"), **options)


def _remember_many(call: Call, req: wire.RememberManyRequest) -> list[eventmem.RememberResult]:
    if len(req.items) > call.limits.max_batch:
        raise InvalidInputError(f"at most {call.limits.max_batch} items in one remember_many")
    items: list[str | dict[str, Any]] = []
    for item in req.items:
        if isinstance(item, str):
            call.need(req.namespace, "write")
            items.append(item)
        else:
            fields = msgspec.structs.asdict(item)
            if fields["namespace"] is None:
                del fields["namespace"]
            call.need(fields.get("namespace", req.namespace), "write")
            items.append(fields)
    return call.engine.remember_many(items, namespace=req.namespace)


def _recall(call: Call, req: wire.RecallRequest) -> list[eventmem.Hit]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).recall(
        req.query, namespace=req.namespace, k=call.k(req.k), valid_at=req.valid_at,
        include_hidden=req.include_hidden, profile=req.profile, min_score=req.min_score,
        filters=req.filters, session=req.session, include_hot=req.include_hot,
        box_context=req.box_context)


def _context(call: Call, req: wire.ContextRequest) -> wire.ContextResult:
    call.need(req.namespace, "read")
    text = call.reader(req.as_of).context(
        req.query, namespace=req.namespace, k=call.k(req.k), budget_tokens=req.budget_tokens,
        valid_at=req.valid_at, profile=req.profile, filters=req.filters)
    return wire.ContextResult(context=text)


def _get(call: Call, req: wire.GetRequest) -> eventmem.Memory:
    reader = call.reader(req.as_of)
    memory = call.memory(reader, req.memory_id, "read")
    return memory if req.valid_at is None else reader.get(req.memory_id, valid_at=req.valid_at)


def _history(call: Call, req: wire.MemoryRequest) -> list[eventmem.HistoryEntry]:
    reader = call.reader(req.as_of)
    call.memory(reader, req.memory_id, "read")
    return reader.history(req.memory_id)


def _timeline(call: Call, req: wire.TimelineRequest) -> list[eventmem.Version]:
    reader = call.reader(req.as_of)
    if req.memory_id is not None:
        call.memory(reader, req.memory_id, "read")
    else:
        call.need(req.namespace, "read")
    return reader.timeline(req.memory_id, entity=req.entity, namespace=req.namespace)


def _update(call: Call, req: wire.UpdateRequest) -> eventmem.RememberResult:
    call.memory(call.engine, req.memory_id, "write")
    return call.engine.update(req.memory_id, req.text, metadata=req.metadata)


def _export(call: Call, req: wire.ExportRequest) -> list[Exported]:
    call.need(req.namespace, "read")
    out = io.StringIO()
    call.reader(req.as_of).export_memories(out, namespace=req.namespace,
                                           include_archived=req.include_archived)
    return [_EXPORT_LINE.decode(line) for line in out.getvalue().splitlines()]


_EXPORT_LINE = msgspec.json.Decoder(Exported)


def _import(call: Call, req: wire.ImportRequest) -> list[eventmem.RememberResult]:
    if len(req.memories) > call.limits.max_batch:
        raise InvalidInputError(f"at most {call.limits.max_batch} memories in one import")
    for line in req.memories:
        call.need(req.namespace or line.namespace, "write")
    lines = io.StringIO("".join(_LINE.encode(line).decode() + "\n" for line in req.memories))
    return call.engine.import_memories(lines, namespace=req.namespace)


_LINE = msgspec.json.Encoder(order="deterministic")


def _forget(call: Call, req: wire.ForgetRequest) -> wire.SeqResult:
    call.memory(call.engine, req.memory_id, "write")
    return wire.SeqResult(seq=call.engine.forget(req.memory_id, reason=req.reason))


def _erase(call: Call, req: wire.EraseRequest) -> eventmem.Erasure:
    if req.memory_id is not None:
        call.memory(call.engine, req.memory_id, "write")
    else:
        call.need(req.namespace, "write")
    return call.engine.erase(req.memory_id, namespace=req.namespace, reason=req.reason)


def _one_memory_write(method: str) -> Callable[[Call, wire.MemoryRequest], wire.SeqResult]:
    def run(call: Call, req: wire.MemoryRequest) -> wire.SeqResult:
        if req.as_of is not None:
            raise InvalidInputError(f"{method} writes: it takes no as_of")
        call.memory(call.engine, req.memory_id, "write")
        return wire.SeqResult(seq=getattr(call.engine, method)(req.memory_id))
    return run


def _feedback(call: Call, req: wire.FeedbackRequest) -> wire.UtilityResult:
    call.memory(call.engine, req.memory_id, "write")
    return wire.UtilityResult(utility=call.engine.feedback(req.memory_id, useful=req.useful))


def _conflicts(call: Call, req: wire.ConflictsRequest) -> list[eventmem.Conflict]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).conflicts(namespace=req.namespace, status=req.status)


def _resolve(call: Call, req: wire.ResolveRequest) -> eventmem.RememberResult:
    # Conflicts are listed per namespace: look in the one named, else in every namespace the
    # caller may read. Another tenant's conflict answers as an unknown one.
    if req.namespace is not None:
        call.need(req.namespace, "read")
        spaces = [req.namespace]
    else:
        spaces = [n for n in call.engine.stats()["by_namespace"]
                  if call.grant.allows(n, "read")]
    for namespace in spaces:
        if any(c.conflict_id == req.conflict_id
               for c in call.engine.conflicts(namespace=namespace, status=None)):
            call.need(namespace, "write")
            return call.engine.resolve(req.conflict_id, strategy=req.strategy)
    raise NotFoundError(f"no conflict {req.conflict_id!r} in this store")


def _consolidate(call: Call, req: wire.ConsolidateRequest) -> eventmem.ConsolidationReport:
    call.store_wide("write")
    return call.engine.consolidate(now=req.now)


MAX_PAGE = 1_000  # memories per page of a listing


def _memories(call: Call, req: wire.MemoriesRequest) -> list[eventmem.Memory]:
    call.need(req.namespace, "read")
    if isinstance(req.limit, bool) or not 1 <= req.limit <= MAX_PAGE:
        raise InvalidInputError(f"limit must be from 1 to {MAX_PAGE}, got {req.limit!r}")
    return list(call.reader(req.as_of).memories(
        namespace=req.namespace, status=req.status, kind=req.kind, tags=req.tags,
        since=req.since, until=req.until, limit=req.limit, cursor=req.cursor,
        filters=req.filters))


def _namespaces(call: Call, req: wire.NamespacesRequest) -> list[str]:
    # Each caller sees the namespaces it may read, never another tenant's names.
    return [ns for ns in call.reader(req.as_of).namespaces() if call.grant.allows(ns, "read")]


def _hot(call: Call, req: wire.HotRequest) -> list[eventmem.Memory]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).hot(namespace=req.namespace, k=call.k(req.k))


def _boxes(call: Call, req: wire.BoxesRequest) -> list[eventmem.Box]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).boxes(namespace=req.namespace, session=req.session,
                                        trace_id=req.trace_id)


def _trace(call: Call, req: wire.TraceRequest) -> list[eventmem.Box]:
    # A trace lies in one namespace; the caller names it, so the grant is checked before any
    # box is read, and another namespace's trace is as unknown as a missing one.
    call.need(req.namespace, "read")
    return call.reader(req.as_of).trace(req.trace_id, namespace=req.namespace)


def _entity(call: Call, req: wire.EntityRequest) -> eventmem.Entity:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).graph.entity(req.name, namespace=req.namespace)


def _neighbors(call: Call, req: wire.NeighborsRequest) -> list[eventmem.Neighbor]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).graph.neighbors(
        req.name, namespace=req.namespace, hops=req.hops, relation_types=req.relation_types,
        entity_types=req.entity_types, limit=req.limit)


def _entity_memories(call: Call, req: wire.EntityRequest) -> list[str]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).graph.memories(req.name, namespace=req.namespace)


def _entities(call: Call, req: wire.EntitiesRequest) -> list[eventmem.Entity]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).graph.entities(namespace=req.namespace, type=req.type)


def _links(call: Call, req: wire.LinksRequest) -> list[eventmem.Link]:
    call.need(req.namespace, "read")
    return call.reader(req.as_of).graph.links(req.memory_id, namespace=req.namespace)


def _verify(call: Call, req: wire.Empty) -> eventmem.VerifyReport:
    call.store_wide("read")
    return call.engine.verify()


def _audit(call: Call, req: wire.AuditRequest) -> eventmem.AuditReport:
    call.store_wide("read")
    return call.engine.audit(until=req.until, tolerance=req.tolerance)


def _stats(call: Call, req: wire.StatsRequest) -> dict[str, Any]:
    call.store_wide("read")
    return call.reader(req.as_of).stats()


def _head(call: Call, req: wire.Empty) -> wire.HeadResult:
    call.store_wide("read")
    head = call.engine.head()
    return wire.HeadResult(seq=head.seq, hash=head.hash.hex())


OPERATIONS: tuple[Operation, ...] = (
    Operation("remember", wire.RememberRequest, eventmem.RememberResult, _remember,
              "Remember one text; answers the write gate's decision.", writes=True),
    Operation("remember_many", wire.RememberManyRequest, list[eventmem.RememberResult],
              _remember_many, "Remember many texts in one atomic, durable append.", writes=True),
    Operation("recall", wire.RecallRequest, list[eventmem.Hit], _recall,
              "The k memories that best answer a query, with per-signal scores (live: recorded "
              "as an access; at as_of: what the store would have answered then)."),
    Operation("context", wire.ContextRequest, wire.ContextResult, _context,
              "A prompt block for a query within a token budget."),
    Operation("get", wire.GetRequest, eventmem.Memory, _get,
              "One memory, as the store holds it now (or at as_of; true at valid_at)."),
    Operation("history", wire.MemoryRequest, list[eventmem.HistoryEntry], _history,
              "Every event that touched a memory, with its evidence: why it is remembered."),
    Operation("timeline", wire.TimelineRequest, list[eventmem.Version], _timeline,
              "The versions of a fact (memory_id) or the memories of an entity, oldest first."),
    Operation("update", wire.UpdateRequest, eventmem.RememberResult, _update,
              "Replace a memory's text: a new version superseding it from now on (history "
              "kept).", writes=True),
    Operation("export", wire.ExportRequest, list[Exported], _export,
              "A namespace's current memories as export records (text, kind, times, metadata, "
              "pin), oldest first."),
    Operation("import", wire.ImportRequest, list[eventmem.RememberResult], _import,
              "Create memories from export records, keeping their original times; one already "
              "present is skipped (at most 1,000 per request).", writes=True),
    Operation("forget", wire.ForgetRequest, wire.SeqResult, _forget,
              "Delete a memory (an event; its history stays).", writes=True),
    Operation("erase", wire.EraseRequest, eventmem.Erasure, _erase,
              "Erase a memory's content, or a namespace's, for good.", writes=True),
    Operation("pin", wire.MemoryRequest, wire.SeqResult, _one_memory_write("pin"),
              "Pin a memory: exempt from forgetting.", writes=True),
    Operation("unpin", wire.MemoryRequest, wire.SeqResult, _one_memory_write("unpin"),
              "Unpin a memory.", writes=True),
    Operation("touch", wire.MemoryRequest, wire.SeqResult, _one_memory_write("touch"),
              "Record that a memory was used (restores retention).", writes=True),
    Operation("resolve_commitment", wire.MemoryRequest, wire.SeqResult,
              _one_memory_write("resolve_commitment"),
              "Mark a plan or commitment done: it leaves recall, archived 90 days on.",
              writes=True),
    Operation("feedback", wire.FeedbackRequest, wire.UtilityResult, _feedback,
              "Say whether a memory helped; answers its new utility.", writes=True),
    Operation("conflicts", wire.ConflictsRequest, list[eventmem.Conflict], _conflicts,
              "The contradictions found in a namespace (open by default)."),
    Operation("resolve", wire.ResolveRequest, eventmem.RememberResult, _resolve,
              "Settle an open conflict with a strategy.", writes=True),
    Operation("consolidate", wire.ConsolidateRequest, eventmem.ConsolidationReport,
              _consolidate, "Maintenance: lifecycle sweep, tiers, dream cycle (needs *).",
              writes=True),
    Operation("hot", wire.HotRequest, list[eventmem.Memory], _hot,
              "The always-relevant memories of a namespace."),
    Operation("memories", wire.MemoriesRequest, list[eventmem.Memory], _memories,
              "A namespace's memories in creation order, filtered by status, kind, tags and "
              "creation time, paged by limit and cursor (the last id of a page)."),
    Operation("namespaces", wire.NamespacesRequest, list[str], _namespaces,
              "The namespaces holding memories that the caller may read."),
    Operation("boxes", wire.BoxesRequest, list[eventmem.Box], _boxes,
              "A namespace's memory boxes: consecutive memories of a session, with the trace "
              "each sealed box joined."),
    Operation("trace", wire.TraceRequest, list[eventmem.Box], _trace,
              "The boxes of one trace (a recurring topic across sessions), in seal order."),
    Operation("graph/entity", wire.EntityRequest, eventmem.Entity, _entity,
              "What the knowledge graph knows about an entity."),
    Operation("graph/neighbors", wire.NeighborsRequest, list[eventmem.Neighbor], _neighbors,
              "Entities within some hops of an entity."),
    Operation("graph/memories", wire.EntityRequest, list[str], _entity_memories,
              "The ids of the memories that mention an entity."),
    Operation("graph/entities", wire.EntitiesRequest, list[eventmem.Entity], _entities,
              "Every entity of a namespace."),
    Operation("graph/links", wire.LinksRequest, list[eventmem.Link], _links,
              "A memory's links to other memories."),
    Operation("verify", wire.Empty, eventmem.VerifyReport, _verify,
              "Check the hash chain, the blobs and the projections (needs *)."),
    Operation("audit", wire.AuditRequest, eventmem.AuditReport, _audit,
              "Re-derive every recorded decision (needs *)."),
    Operation("stats", wire.StatsRequest, dict[str, Any], _stats,
              "Counts and means over the store (needs *)."),
    Operation("head", wire.Empty, wire.HeadResult, _head,
              "The log's head: last seq and chain hash (needs *)."),
)

BY_NAME: dict[str, Operation] = {op.name: op for op in OPERATIONS}

"""What travels between ``eventmem serve`` and its clients: JSON made by msgspec.

Every operation takes one JSON object, decoded into one of the request records below (unknown
fields are refused, so a misspelt option is an error rather than a silent default), and answers
with the engine's own result records (:mod:`eventmem.results` and friends) encoded as JSON.
Times are ISO 8601 strings with their offset; a time without one is refused, as the engine
refuses a naive datetime.

An error answers ``{"error": <the eventmem error class>, "message": ...}`` with the status of
:func:`status_of`; the client raises the same class again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from eventmem import errors
from eventmem.errors import EventmemError
from eventmem.transfer import Exported
from replay.compare import TOLERANCE


class AccessDeniedError(EventmemError, PermissionError):
    """The server refused the call: no token or an unknown or revoked one (``status`` 401), or a
    token whose grant does not cover the namespace or the operation (403)."""

    def __init__(self, message: str, *, status: int = 403) -> None:
        super().__init__(message)
        self.status = status


class ServerError(EventmemError):
    """The server failed in a way eventmem has no error for (HTTP 500, or an answer that is not
    eventmem's JSON): see the server's log."""


class Request(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Base of the request records: unknown fields are refused."""


class AsOf(Request):
    """A past state to read instead of the live store: exactly one of ``at`` (a time) and
    ``seq`` (just after that seq)."""

    at: datetime | None = None
    seq: int | None = None


class Empty(Request):
    """An operation that takes nothing."""


class RememberRequest(Request):
    """``remember``: one text and its options (see :meth:`eventmem.Engine.remember`)."""

    text: str
    namespace: str = "default"
    kind: str | None = None
    source: str = "user"
    importance: float | None = None
    confidence: float = 1.0
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    pinned: bool = False
    immutable: bool = False
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    session: str | None = None
    on_conflict: str | None = None
    metadata: dict[str, Any] | None = None
    tier: str | None = None


class RememberItem(Request):
    """One item of ``remember_many``: remember's options, the namespace the batch's unless
    given."""

    text: str
    namespace: str | None = None
    kind: str | None = None
    source: str = "user"
    importance: float | None = None
    confidence: float = 1.0
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    pinned: bool = False
    immutable: bool = False
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    session: str | None = None
    on_conflict: str | None = None
    metadata: dict[str, Any] | None = None
    tier: str | None = None


class RememberManyRequest(Request):
    """``remember_many``: texts or items, in one atomic append."""

    items: list[str | RememberItem]
    namespace: str = "default"


class RecallRequest(Request):
    """``recall`` (at ``as_of``: what the store would have answered then, recording nothing)."""

    query: str
    namespace: str = "default"
    k: int = 5
    valid_at: datetime | None = None
    include_hidden: bool = False
    profile: str = "default"
    min_score: float | None = None
    filters: dict[str, Any] | None = None
    as_of: AsOf | None = None
    session: str | None = None  # its memories are boosted
    include_hot: bool = False  # the hot tier after the hits
    box_context: int = 0  # each hit's nearest box neighbours (Hit.neighbours)


class ContextRequest(Request):
    """``context``: a prompt block for ``query`` within ``budget_tokens``."""

    query: str
    namespace: str = "default"
    k: int = 10
    budget_tokens: int = 1_000
    valid_at: datetime | None = None
    profile: str = "default"
    filters: dict[str, Any] | None = None
    as_of: AsOf | None = None


class GetRequest(Request):
    """``get``: one memory (true at ``valid_at``, or as it stood at ``as_of``)."""

    memory_id: str
    valid_at: datetime | None = None
    as_of: AsOf | None = None


class MemoryRequest(Request):
    """An operation on one memory: ``history`` (at ``as_of``), ``pin``, ``unpin``, ``touch``."""

    memory_id: str
    as_of: AsOf | None = None


class TimelineRequest(Request):
    """``timeline``: of a memory's fact, or of an entity of ``namespace``."""

    memory_id: str | None = None
    entity: str | None = None
    namespace: str = "default"
    as_of: AsOf | None = None


class UpdateRequest(Request):
    """``update``: a memory's new text (a new version superseding it), and metadata to lay over
    its own."""

    memory_id: str
    text: str
    metadata: dict[str, Any] | None = None


class ExportRequest(Request):
    """``export``: a namespace's current memories as export lines (see
    :mod:`eventmem.transfer`)."""

    namespace: str = "default"
    include_archived: bool = False
    as_of: AsOf | None = None


class ImportRequest(Request):
    """``import``: export lines to create (in ``namespace``, else each line's own); every line
    is checked before any is written."""

    memories: list[Exported]
    namespace: str | None = None


class ForgetRequest(Request):
    """``forget``: delete a memory (an event, not an erasure); ``reason`` is a short code."""

    memory_id: str
    reason: str = "explicit"


class EraseRequest(Request):
    """``erase``: exactly one of ``memory_id`` and ``namespace``."""

    memory_id: str | None = None
    namespace: str | None = None
    reason: str = "request"


class FeedbackRequest(Request):
    """``feedback``: whether a memory helped (a bool, or a target in [0, 1])."""

    memory_id: str
    useful: bool | float = True


class ConflictsRequest(Request):
    """``conflicts`` of a namespace: ``open``, ``resolved`` or all (null)."""

    namespace: str = "default"
    status: str | None = "open"
    as_of: AsOf | None = None


class ResolveRequest(Request):
    """``resolve`` an open conflict with ``strategy`` (``namespace``: where to find it; by
    default every namespace the caller may read)."""

    conflict_id: str
    strategy: str = "use_new"
    namespace: str | None = None


class ConsolidateRequest(Request):
    """``consolidate`` at ``now`` (default: the server's clock)."""

    now: datetime | None = None


class MemoriesRequest(Request):
    """``memories``: a namespace's memories, filtered and paged (see
    :meth:`eventmem.Engine.memories`); at most 1,000 per page."""

    namespace: str = "default"
    status: tuple[str, ...] | None = None
    kind: str | None = None
    tags: tuple[str, ...] | None = None
    since: datetime | None = None
    until: datetime | None = None
    limit: int = 100
    cursor: str | None = None
    filters: dict[str, Any] | None = None
    as_of: AsOf | None = None


class NamespacesRequest(Request):
    """``namespaces``: the namespaces holding memories that the caller may read."""

    as_of: AsOf | None = None


class HotRequest(Request):
    """``hot``: the always-relevant memories of a namespace."""

    namespace: str = "default"
    k: int = 5
    as_of: AsOf | None = None


class BoxesRequest(Request):
    """``boxes``: a namespace's memory boxes (of one ``session`` or ``trace_id`` if given)."""

    namespace: str = "default"
    session: str | None = None
    trace_id: str | None = None
    as_of: AsOf | None = None


class TraceRequest(Request):
    """``trace``: the boxes of one trace of a namespace, in the order they were sealed."""

    trace_id: str
    namespace: str = "default"
    as_of: AsOf | None = None


class EntityRequest(Request):
    """``graph/entity`` and ``graph/memories``: one entity of a namespace."""

    name: str
    namespace: str = "default"
    as_of: AsOf | None = None


class NeighborsRequest(Request):
    """``graph/neighbors``: entities within ``hops`` relations of ``name``."""

    name: str
    namespace: str = "default"
    hops: int = 1
    relation_types: tuple[str, ...] | None = None
    entity_types: tuple[str, ...] | None = None
    limit: int = 50
    as_of: AsOf | None = None


class EntitiesRequest(Request):
    """``graph/entities``: every entity of a namespace (of one ``type`` if given)."""

    namespace: str = "default"
    type: str | None = None
    as_of: AsOf | None = None


class LinksRequest(Request):
    """``graph/links``: a memory's links to other memories."""

    memory_id: str
    namespace: str = "default"
    as_of: AsOf | None = None


class AuditRequest(Request):
    """``audit``: re-derive the decisions up to ``until`` (default: the head)."""

    until: int | None = None
    tolerance: float = TOLERANCE


class StatsRequest(Request):
    """``stats``, of the live store or at ``as_of``."""

    as_of: AsOf | None = None


# -- results the engine returns as plain values --------------------------------------------------


class SeqResult(msgspec.Struct, kw_only=True):
    """A write that answers with the seq that recorded it (forget, pin, unpin, touch)."""

    seq: int


class UtilityResult(msgspec.Struct, kw_only=True):
    """``feedback``: the memory's new utility."""

    utility: float


class ContextResult(msgspec.Struct, kw_only=True):
    """``context``: the prompt block."""

    context: str


class HeadResult(msgspec.Struct, kw_only=True):
    """The log's head: its last seq and the hash chaining every event up to it (hex)."""

    seq: int
    hash: str


class Health(msgspec.Struct, kw_only=True):
    """``/v1/health``: the server is up and owns a store at ``seq``."""

    ok: bool
    seq: int
    version: str


class ErrorBody(msgspec.Struct, kw_only=True):
    """Every error answer: the eventmem error class (or ``AccessDeniedError``, ``ServerError``)
    and its message."""

    error: str
    message: str


# -- errors <-> HTTP -----------------------------------------------------------------------------

# Most specific first: the first class an error is an instance of gives its status.
_STATUS: tuple[tuple[type[BaseException], int], ...] = (
    (errors.InvalidInputError, 400),
    (errors.NotFoundError, 404),
    (errors.ReadOnlyError, 409),
    (errors.ClosedError, 409),
    (errors.StoreLockedError, 423),
    (errors.StorageFullError, 507),
)


def status_of(error: BaseException) -> int:
    """The HTTP status an error answers with: 400 bad input, 401/403 refused access, 404 no such
    memory, 409 a write the store cannot take (read-only, closed), 423 locked, 507 disk full,
    500 anything else."""
    if isinstance(error, AccessDeniedError):
        return error.status
    for cls, status in _STATUS:
        if isinstance(error, cls):
            return status
    return 500


def error_from(status: int, body: bytes) -> EventmemError:
    """The exception a client raises for an error answer: the class the body names when it is
    an eventmem error, else :class:`ServerError`."""
    try:
        decoded = msgspec.json.decode(body, type=ErrorBody)
    except msgspec.DecodeError:
        text = body[:200].decode("utf-8", "replace")
        return ServerError(f"HTTP {status}: {text}")
    if decoded.error == "AccessDeniedError":
        return AccessDeniedError(decoded.message, status=status)
    cls: Any = getattr(errors, decoded.error, None)
    if isinstance(cls, type) and issubclass(cls, EventmemError):
        return cls(decoded.message)
    return ServerError(f"{decoded.error}: {decoded.message}")

"""The MCP server: eventmem's operations as tools an LLM agent can choose between.

Built with the official ``mcp`` SDK (``MCPServer``). ``eventmem mcp --store DIR`` serves it over
stdio for a desktop agent (the process owns the store; whoever starts it may do everything), and
``eventmem serve`` mounts its streamable HTTP transport at ``/mcp``, where the bearer token of
each request decides, as for the JSON API, which namespaces a tool may read or write.

Every tool runs the same operation as the JSON API (:mod:`eventmem.serve.operations`): the same
access checks, the same limits. A refused or failed call comes back as a tool error whose text
names the eventmem error and says what went wrong.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

import eventmem
from eventmem.errors import EventmemError
from eventmem.serve import wire
from eventmem.serve.operations import BY_NAME, Call, Limits
from eventmem.serve.tokens import OPEN, Tokens, bearer

INSTRUCTIONS = (
    "Long-term memory. Use `remember` for durable facts, preferences, plans and events the user "
    "tells you; `recall` (or `context` for a ready prompt block) before answering anything that "
    "may depend on what you were told before; `history` to explain why something is remembered; "
    "`feedback` after using a memory. Memories live in namespaces (one per user or agent). "
    "Times are ISO 8601 with an offset, such as 2025-03-01T09:00:00Z."
)

Profile = Literal["default", "recent", "important", "deep", "broad"]
Strategy = Literal["keep_existing", "use_new", "merge", "temporal"]


def build_mcp(engine: eventmem.Engine, *, tokens: Tokens | None = None,
              limits: Limits | None = None) -> MCPServer:
    """The MCP server over ``engine``. With ``tokens``, a tool call over HTTP runs with the
    grant of the request's bearer token; without (stdio, or an open server) with every grant."""
    limits = limits or Limits()
    server = MCPServer(name="eventmem", instructions=INSTRUCTIONS, version=eventmem.__version__,
                       log_level="WARNING")

    def run(ctx: Context, name: str, request: wire.Request) -> Any:
        grant = OPEN
        headers = ctx.headers if ctx is not None else None
        if tokens is not None and headers is not None:
            found = tokens.grant(bearer(headers))
            if found is None:
                raise ToolError("AccessDeniedError: a valid bearer token is required")
            grant = found
        try:
            result = BY_NAME[name].run(Call(engine, grant, limits, f"mcp:{name}"), request)
        except EventmemError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc
        except (msgspec.ValidationError, TypeError, ValueError) as exc:
            raise ToolError(f"InvalidInputError: {exc}") from exc
        return msgspec.to_builtins(result)

    def past(at: datetime | None, seq: int | None) -> wire.AsOf | None:
        return None if at is None and seq is None else wire.AsOf(at=at, seq=seq)

    @server.tool()
    def remember(text: str, ctx: Context, namespace: str = "default", kind: str | None = None,
                 valid_from: datetime | None = None, valid_until: datetime | None = None,
                 pinned: bool = False, tags: list[str] | None = None,
                 metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """Store something worth keeping about the user or the task (a fact, preference, plan,
        event). Duplicates reinforce the existing memory; a contradiction supersedes the older
        fact (both stay in history). Returns the action taken (created, reinforced, merged,
        superseded, skipped, rejected) and the memory id. `valid_from`/`valid_until`: when the
        fact is true, ISO 8601. `kind` is classified from the text when left out. `metadata`: a
        small JSON object (source, thread, user id) that `recall` can filter on."""
        return run(ctx, "remember", wire.RememberRequest(
            text=text, namespace=namespace, kind=kind, valid_from=valid_from,
            valid_until=valid_until, pinned=pinned, tags=tuple(tags or ()),
            metadata=metadata))

    @server.tool()
    def update(memory_id: str, text: str, ctx: Context,
               metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """Correct or rewrite one memory you know the id of (from `recall`): `text` becomes its
        new version, current from now on; the old version is kept in its history. Use it when
        the user corrects something specific; to record news, `remember` it instead."""
        return run(ctx, "update", wire.UpdateRequest(memory_id=memory_id, text=text,
                                                      metadata=metadata))

    @server.tool()
    def recall(query: str, ctx: Context, namespace: str = "default", k: int = 5,
               valid_at: datetime | None = None, as_of: datetime | None = None,
               profile: Profile = "default",
               filters: dict[str, Any] | None = None) -> dict[str, Any]:
        """Search memory for what answers `query`, best first, each hit with its text, score and
        memory id. `valid_at`: only facts true at that time ("where did she live in 2020").
        `as_of`: what the memory held at that past time (before later corrections). `profile`
        weighs relevance against recency (recent), importance (important), or breadth.
        `filters`: only memories whose metadata matches, such as {"thread": "t1"} or
        {"score": {"$gte": 3}}."""
        return {"hits": run(ctx, "recall", wire.RecallRequest(
            query=query, namespace=namespace, k=k, valid_at=valid_at, profile=profile,
            filters=filters, as_of=None if as_of is None else wire.AsOf(at=as_of)))}

    @server.tool()
    def context(query: str, ctx: Context, namespace: str = "default",
                budget_tokens: int = 1_000, valid_at: datetime | None = None) -> dict[str, Any]:
        """A block of remembered facts relevant to `query`, ready to paste into a prompt and
        kept within `budget_tokens`: the strongest in full, weaker ones as one line."""
        return run(ctx, "context", wire.ContextRequest(
            query=query, namespace=namespace, budget_tokens=budget_tokens, valid_at=valid_at))

    @server.tool()
    def get(memory_id: str, ctx: Context, as_of: datetime | None = None,
            as_of_seq: int | None = None) -> dict[str, Any]:
        """One memory by id: text, kind, status (active, stale, superseded, deleted...),
        importance, utility, retention, valid times. `as_of`/`as_of_seq`: as it stood then."""
        return run(ctx, "get", wire.GetRequest(memory_id=memory_id,
                                                as_of=past(as_of, as_of_seq)))

    @server.tool()
    def history(memory_id: str, ctx: Context) -> dict[str, Any]:
        """Why do you remember this, and since when: every event that touched the memory
        (created, reinforced, merged, superseded, recalled, feedback, forgotten), oldest first,
        each with the rule and evidence behind the decision."""
        return {"events": run(ctx, "history", wire.MemoryRequest(memory_id=memory_id))}

    @server.tool()
    def forget(memory_id: str, ctx: Context, reason: str = "explicit") -> dict[str, Any]:
        """Delete a memory the user wants gone or that is wrong (recorded; its history stays).
        `reason` is a short code such as `outdated` or `user_request`, never prose."""
        return run(ctx, "forget", wire.ForgetRequest(memory_id=memory_id, reason=reason))

    @server.tool()
    def feedback(memory_id: str, ctx: Context, useful: bool = True) -> dict[str, Any]:
        """Say whether a recalled memory helped: useful memories rank higher later, useless
        ones fade. Returns the memory's new utility."""
        return run(ctx, "feedback", wire.FeedbackRequest(memory_id=memory_id, useful=useful))

    @server.tool()
    def timeline(ctx: Context, memory_id: str | None = None, entity: str | None = None,
                 namespace: str = "default") -> dict[str, Any]:
        """How a fact changed over time: give `memory_id` for every version of that fact (what
        it replaced and what replaced it), or `entity` (a name) for every memory about it;
        oldest first, with when each was true and when it was known."""
        return {"versions": run(ctx, "timeline", wire.TimelineRequest(
            memory_id=memory_id, entity=entity, namespace=namespace))}

    @server.tool()
    def entity(name: str, ctx: Context, namespace: str = "default") -> dict[str, Any]:
        """What the knowledge graph knows about a person, place, organization or thing: its
        type, its relations to other entities (lives_in, works_at...) and the memories that
        mention it."""
        return run(ctx, "graph/entity", wire.EntityRequest(name=name, namespace=namespace))

    @server.tool()
    def conflicts(ctx: Context, namespace: str = "default",
                  status: Literal["open", "resolved"] | None = "open") -> dict[str, Any]:
        """Contradictions found between memories (an old value and a new one for the same
        thing), open ones by default: ask the user, then settle each with `resolve`."""
        return {"conflicts": run(ctx, "conflicts", wire.ConflictsRequest(
            namespace=namespace, status=status))}

    @server.tool()
    def resolve(conflict_id: str, ctx: Context, strategy: Strategy = "use_new",
                namespace: str | None = None) -> dict[str, Any]:
        """Settle an open conflict: `use_new` (the newer value wins), `keep_existing`, `merge`
        (one memory carries both) or `temporal` (the later valid time wins). The loser is
        superseded, not deleted."""
        return run(ctx, "resolve", wire.ResolveRequest(conflict_id=conflict_id,
                                                        strategy=strategy, namespace=namespace))

    return server


def run_stdio(store: str) -> None:
    """``eventmem mcp --store DIR``: open the store and serve MCP over stdin/stdout until the
    client closes it."""
    with eventmem.open(store) as engine:
        build_mcp(engine).run("stdio")

"""The MCP server, through the official SDK's own client: over stdio (``eventmem mcp``, a real
subprocess) and over streamable HTTP (``/mcp`` of a real ``eventmem serve``), with tokens."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

import eventmem
from tests.serve.conftest import Served, add_token, env, post, start_server

TOOLS = {"remember", "recall", "context", "get", "history", "forget", "feedback", "timeline",
         "entity", "conflicts", "resolve", "update"}

Session = Callable[[], Any]


@asynccontextmanager
async def over_stdio(store: Path) -> AsyncIterator[ClientSession]:
    """A session with ``eventmem mcp --store STORE`` as a child process."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "eventmem.cli", "--store", str(store), "mcp"],
                                   env=env())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def over_http(url: str, token: str | None = None) -> AsyncIterator[ClientSession]:
    """A session with the ``/mcp`` endpoint of a running ``eventmem serve``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http, \
            streamable_http_client(f"{url}/mcp", http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> Any:
    """Call a tool; returns its structured result, or raises with the tool's error text."""
    result = await session.call_tool(tool, arguments)
    if result.is_error:
        raise ToolFailed(result.content[0].text)  # type: ignore[union-attr]
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


class ToolFailed(Exception):
    """A tool answered ``is_error``."""


async def a_session_of_memory(session: ClientSession) -> None:
    """What an agent does: remember, recall (now, true-at and as-of), ask why, correct."""
    listed = await session.list_tools()
    assert TOOLS <= {t.name for t in listed.tools}
    assert all(t.description and len(t.description) > 40 for t in listed.tools)
    oslo = await call(session, "remember", text="Bob lives in Oslo", namespace="mcp")
    assert oslo["action"] == "created"
    paris = await call(session, "remember", text="Bob moved to Paris", namespace="mcp")
    assert paris["action"] == "superseded"
    hits = (await call(session, "recall", query="where does bob live", namespace="mcp"))["hits"]
    assert hits[0]["memory_id"] == paris["memory_id"]
    past = await call(session, "recall", query="where does bob live", namespace="mcp",
                      as_of=oslo_time(await call(session, "get", memory_id=oslo["memory_id"])))
    assert past["hits"][0]["memory_id"] == oslo["memory_id"]
    true_then = await call(session, "recall", query="where does bob live", namespace="mcp",
                           valid_at=oslo_time(await call(session, "get",
                                                         memory_id=oslo["memory_id"])))
    assert [h["memory_id"] for h in true_then["hits"]] == [oslo["memory_id"]]
    why = (await call(session, "history", memory_id=paris["memory_id"]))["events"]
    assert why[0]["type"] == "memory.ingested"
    versions = (await call(session, "timeline", memory_id=paris["memory_id"]))["versions"]
    assert [v["memory_id"] for v in versions] == [oslo["memory_id"], paris["memory_id"]]
    bob = await call(session, "entity", name="Bob", namespace="mcp")
    assert bob["type"] == "person"
    assert (await call(session, "feedback", memory_id=paris["memory_id"]))["utility"] > 0.5
    assert "Paris" in (await call(session, "context", query="bob", namespace="mcp"))["context"]
    assert (await call(session, "conflicts", namespace="mcp", status=None))["conflicts"]
    note = await call(session, "remember", text="The team offsite is in Lisbon",
                      namespace="mcp", metadata={"thread": "planning"})
    fixed = await call(session, "update", memory_id=note["memory_id"],
                       text="The team offsite is in Porto")
    assert fixed["action"] == "updated"
    found = (await call(session, "recall", query="where is the team offsite", namespace="mcp",
                        filters={"thread": "planning"}))["hits"]
    assert [h["memory_id"] for h in found] == [fixed["memory_id"]]
    assert found[0]["metadata"] == {"thread": "planning"}
    await call(session, "forget", memory_id=paris["memory_id"], reason="outdated")
    assert (await call(session, "get", memory_id=paris["memory_id"]))["status"] == "deleted"
    try:
        await call(session, "get", memory_id="mem_nope")
    except ToolFailed as failed:
        assert "NotFoundError" in str(failed)
    else:
        raise AssertionError("an unknown id must be a tool error")


def _every_message(error: BaseException) -> str:
    """The messages of an error and of every error grouped or chained in it."""
    found = [repr(error)]
    for inner in getattr(error, "exceptions", ()):
        found.append(_every_message(inner))
    if error.__cause__ is not None:
        found.append(_every_message(error.__cause__))
    return " ".join(found)


def oslo_time(memory: dict[str, Any]) -> str:
    """A moment while only the Oslo memory was known and true: its creation time."""
    return str(memory["created_at"])


def run(test: Callable[[], Awaitable[None]]) -> None:
    anyio.run(test)


def test_mcp_over_stdio(tmp_path: Path) -> None:
    async def main() -> None:
        async with over_stdio(tmp_path / "store") as session:
            await a_session_of_memory(session)
    run(main)
    with eventmem.open(tmp_path / "store") as mem:  # the child wrote the store, and it verifies
        assert mem.verify().ok and mem.audit().ok


def test_mcp_over_streamable_http(server: Served) -> None:
    async def main() -> None:
        async with over_http(server.url) as session:
            await a_session_of_memory(session)
    run(main)


def test_mcp_over_http_needs_a_token_and_keeps_to_its_grant(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with eventmem.open(store) as mem:
        secret = mem.remember("Carol's alarm rings at 6:40", namespace="carol").memory_id
    token, _ = add_token(store, "--namespace", "mcp")
    served = start_server(store)
    try:
        async def main() -> None:
            async with over_http(served.url, token) as session:
                await call(session, "remember", text="Dana likes kites", namespace="mcp")
                for tool, args in (("recall", {"query": "alarm", "namespace": "carol"}),
                                   ("get", {"memory_id": secret})):
                    try:
                        await call(session, tool, **args)
                    except ToolFailed as failed:
                        assert "AccessDeniedError" in str(failed) or "NotFound" in str(failed)
                    else:
                        raise AssertionError(f"{tool} outside the grant must fail")
        run(main)

        async def without_token() -> None:
            async with over_http(served.url) as session:
                await session.list_tools()
        try:
            run(without_token)
        except BaseException as refused:  # the SDK turns the 401 into an MCPError, in a group
            assert "MCPError" in _every_message(refused), _every_message(refused)
        else:
            raise AssertionError("an MCP session without a token must be refused")
        status, body = post(served.url, "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert status == 401 and body["error"] == "AccessDeniedError"
    finally:
        served.stop()

"""``eventmem serve``: one process owns the store and serves every client over HTTP.

Starlette on uvicorn: a small, well-kept ASGI stack, and the one the official MCP SDK builds its
streamable HTTP transport on, so the JSON API (``POST /v1/<operation>``, drawn from
:data:`eventmem.serve.operations.OPERATIONS`) and the MCP endpoint (``/mcp``) share one process,
one engine and one port.

Each call runs in a worker thread (the engine is blocking, and its lock serializes every call:
writes go through one writer, and a read never sees a half-folded state). A body is read up to
``Limits.max_body`` bytes, then refused with 413. ``GET /openapi.json`` describes every route;
``GET /v1/health`` answers without a token, for readiness probes.

Access: with a token file, every call needs ``Authorization: Bearer <token>`` (see
:mod:`eventmem.serve.tokens`); without one the server runs open, and so it refuses to start on
any address but loopback.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

import eventmem
from eventmem.errors import EventmemError, InvalidInputError
from eventmem.serve import wire
from eventmem.serve.operations import OPERATIONS, Call, Limits, Operation
from eventmem.serve.tokens import OPEN, Grant, Tokens, bearer, default_path

_encoder = msgspec.json.Encoder()


class BodyTooLarge(InvalidInputError):
    """A request body past ``Limits.max_body`` (answered 413)."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (or ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _json(data: Any, status: int = 200) -> Response:
    return Response(_encoder.encode(data), status_code=status, media_type="application/json")


def error_response(error: BaseException) -> Response:
    """The JSON error answer for ``error``: ``{"error": class, "message": ...}``."""
    if isinstance(error, BodyTooLarge):
        return _json(wire.ErrorBody(error="InvalidInputError", message=str(error)), 413)
    if isinstance(error, msgspec.ValidationError | msgspec.DecodeError):
        return _json(wire.ErrorBody(error="InvalidInputError",
                                    message=f"bad request body: {error}"), 400)
    status = wire.status_of(error)
    if isinstance(error, EventmemError) and status != 500:
        return _json(wire.ErrorBody(error=type(error).__name__, message=str(error)), status)
    name = type(error).__name__ if isinstance(error, EventmemError) else "ServerError"
    return _json(wire.ErrorBody(error=name, message="the server failed; see its ops log"), 500)


class Server:
    """The application around one engine: authentication, limits, the routes of every
    operation, the OpenAPI schema, and the MCP endpoint."""

    def __init__(self, engine: eventmem.Engine, *, tokens: Tokens | None,
                 limits: Limits | None = None, mcp: bool = True, host: str = "127.0.0.1",
                 owns_engine: bool = False) -> None:
        self.engine, self.tokens = engine, tokens
        self.owns_engine = owns_engine  # close the engine when the application shuts down
        self.limits = limits or Limits()
        self._mcp = None
        routes: list[Route] = [
            Route("/v1/health", self._health, methods=["GET"]),
            Route("/openapi.json", self._openapi, methods=["GET"]),
            *(Route(op.path, self._endpoint(op), methods=["POST"]) for op in OPERATIONS),
        ]
        if mcp:
            from eventmem.serve.tools import build_mcp
            self._mcp = build_mcp(engine, tokens=tokens, limits=self.limits)
            mcp_app = self._mcp.streamable_http_app(streamable_http_path="/mcp", host=host)
            inner = next(r for r in mcp_app.routes if getattr(r, "path", None) == "/mcp")
            routes.append(Route("/mcp", self._guard(inner.app)))  # type: ignore[attr-defined]
        self.app = Starlette(routes=routes, lifespan=self._lifespan,
                             exception_handlers={404: self._not_found, 405: self._not_allowed})

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        # The engine closes here, in the application's shutdown, and not after uvicorn returns:
        # on SIGTERM uvicorn shuts the application down, then raises the signal again, and the
        # process ends there (a store left unclosed reopens fine, but without its snapshot).
        try:
            if self._mcp is None:
                yield
            else:
                async with self._mcp.session_manager.run():
                    yield
        finally:
            if self.owns_engine:
                await run_in_threadpool(self.engine.close)

    def grant(self, headers: Any, op: str) -> Grant:
        """The caller's grant: open when there is no token file, else the token's; a missing,
        unknown or revoked token raises AccessDeniedError (401) and is logged."""
        if self.tokens is None:
            return OPEN
        grant = self.tokens.grant(bearer(headers))
        if grant is None:
            self.engine.log_op("access_denied", token_id=None, operation=op, status=401,
                               why="no token" if bearer(headers) is None else "unknown token")
            raise wire.AccessDeniedError("a valid bearer token is required "
                                         "(Authorization: Bearer <token>)", status=401)
        return grant

    async def _read(self, request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limits.max_body:
            raise BodyTooLarge(f"the request body is over {self.limits.max_body} bytes")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.limits.max_body:
                raise BodyTooLarge(f"the request body is over {self.limits.max_body} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def _endpoint(self, op: Operation) -> Callable[[Request], Awaitable[Response]]:
        def work(grant: Grant, body: bytes) -> bytes:
            request = msgspec.json.decode(body or b"{}", type=op.request)
            return _encoder.encode(op.run(Call(self.engine, grant, self.limits, op.name),
                                          request))

        async def endpoint(request: Request) -> Response:
            try:
                grant = self.grant(request.headers, op.name)
                body = await self._read(request)
                data = await run_in_threadpool(work, grant, body)
            except Exception as exc:
                if wire.status_of(exc) == 500 and not isinstance(
                        exc, msgspec.ValidationError | msgspec.DecodeError | BodyTooLarge):
                    self.engine.log_op("server_error", operation=op.name,
                                       error=type(exc).__name__)
                return error_response(exc)
            return Response(data, media_type="application/json")
        return endpoint

    def _guard(self, app: ASGIApp) -> ASGIApp:
        """The MCP endpoint behind the same token check (its tools check the namespaces)."""
        return _Guarded(self, app)

    async def _health(self, request: Request) -> Response:
        seq = await run_in_threadpool(lambda: self.engine.seq)
        return _json(wire.Health(ok=True, seq=seq, version=eventmem.__version__))

    async def _openapi(self, request: Request) -> Response:
        return _json(openapi())

    async def _not_found(self, request: Request, exc: Exception) -> Response:
        return _json(wire.ErrorBody(error="NotFoundError",
                                    message=f"no route {request.url.path}; see /openapi.json"),
                     404)

    async def _not_allowed(self, request: Request, exc: Exception) -> Response:
        return _json(wire.ErrorBody(error="InvalidInputError",
                                    message=f"{request.method} is not allowed on "
                                            f"{request.url.path}; operations are POST"), 405)


class _Guarded:
    """An ASGI app that answers 401 unless the request's token is valid, then runs ``app``. A
    class, not a function: Starlette would take a function endpoint for a request handler."""

    def __init__(self, server: Server, app: ASGIApp) -> None:
        self.server, self.app = server, app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            try:
                self.server.grant(Request(scope).headers, "mcp")
            except wire.AccessDeniedError as exc:
                await error_response(exc)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 description of every route, with the request and result schemas msgspec
    draws from the records themselves."""
    types: list[Any] = [wire.ErrorBody, wire.Health]
    for op in OPERATIONS:
        types += [op.request, op.result]
    schemas, components = msgspec.json.schema_components(
        types, ref_template="#/components/schemas/{name}")
    error_schema, health_schema = schemas[0], schemas[1]
    errors = {str(code): {"description": why,
                          "content": {"application/json": {"schema": error_schema}}}
              for code, why in ((400, "bad input"), (401, "no valid token"),
                                (403, "namespace or operation outside the token's grant"),
                                (404, "no such memory, conflict or entity"),
                                (409, "the store cannot take the write"),
                                (413, "request body too large"), (423, "store locked"),
                                (500, "server failure"))}
    paths: dict[str, Any] = {
        "/v1/health": {"get": {"summary": "Readiness: the store's seq (no token needed).",
                               "operationId": "health", "responses": {"200": {
                                   "description": "ok", "content": {
                                       "application/json": {"schema": health_schema}}}}}},
        "/openapi.json": {"get": {"summary": "This document.", "operationId": "openapi",
                                  "responses": {"200": {"description": "OpenAPI 3.1"}}}},
        "/mcp": {"post": {"summary": "The MCP streamable HTTP transport (JSON-RPC; see the MCP "
                                     "specification).", "operationId": "mcp",
                          "responses": {"200": {"description": "MCP messages"}}}},
    }
    for index, op in enumerate(OPERATIONS):
        request, result = schemas[2 + 2 * index], schemas[3 + 2 * index]
        paths[op.path] = {"post": {
            "summary": op.summary,
            "operationId": op.name.replace("/", "_"),
            "tags": ["write" if op.writes else "read"],
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": request}}},
            "responses": {"200": {"description": "ok", "content": {
                "application/json": {"schema": result}}}, **errors},
        }}
    return {
        "openapi": "3.1.0",
        "info": {"title": "eventmem", "version": eventmem.__version__,
                 "description": "Long-term memory for AI agents, event-sourced. Times are ISO "
                                "8601 with an offset. Every operation is POST with a JSON body."},
        "components": {"schemas": components,
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": paths,
    }


def serve(store: str | os.PathLike[str], *, host: str = "127.0.0.1", port: int = 8765,
          tokens_path: str | os.PathLike[str] | None = None, limits: Limits | None = None,
          mcp: bool = True) -> None:
    """Open the store and serve it until interrupted (uvicorn). Refuses to start on a
    non-loopback host without a token file: an open server is for this machine only."""
    import uvicorn

    path = Path(tokens_path) if tokens_path is not None else default_path(store)
    tokens = Tokens(path) if path.exists() else None
    if tokens is None and not is_loopback(host):
        raise InvalidInputError(
            f"no token file at {path}: an open server (no tokens) binds loopback only; add a "
            "token with `eventmem token add` or serve on 127.0.0.1")
    engine = eventmem.open(store)
    try:
        server = Server(engine, tokens=tokens, limits=limits, mcp=mcp, host=host,
                        owns_engine=True)
        access = f"tokens from {path}" if tokens is not None else "open (no token file)"
        print(f"eventmem serve: store {engine.path} on http://{host}:{port} ({access})",
              file=sys.stderr, flush=True)
        config = uvicorn.Config(server.app, host=host, port=port, log_level="warning",
                                lifespan="on", limit_concurrency=256)
        uvicorn.Server(config).run()
    finally:
        engine.close()  # a second close does nothing; this one is for a failed start

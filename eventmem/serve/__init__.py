"""The server and its client: one process owns a store and serves many agents.

- :mod:`eventmem.serve.wire` — what travels: the request records of every operation, the small
  result records the engine has no type for, the error body and its HTTP status.
- :mod:`eventmem.serve.tokens` — bearer tokens and the namespaces each grants, in a file the
  operator manages (only their sha256 is stored).
- :mod:`eventmem.serve.operations` — the table of operations: path, request and result types,
  the access each needs, and the call on the engine. The HTTP routes, the OpenAPI schema and the
  client are all drawn from it.
- :mod:`eventmem.serve.http` — the Starlette application and ``eventmem serve`` (uvicorn).
- :mod:`eventmem.serve.tools` — the MCP server (official ``mcp`` SDK): stdio and streamable HTTP.
- :mod:`eventmem.serve.client` — ``eventmem.connect(url, token=)``: the engine's methods over
  HTTP, standard library only.
"""

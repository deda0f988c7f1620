"""The JSON HTTP API of ``eventmem serve``, over real HTTP to a real server process."""

from __future__ import annotations

import json
import urllib.request
from datetime import datetime
from pathlib import Path

import eventmem
from eventmem.serve.operations import OPERATIONS
from tests.serve.conftest import Served, post, start_server


def _aware(value: str) -> datetime:
    when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    assert when.tzinfo is not None, value
    return when


def test_remember_recall_get_history_over_http(server: Served) -> None:
    status, created = post(server.url, "remember", {
        "text": "Alice moved to Berlin in March", "namespace": "http-a",
        "valid_from": "2025-03-01T09:00:00+00:00"})
    assert status == 200 and created["action"] == "created"
    mid = created["memory_id"]
    status, again = post(server.url, "remember", {"text": "alice moved to  Berlin in March",
                                                  "namespace": "http-a"})
    assert (status, again["action"], again["memory_id"]) == (200, "reinforced", mid)

    status, hits = post(server.url, "recall", {"query": "which city did alice move to?",
                                               "namespace": "http-a", "k": 3})
    assert status == 200 and hits[0]["memory_id"] == mid
    assert {"vector_rank", "bm25_rank"} <= set(hits[0]["signals"])
    _aware(hits[0]["created_at"])
    assert post(server.url, "recall", {"query": "which city", "namespace": "http-b"}) == (200, [])

    status, memory = post(server.url, "get", {"memory_id": mid})
    assert status == 200 and memory["namespace"] == "http-a" and memory["status"] == "active"
    assert _aware(memory["valid_from"]) == datetime.fromisoformat("2025-03-01T09:00:00+00:00")
    status, entries = post(server.url, "history", {"memory_id": mid})
    assert [e["type"] for e in entries][:2] == ["memory.ingested", "memory.reinforced"]


def test_every_operation_answers(server: Served) -> None:
    ns = "http-ops"
    _, oslo = post(server.url, "remember", {"text": "Bob lives in Oslo", "namespace": ns,
                                            "on_conflict": "ask"})
    _, paris = post(server.url, "remember", {"text": "Bob moved to Paris", "namespace": ns,
                                             "on_conflict": "ask"})
    _, many = post(server.url, "remember_many", {"items": [
        "Carol plays the cello", {"text": "Dan works at Acme", "kind": "relationship"}],
        "namespace": ns})
    assert [r["action"] for r in many] == ["created", "created"]
    mid = many[0]["memory_id"]
    _, head = post(server.url, "head", {})
    checks = {
        "context": {"query": "what does carol play", "namespace": ns},
        "timeline": {"memory_id": oslo["memory_id"]},
        "pin": {"memory_id": mid}, "unpin": {"memory_id": mid}, "touch": {"memory_id": mid},
        "feedback": {"memory_id": mid, "useful": 0.8},
        "conflicts": {"namespace": ns, "status": None},
        "hot": {"namespace": ns, "k": 3},
        "graph/entity": {"name": "Bob", "namespace": ns},
        "graph/neighbors": {"name": "Bob", "namespace": ns, "hops": 2},
        "graph/memories": {"name": "Bob", "namespace": ns},
        "graph/entities": {"namespace": ns},
        "graph/links": {"memory_id": paris["memory_id"], "namespace": ns},
        "stats": {}, "verify": {}, "audit": {},
        "consolidate": {"now": "2099-01-01T00:00:00Z"},
        "recall": {"query": "Bob", "namespace": ns, "as_of": {"seq": head["seq"]}},
        "get": {"memory_id": mid, "as_of": {"at": "2099-01-01T00:00:00Z"}},
    }
    answers = {}
    for op, body in checks.items():
        status, answers[op] = post(server.url, op, body)
        assert status == 200, (op, answers[op])
    assert "Carol" in answers["context"]["context"]
    assert answers["verify"]["ok"] and answers["audit"]["ok"]
    assert answers["feedback"]["utility"] > 0.5
    assert answers["graph/entity"]["type"] == "person"
    # The conflict was flagged (strategy ask): resolve it, then forget and erase.
    conflict = answers["conflicts"][0]["conflict_id"]
    status, resolved = post(server.url, "resolve", {"conflict_id": conflict, "namespace": ns})
    assert status == 200 and resolved["action"] == "superseded"
    status, forgot = post(server.url, "forget", {"memory_id": mid})
    assert status == 200 and forgot["seq"] > head["seq"]
    status, erased = post(server.url, "erase", {"memory_id": many[1]["memory_id"]})
    assert status == 200 and erased["memory_ids"] == [many[1]["memory_id"]]
    assert post(server.url, "get", {"memory_id": mid})[1]["status"] == "deleted"


def test_errors_are_json_with_their_status(server: Served) -> None:
    assert post(server.url, "get", {"memory_id": "mem_nope"}) == (404, {
        "error": "NotFoundError", "message": "no memory 'mem_nope' in this store"})
    status, body = post(server.url, "remember", {"text": "", "namespace": "http-e"})
    assert status == 400 and body["error"] == "InvalidInputError"
    status, body = post(server.url, "recall", {"query": "x", "colour": "red"})
    assert status == 400 and "colour" in body["message"]
    status, body = post(server.url, "recall", {"query": "x", "k": 101})
    assert status == 400 and "at most 100" in body["message"]
    status, body = post(server.url, "remember", None, raw=b"{not json")
    assert status == 400 and body["error"] == "InvalidInputError"
    status, body = post(server.url, "recall", {"query": "x", "valid_at": "2025-01-01T00:00:00"})
    assert status == 400, body  # a time without its offset is refused, as a naive datetime is
    status, body = post(server.url, "no/such/op", {})
    assert status == 404 and body["error"] == "NotFoundError"
    # Past --max-body (200000 for this server); small enough that the whole body fits in the
    # socket's buffers, so the client reads the 413 instead of a reset while it still sends.
    status, body = post(server.url, "remember", {"text": "x" * 300_000})
    assert status == 413 and body["error"] == "InvalidInputError" and "200000" in body["message"]
    request = urllib.request.Request(server.url + "/v1/recall", method="GET")
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        assert error.code == 405 and json.loads(error.read())["error"] == "InvalidInputError"
    else:
        raise AssertionError("GET on an operation must be refused")


def test_openapi_lists_every_route(server: Served) -> None:
    with urllib.request.urlopen(server.url + "/openapi.json", timeout=10) as response:
        schema = json.loads(response.read())
    assert schema["openapi"].startswith("3.")
    assert {op.path for op in OPERATIONS} | {"/v1/health", "/openapi.json", "/mcp"} \
        == set(schema["paths"])
    recall = schema["paths"]["/v1/recall"]["post"]
    ref = recall["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    fields = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]
    assert {"query", "namespace", "k", "valid_at", "include_hidden", "profile", "as_of"} \
        <= set(fields)
    assert {"200", "400", "401", "403", "404"} <= set(recall["responses"])


def test_server_writes_reach_the_log_and_verify(server: Served) -> None:
    _, before = post(server.url, "head", {})
    post(server.url, "remember", {"text": "Erin likes hiking", "namespace": "http-v"})
    _, after = post(server.url, "head", {})
    assert after["seq"] == before["seq"] + 1 and len(after["hash"]) == 64


def test_sigterm_closes_the_store_cleanly(tmp_path: Path) -> None:
    served = start_server(tmp_path / "store", "--no-mcp")
    _, created = post(served.url, "remember", {"text": "Frank collects stamps", "namespace": "f"})
    served.stop()
    # uvicorn shuts the application down, then lets the SIGTERM end the process as it would.
    assert served.process.returncode in (0, -15), served.log.read_text()
    lines = [json.loads(line) for line in (served.store / "ops.log").read_text().splitlines()]
    assert lines[-1]["event"] == "close"
    with eventmem.open(served.store) as mem:  # released: this process can take it over
        assert mem.get(created["memory_id"]).text == "Frank collects stamps"
        assert mem.verify().ok

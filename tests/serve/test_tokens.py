"""Bearer tokens: ``eventmem token add|list|revoke`` and the server's refusals (401, 403, and
404 for another tenant's memory), each logged in the ops log without any text."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import eventmem
from eventmem.serve.tokens import Grant, Tokens, digest
from eventmem.serve.wire import AccessDeniedError
from tests.serve.conftest import Served, add_token, eventmem_cli, post, start_server

SECRET = "the spare key is under the blue pot"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, dict[str, str]]]:
    """A server with a token file: alice read-write, bob read-only, an admin (*), and one
    revoked after the server started."""
    store = tmp_path_factory.mktemp("tokens") / "store"
    with eventmem.open(store) as mem:
        mem.remember("Alice likes tea", namespace="alice")
        mem.remember(SECRET, namespace="bob")
    tokens = {}
    tokens["alice"], _ = add_token(store, "--namespace", "alice")
    tokens["bob_ro"], _ = add_token(store, "--namespace", "bob", "--read-only")
    tokens["admin"], _ = add_token(store, "--namespace", "*", "--label", "ops")
    tokens["gone"], tokens["gone_id"] = add_token(store, "-n", "alice")
    served = start_server(store)
    try:
        yield served, tokens
    finally:
        served.stop()


def test_the_token_file_keeps_only_hashes(tmp_path: Path) -> None:
    store = tmp_path / "store"
    token, token_id = add_token(store, "--namespace", "a", "--namespace", "b", "--read-only")
    text = (store / "tokens.json").read_text()
    assert token not in text and digest(token) in text
    assert (store / "tokens.json").stat().st_mode & 0o777 == 0o600
    listed = eventmem_cli("--store", str(store), "token", "list")
    assert token_id in listed.stdout and "read " in listed.stdout and "a,b" in listed.stdout
    assert token not in listed.stdout
    assert Tokens(store / "tokens.json").grant(token) == Grant(
        token_id=token_id, namespaces=frozenset({"a", "b"}), read_only=True)
    assert eventmem_cli("--store", str(store), "token", "revoke", token_id).returncode == 0
    assert Tokens(store / "tokens.json").grant(token) is None
    assert "revoked" in eventmem_cli("--store", str(store), "token", "list").stdout
    assert eventmem_cli("--store", str(store), "token", "revoke", "tok_nope").returncode != 0
    assert eventmem_cli("--store", str(store), "token", "add").returncode == 2


def test_no_token_or_an_unknown_one_is_401(guarded: tuple[Served, dict[str, str]]) -> None:
    served, _ = guarded
    for token in (None, "emt_not-a-token"):
        status, body = post(served.url, "recall", {"query": "tea", "namespace": "alice"},
                            token=token)
        assert status == 401 and body["error"] == "AccessDeniedError"


def test_grants_decide_namespaces_and_writes(guarded: tuple[Served, dict[str, str]]) -> None:
    served, tokens = guarded
    alice, bob_ro = tokens["alice"], tokens["bob_ro"]
    status, hits = post(served.url, "recall", {"query": "tea", "namespace": "alice"}, token=alice)
    assert status == 200 and hits
    assert post(served.url, "remember", {"text": "Alice drinks green tea", "namespace": "alice"},
                token=alice)[0] == 200
    # Outside the grant: 403 for a namespace named, 404 for a memory id (as if unknown).
    status, body = post(served.url, "recall", {"query": "key", "namespace": "bob"}, token=alice)
    assert status == 403 and body["error"] == "AccessDeniedError"
    _, bob_hits = post(served.url, "recall", {"query": "key", "namespace": "bob"}, token=bob_ro)
    bob_memory = bob_hits[0]["memory_id"]
    assert post(served.url, "get", {"memory_id": bob_memory}, token=alice)[0] == 404
    assert post(served.url, "forget", {"memory_id": bob_memory}, token=alice)[0] == 404
    # Read-only: reads pass, writes are 403.
    assert post(served.url, "get", {"memory_id": bob_memory}, token=bob_ro)[0] == 200
    assert post(served.url, "remember", {"text": "x y z", "namespace": "bob"},
                token=bob_ro)[0] == 403
    assert post(served.url, "pin", {"memory_id": bob_memory}, token=bob_ro)[0] == 403
    # A batch naming another namespace in one item is refused whole.
    status, _ = post(served.url, "remember_many", {"items": [
        "fine", {"text": "sneaky", "namespace": "bob"}], "namespace": "alice"}, token=alice)
    assert status == 403
    # Store-wide operations need *.
    assert post(served.url, "stats", {}, token=alice)[0] == 403
    assert post(served.url, "verify", {}, token=tokens["admin"])[0] == 200


def test_listings_show_only_what_the_grant_covers(guarded: tuple[Served, dict[str, str]]) -> None:
    served, tokens = guarded
    assert post(served.url, "namespaces", {}, token=tokens["alice"]) == (200, ["alice"])
    assert post(served.url, "namespaces", {}, token=tokens["bob_ro"]) == (200, ["bob"])
    assert post(served.url, "namespaces", {}, token=tokens["admin"])[1] == ["alice", "bob"]
    assert post(served.url, "memories", {"namespace": "bob"}, token=tokens["alice"])[0] == 403
    status, listed = post(served.url, "memories", {"namespace": "bob"}, token=tokens["bob_ro"])
    assert status == 200 and [m["text"] for m in listed] == [SECRET]
    assert post(served.url, "memories", {"namespace": "bob", "limit": 5000},
                token=tokens["bob_ro"])[0] == 400


def test_a_revoked_token_is_refused_from_its_next_call(
        guarded: tuple[Served, dict[str, str]]) -> None:
    served, tokens = guarded
    body = {"query": "tea", "namespace": "alice"}
    assert post(served.url, "recall", body, token=tokens["gone"])[0] == 200
    done = eventmem_cli("--store", str(served.store), "token", "revoke", tokens["gone_id"])
    assert done.returncode == 0, done.stderr
    assert post(served.url, "recall", body, token=tokens["gone"])[0] == 401


def test_the_client_raises_access_denied(guarded: tuple[Served, dict[str, str]]) -> None:
    served, tokens = guarded
    with eventmem.connect(served.url, token=tokens["alice"]) as mem:
        assert mem.recall("tea", namespace="alice")
        with pytest.raises(AccessDeniedError) as refused:
            mem.recall("key", namespace="bob")
        assert refused.value.status == 403
    with pytest.raises(AccessDeniedError) as refused, eventmem.connect(served.url) as mem:
        mem.recall("tea", namespace="alice")
    assert refused.value.status == 401


def test_refusals_are_in_the_ops_log_without_text(
        guarded: tuple[Served, dict[str, str]]) -> None:
    served, tokens = guarded
    post(served.url, "recall", {"query": SECRET, "namespace": "bob"}, token=tokens["alice"])
    post(served.url, "remember", {"text": SECRET, "namespace": "bob"}, token="emt_wrong")
    log = (served.store / "ops.log").read_text()
    denied = [json.loads(line) for line in log.splitlines() if "access_denied" in line]
    assert {(d["status"], d["operation"]) for d in denied} >= {(403, "recall"), (401, "remember")}
    assert SECRET not in log and not any(t in log for t in tokens.values())


def test_an_open_server_refuses_a_non_loopback_host(tmp_path: Path) -> None:
    done = eventmem_cli("--store", str(tmp_path / "store"), "serve", "--host", "0.0.0.0",
                        "--port", "1")
    assert done.returncode == 2 and "loopback" in done.stderr
    assert re.search(r"token add", done.stderr)

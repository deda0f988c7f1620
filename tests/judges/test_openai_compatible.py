"""The OpenAI-compatible judge against a real HTTP server on 127.0.0.1 (http.server in a thread)
that answers canned chat completions: the request it sends, the answers it parses for each
role, and what it does when the endpoint fails (the rules' answer, or JudgeError)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import eventmem
from eventmem import (
    ContradictionAnswer,
    ContradictionQuestion,
    FactQuestion,
    IntentQuestion,
    Judges,
    LinkCandidate,
    LinkQuestion,
    OpenAICompatibleJudge,
)
from eventmem.config import Config
from eventmem.events import ConflictFlagged
from tests.write.logged import checked


class Endpoint:
    """A chat-completions server whose next replies the test sets: a JSON object for the
    message content, a raw content string, an HTTP status, or a delay."""

    def __init__(self) -> None:
        self.replies: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                endpoint.requests.append(json.loads(body))
                endpoint.headers.append(dict(self.headers))
                reply = endpoint.replies.pop(0) if endpoint.replies else {}
                if isinstance(reply, int):
                    self.send_response(reply)
                    self.end_headers()
                    return
                if isinstance(reply, float):
                    time.sleep(reply)
                    reply = {}
                content = reply if isinstance(reply, str) else json.dumps(reply)
                data = json.dumps({"id": "c1", "object": "chat.completion", "choices": [
                    {"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint()
    try:
        yield server
    finally:
        server.close()


QUESTION = ContradictionQuestion(new_text="Alice moved to Paris", old_text="Alice lives in Oslo")


def test_it_posts_a_chat_completion_and_parses_the_answer(endpoint):
    endpoint.replies.append({"contradicts": True, "subject": "alice", "attribute": "lives_in",
                             "old_value": "oslo", "new_value": "paris", "rule": "moved",
                             "confidence": 0.9})
    judge = OpenAICompatibleJudge(endpoint.url, model="tiny", api_key="k-123")
    answer = judge.contradiction(QUESTION)
    assert answer == ContradictionAnswer(contradicts=True, subject="alice", attribute="lives_in",
                                         old_value="oslo", new_value="paris", rule="moved",
                                         confidence=0.9)
    [request] = endpoint.requests
    assert request["model"] == "tiny" and request["temperature"] == 0
    assert request["response_format"] == {"type": "json_object"}
    system, user = request["messages"]
    assert system["role"] == "system" and "contradicts" in system["content"]
    assert json.loads(user["content"]) == {"new_text": "Alice moved to Paris",
                                           "old_text": "Alice lives in Oslo"}
    assert endpoint.headers[0]["Authorization"] == "Bearer k-123"
    assert judge.judge_id == "openai-compatible:tiny" and judge.failures == 0


def test_it_answers_every_role(endpoint):
    judge = OpenAICompatibleJudge(endpoint.url, model="tiny")
    endpoint.replies += [
        "```json\n" + json.dumps({"entities": [{"name": "Zed", "type": "person"}],
                                  "facts": [{"subject": "I", "relation": "knows",
                                             "object": "Zed", "confidence": 0.5}]}) + "\n```",
        {"links": [{"memory_id": "m1", "relation": "elaborates", "weight": 0.8}]},
        {"intent": "temporal", "confidence": 0.7},
    ]
    facts = judge.facts(FactQuestion(text="I know Zed"))
    assert [e.name for e in facts.entities] == ["Zed"] and facts.facts[0].relation == "knows"
    links = judge.links(LinkQuestion(text="t", candidates=(
        LinkCandidate(memory_id="m1", text="u", similarity=0.8),)))
    assert [(x.memory_id, x.relation, x.weight) for x in links.links] == [
        ("m1", "elaborates", 0.8)]
    assert judge.intent(IntentQuestion(query="when?", now=0)).intent == "temporal"


@pytest.mark.parametrize("reply", ["not json at all", json.dumps([1, 2]), {"contradicts": "x"},
                                   500, {"intent": "nonsense"}])
def test_a_failed_answer_falls_back_to_the_rules(endpoint, reply):
    judge = OpenAICompatibleJudge(endpoint.url, model="tiny")
    endpoint.replies.append(reply)
    if isinstance(reply, dict) and "intent" in reply:
        answer: Any = judge.intent(IntentQuestion(query="why did Bob move", now=0))
        assert answer.intent == "causal"
    else:
        answer = judge.contradiction(QUESTION)
        assert answer == eventmem.RuleContradictionJudge().contradiction(QUESTION)
        assert answer.contradicts
    assert judge.failures == 1


def test_a_timeout_raises_a_clear_error_when_asked_to(endpoint):
    judge = OpenAICompatibleJudge(endpoint.url, model="tiny", timeout=0.2, on_error="raise")
    endpoint.replies.append(1.0)
    with pytest.raises(eventmem.JudgeError, match="could not answer"):
        judge.contradiction(QUESTION)


def test_an_unreachable_endpoint_falls_back(endpoint):
    url = endpoint.url
    endpoint.close()  # nothing listens there any more
    endpoint.close = lambda: None  # type: ignore[method-assign]
    judge = OpenAICompatibleJudge(url, model="tiny", timeout=1.0)
    assert judge.contradiction(QUESTION).contradicts and judge.failures == 1


def test_only_http_urls_and_known_failure_modes(endpoint):
    with pytest.raises(ValueError, match="http"):
        OpenAICompatibleJudge("file:///etc/passwd", model="tiny")
    with pytest.raises(ValueError, match="on_error"):
        OpenAICompatibleJudge(endpoint.url, model="tiny", on_error="ignore")  # type: ignore[arg-type]


def test_an_engine_with_the_endpoint_records_its_answers(endpoint, store_path, clock):
    judge = OpenAICompatibleJudge(endpoint.url, model="tiny", on_error="raise")
    with eventmem.open(store_path, clock=clock, config=Config(sync=False),
                       judges=Judges(contradiction=judge)) as mem:
        mem.remember("Alice lives in Oslo", namespace="a")
        endpoint.replies.append({"contradicts": True, "subject": "alice", "attribute": "home",
                                 "old_value": "oslo", "new_value": "a boat",
                                 "rule": "llm_home", "confidence": 0.8})
        result = mem.remember("Alice sold her flat and lives on a boat now", namespace="a")
        assert result.action == "superseded"
        [flagged] = [e for _, e in mem.events() if isinstance(e, ConflictFlagged)]
        assert (flagged.judge, flagged.rule, flagged.confidence) == (
            "openai-compatible:tiny", "llm_home", 0.8)
        asked = len(endpoint.requests)
        checked(mem)  # audit replays the recorded answer: the endpoint is not asked again
        assert len(endpoint.requests) == asked
        # A failed endpoint fails the write (on_error="raise"); nothing is appended.
        head = mem.seq
        endpoint.replies.append(503)
        with pytest.raises(eventmem.JudgeError):
            mem.remember("Alice sold her flat and lives on a red boat now", namespace="a")
        assert mem.seq == head
        checked(mem)

"""An example judge: any OpenAI-compatible chat-completions endpoint, prompted for JSON.

One object answers all four roles (contradiction, facts, links, intent), so it can be given to
each::

    judge = OpenAICompatibleJudge("http://127.0.0.1:8000/v1", model="qwen2.5-7b-instruct")
    mem = eventmem.open(path, judges=eventmem.Judges(contradiction=judge, facts=judge,
                                                     links=judge, intent=judge))

It uses the standard library only (``urllib.request`` and ``json``): a POST to
``{base_url}/chat/completions`` with the model, a system prompt saying which JSON object to
answer with, the question as JSON in the user message, ``temperature`` 0 and
``response_format={"type": "json_object"}``. The reply's ``choices[0].message.content`` is parsed
as JSON (a fenced ```json block is accepted) and checked against the answer's Struct.

When the endpoint fails (cannot connect, times out, answers an HTTP error, or answers something
that is not the JSON asked for), ``on_error`` decides:

* ``"fallback"`` (the default): the answer of the deterministic default for that role (the
  rules), counted in :attr:`OpenAICompatibleJudge.failures`. It is recorded as this judge's
  answer, as any other: it is what the judge decided, and replay and audit follow it.
* ``"raise"``: :class:`eventmem.JudgeError`. The engine's call fails before anything is
  appended, so the store stays as it was; the caller may retry.

Either way the store stays consistent: an answer is recorded whole, or the call records nothing.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any, Literal, TypeVar

import msgspec

from eventmem.errors import JudgeError
from eventmem.policies.conflict.judge import RULES as CONTRADICTION_RULES
from eventmem.policies.conflict.judge import ContradictionAnswer, ContradictionQuestion
from eventmem.policies.extract.judge import RULES as FACT_RULES
from eventmem.policies.extract.judge import FactAnswer, FactQuestion
from eventmem.policies.links import LinkAnswer, LinkQuestion, RuleLinkJudge
from eventmem.recall.intent import RULES as INTENT_RULES
from eventmem.recall.intent import IntentAnswer, IntentQuestion
from eventmem.recall.plan import INTENTS
from eventmem.text.lazyre import lazy_re

__all__ = ["OpenAICompatibleJudge"]

Answer = TypeVar("Answer", bound=msgspec.Struct)

_CONTRADICTION = """You decide whether a NEW statement contradicts an EXISTING memory about the
same subject (both cannot be true at the same time). Answer with one JSON object:
{"contradicts": true|false, "subject": "...", "attribute": "...", "old_value": "...",
"new_value": "...", "rule": "a_short_snake_case_reason", "confidence": 0.0-1.0}.
When they do not contradict, answer {"contradicts": false}."""

_FACTS = """You read the facts a chat turn states. Answer with one JSON object:
{"entities": [{"name": "as written", "type": "person|organization|place|product|concept|event|
other"}], "facts": [{"subject": "a name, or I for the speaker", "relation": "snake_case verb",
"object": "a name", "confidence": 0.0-1.0}]}. Only facts the text states; names as written."""

_LINKS = """You decide how a NEW memory relates to each CANDIDATE memory. For each candidate it
relates to, give {"memory_id": "...", "relation": "causes|elaborates|related_to",
"weight": 0.0-1.0}: causes when the new text gives a cause or effect of the candidate,
elaborates when it adds detail to it, related_to otherwise. Answer with one JSON object:
{"links": [...]}; leave out candidates it does not relate to."""

_INTENT = f"""You classify what a memory-search question asks. Answer with one JSON object:
{{"intent": one of {", ".join(INTENTS)}, "confidence": 0.0-1.0}}. temporal: when/how long;
causal: why; entity: who someone is; preference: likes and favourites; todo: open tasks;
factual: other questions of fact; general: anything else."""

_FENCE = lazy_re(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


class OpenAICompatibleJudge:
    """A contradiction judge, fact extractor, link judge and intent classifier backed by an
    OpenAI-compatible chat-completions endpoint (see the module docstring)."""

    def __init__(self, base_url: str, *, model: str, api_key: str | None = None,
                 timeout: float = 30.0, on_error: Literal["fallback", "raise"] = "fallback",
                 judge_id: str | None = None) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        if on_error not in ("fallback", "raise"):
            raise ValueError(f"on_error must be 'fallback' or 'raise', got {on_error!r}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.timeout, self.on_error = model, timeout, on_error
        self._api_key = api_key
        # Recorded with every answer: the endpoint's model names what decided.
        self.judge_id = judge_id or f"openai-compatible:{model}"
        self.failures = 0  # answers that fell back to the rules

    # -- the four roles -----------------------------------------------------------------------

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        """Whether the new text contradicts the old (the rules' answer on failure)."""
        return self._ask(_CONTRADICTION, question, ContradictionAnswer,
                         lambda: CONTRADICTION_RULES.contradiction(question))

    def facts(self, question: FactQuestion) -> FactAnswer:
        """The entities and typed facts of a text (the rules' on failure)."""
        return self._ask(_FACTS, question, FactAnswer, lambda: FACT_RULES.facts(question))

    def links(self, question: LinkQuestion) -> LinkAnswer:
        """The links of a new memory to its candidates (the rules', at the default
        ``elaborates_similarity``, on failure)."""
        return self._ask(_LINKS, question, LinkAnswer, lambda: RuleLinkJudge().links(question))

    def intent(self, question: IntentQuestion) -> IntentAnswer:
        """The intent of a query (the rules' on failure, or when it names no known intent)."""
        answer = self._ask(_INTENT, question, IntentAnswer,
                           lambda: INTENT_RULES.intent(question))
        if answer.intent not in INTENTS:
            return self._failed(f"unknown intent {answer.intent!r}",
                                lambda: INTENT_RULES.intent(question))
        return answer

    # -- the endpoint ---------------------------------------------------------------------------

    def _ask(self, system: str, question: msgspec.Struct, answer: type[Answer],
             fallback: Any) -> Answer:
        try:
            content = self._complete(system, msgspec.json.encode(question).decode())
            return msgspec.convert(_parse(content), answer, strict=False)
        except (OSError, urllib.error.URLError, ValueError, KeyError, IndexError, TypeError,
                msgspec.ValidationError) as exc:  # timeouts are OSErrors
            return self._failed(f"{type(exc).__name__}: {exc}", fallback)

    def _failed(self, why: str, fallback: Any) -> Any:
        if self.on_error == "raise":
            raise JudgeError(f"the judge at {self.url} ({self.model}) could not answer: {why}; "
                             "check the endpoint, or use on_error='fallback'")
        self.failures += 1
        return fallback()

    def _complete(self, system: str, user: str) -> str:
        """One chat completion: the reply's message content."""
        body = json.dumps({
            "model": self.model, "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "system", "content": system},
                         {"role": "user", "content": user}],
        }).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            reply = json.loads(response.read().decode("utf-8"))
        content = reply["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("the reply's message content is not text")
        return content


def _parse(content: str) -> Any:
    """The JSON object of a reply (inside a ```json fence, if the model wrote one)."""
    fenced = _FENCE.match(content)
    found = json.loads(fenced.group(1) if fenced else content)
    if not isinstance(found, dict):
        raise ValueError("the reply is not a JSON object")
    return found

"""The context builder: recall hits as prompt text, detail gated by confidence, within a budget.

Strong hits go in full with their metadata, middling ones as a one-line summary, weak ones not
at all: a weak memory in a prompt is more often a distraction than a help. Confidence is the
hit's ``relevance`` signal (fused rank evidence over the best a memory could get: 1.0 is first
in every channel); the budget counts tokens with a deterministic estimate (about four characters
a token, the usual rule for English under BPE tokenizers), so the same hits always give the same
text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from eventmem.errors import InvalidInputError
from eventmem.results import Hit

__all__ = ["build_context", "estimate_tokens", "summary_line"]

SUMMARY_CHARS = 120


def estimate_tokens(text: str) -> int:
    """A deterministic token estimate: one token per four characters, at least one per line."""
    return _tokens(len(text), text.count("\n"))


def _tokens(chars: int, breaks: int) -> int:
    """The estimate of a text of ``chars`` characters holding ``breaks`` line breaks."""
    return max(1, math.ceil(chars / 4), breaks + 1)


def summary_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    """One line standing for ``text``: its first sentence, cut at a word to ``limit`` chars."""
    flat = " ".join(text.split())
    for stop in (". ", "! ", "? "):
        cut = flat.find(stop)
        if 0 < cut < limit:
            flat = flat[: cut + 1]
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1].rsplit(" ", 1)[0] or flat[: limit - 1]
    return head + "…"


def _confidence(hit: Hit) -> float:
    return hit.signals.get("relevance", hit.score)


def _full(hit: Hit, number: int) -> str:
    return (f"[{number}] {hit.text}\n    ({hit.kind}, recorded {hit.created_at.date().isoformat()}"
            f", relevance {_confidence(hit):.2f}, id {hit.memory_id})")


def build_context(
    hits: Sequence[Hit], *, budget_tokens: int = 1_000, strong: float = 0.75, weak: float = 0.45
) -> str:
    """Prompt text for ``hits`` (best first): a hit whose confidence is at least ``strong`` in
    full with kind, date, relevance and id; one below ``weak`` left out; the rest as a one-line
    summary. Entries go in hit order while the estimated tokens of the whole text (the line
    breaks between entries included) stay within ``budget_tokens``; a strong hit too long for
    what is left goes in as its summary instead, and a summary line already given is not given
    again. Empty when nothing qualifies."""
    if budget_tokens < 1:
        raise InvalidInputError("budget_tokens must be positive")
    if weak > strong:
        raise InvalidInputError("weak must not exceed strong")
    lines: list[str] = []
    given: set[str] = set()
    # The estimate of the text so far, kept as its parts: characters and line breaks.
    chars = breaks = 0
    number = 0
    for hit in hits:
        confidence = _confidence(hit)
        if hit.text is None or confidence < weak:
            continue
        options = []
        if confidence >= strong:
            options.append(_full(hit, number + 1))
        summary = f"- {summary_line(hit.text)}"
        if summary not in given:  # two memories opening alike: the line says nothing new
            options.append(summary)
        for option in options:
            joint = 1 if lines else 0  # the line break that joins it to the text so far
            more_chars = chars + joint + len(option)
            more_breaks = breaks + joint + option.count("\n")
            if _tokens(more_chars, more_breaks) <= budget_tokens:
                lines.append(option)
                given.add(option)
                chars, breaks = more_chars, more_breaks
                number += option.startswith("[")
                break
    return "\n".join(lines)

"""Deterministic write-time synthesis: one text that keeps every fact of two.

A near duplicate that adds information is merged into its neighbour by appending the sentences
of the new text that carry a content word (a stem that is not a stopword) the old text lacks. The
old text is kept whole, so nothing it said is lost; sentences that only restate it are dropped.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.text.normalize import STOPWORDS, stem, tokenize

MERGE_VERSION: Final = "merge-1"

# A sentence ends at . ! or ? followed by space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, empty ones left out."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def content_terms(text: str) -> frozenset[str]:
    """The stems of the words that carry content (stopwords left out)."""
    return frozenset(stem(token) for token in tokenize(text) if token not in STOPWORDS)


def new_sentences(old: str, new: str) -> list[str]:
    """The sentences of ``new`` that say something ``old`` does not, in order."""
    known = set(content_terms(old))
    added = []
    for sentence in sentences(new):
        terms = content_terms(sentence)
        if terms - known:
            added.append(sentence)
            known |= terms  # a later sentence repeating this one adds nothing more
    return added


def adds_information(old: str, new: str) -> bool:
    """Whether ``new`` carries a content word that ``old`` lacks."""
    return bool(content_terms(new) - content_terms(old))


def merged_text(old: str, new: str) -> str:
    """``old`` followed by the sentences of ``new`` that add to it."""
    added = new_sentences(old, new)
    if not added:
        return old
    head = old.rstrip()
    if head and head[-1] not in ".!?":
        head += "."
    return " ".join([head, *added])


def conflict_text(existing: str, new: str) -> str:
    """One text for both sides of a conflict resolved by ``merge``: the new claim, with what was
    held before kept as its history."""
    return f"{new.rstrip()} (previously: {existing.strip()})"

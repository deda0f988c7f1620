"""Deterministic write-time synthesis: one text that keeps every fact of two.

A near duplicate that adds information is merged into its neighbour as one text: the new text
when it says everything the old one did (a content word is a stem that is not a stopword), else
the old text followed by what the new one adds: its sentences of new words, and of a sentence that
mostly restates the old text only the clauses that add a word. Nothing either said is lost, and
nothing is said twice.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import STOPWORDS, stem, tokenize

# merge-1 appended every sentence that adds a word (appended_text); merge-2 (gate-4 on) never
# says a thing twice (merged_text).
MERGE_VERSION: Final = "merge-2"

# A sentence ends at . ! or ? followed by space, or at a line break.
_SENTENCE_END = lazy_re(r"(?<=[.!?])\s+|\n+")


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


def appended_text(old: str, new: str) -> str:
    """``old`` followed by the sentences of ``new`` that add to it (how gate-2 and gate-3
    merged, kept so that their logs audit as decided)."""
    added = new_sentences(old, new)
    if not added:
        return old
    return _joined(old, added)


def merged_text(old: str, new: str) -> str:
    """One text that says what ``old`` and ``new`` say, without saying anything twice.

    When ``new`` holds every content word of ``old`` it says all of it: ``new`` alone ("works at
    Zalando in Berlin" + "works at Zalando, based in Berlin" is the second). Otherwise ``old``
    is followed by what ``new`` adds: a sentence of new words whole, and of a sentence that
    mostly restates ``old`` only its clauses that add a word (a restated sentence appended whole
    reads as the same sentence twice)."""
    known = set(content_terms(old))
    if known <= content_terms(new):
        return new
    added = []
    for sentence in sentences(new):
        terms = content_terms(sentence)
        fresh = terms - known
        if not fresh:
            continue
        if len(fresh) * 2 > len(terms):  # mostly new: the sentence as it is
            added.append(sentence)
        else:
            added += [_sentence_case(c) for c in _clauses(sentence)
                      if content_terms(c) - known]
        known |= terms
    return _joined(old, added) if added else old


# A clause ends at a comma, semicolon or dash; a leading conjunction (a stopword: no content is
# lost) goes with the split.
_CLAUSE_END = lazy_re(r"\s*[,;]\s*|\s+[-–—]\s+")
_CONJUNCTION = lazy_re(r"^(?:and|but|so|while|also)\s+", re.IGNORECASE)


def _clauses(sentence: str) -> list[str]:
    parts = [part.strip().rstrip(".!?").strip() for part in _CLAUSE_END.split(sentence)]
    return [_CONJUNCTION.sub("", part) for part in parts if part]


def _sentence_case(clause: str) -> str:
    clause = clause[:1].upper() + clause[1:]
    return clause if clause[-1:] in (".", "!", "?") else clause + "."


def _joined(old: str, added: list[str]) -> str:
    head = old.rstrip()
    if head and head[-1] not in ".!?":
        head += "."
    return " ".join([head, *added])


def conflict_text(existing: str, new: str) -> str:
    """One text for both sides of a conflict resolved by ``merge``: the new claim, with what was
    held before kept as its history."""
    return f"{new.rstrip()} (previously: {existing.strip()})"

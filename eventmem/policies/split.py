"""A compound statement about different people or things, split into its atomic clauses.

"Alice moved to Paris and Bob started a job at Google." states two facts about two entities;
stored as one memory, a question about Bob finds Alice's move with it, and a change to one fact
(Alice moves on) supersedes both. ``clauses(text)`` returns the clauses such a text is made of,
or None when it is not one.

Decisions a reader might question:

* Only coordinated clauses ("and", "but", "while", "whereas", ";", ", and") are split, and only
  when every clause opens with its own named subject (a capitalised name, not a pronoun, not
  "I") followed by a verb, and the subjects differ. Anything else is kept whole: a list inside
  one clause ("I like tea and coffee", "Alice and Bob moved"), "between X and Y", a second part
  without a subject ("Bob moved to Paris and started a job"), one subject twice.
* A verb is a lower-case word after the name that is a common auxiliary or irregular past, or
  ends like a past or third-person form (-ed, -s); "Alice and Bob" has none after "Alice".
* The clauses are the text's own words, trimmed; the final punctuation goes with each.

Pure and deterministic; no model.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.text.lazyre import lazy_re

__all__ = ["POLICY_VERSION", "clauses"]

POLICY_VERSION: Final = "split-1"

_JOINER: Final = lazy_re(r"\s*(?:;\s*|,?\s+(?:and|but|while|whereas)\s+)(?=[A-Z])")
_NAME: Final = r"[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|of|de|van|von|da))*"
_NOT_NAMES: Final = frozenset("""
    i i'm i've i'd i'll he she they we it you this that these those there then the a an my his
    her their our your its today yesterday tomorrow now also so but and or if when while
    monday tuesday wednesday thursday friday saturday sunday
    """.split())  # noqa: SIM905 - a word list reads better as prose
_AUX: Final = frozenset("""
    is was are were has had have will would can could should must may might did does do got
    went took made met saw began became bought sold won lost left ran flew ate drove wrote
    found gave told heard spent grew came kept brought built taught caught thought said
    """.split())  # noqa: SIM905
_CLAUSE: Final = lazy_re(rf"^(?P<name>{_NAME})\s+(?:just\s+|also\s+|recently\s+|now\s+|"
                            rf"finally\s+)?(?P<verb>[a-z][a-z'’]*)\b")
_BETWEEN: Final = lazy_re(r"\bbetween\b", re.I)


def _subject(clause: str) -> str | None:
    """The named subject of a clause that opens with a name and a verb, or None."""
    m = _CLAUSE.match(clause)
    if m is None:
        return None
    name, verb = m["name"], m["verb"]
    if name.split()[0].lower() in _NOT_NAMES:
        return None
    if not (verb in _AUX or (verb.endswith(("ed", "s")) and not verb.endswith("ss"))):
        return None
    return " ".join(name.split()).lower()


def clauses(text: str) -> tuple[str, ...] | None:
    """The clauses of ``text`` when it joins complete clauses about different named subjects
    (see the module docstring), else None."""
    stripped = text.strip()
    if not stripped or "\n" in stripped or _BETWEEN.search(stripped):
        return None
    end = stripped[-1] if stripped[-1] in ".!" else ""
    body = stripped[:-1] if end else stripped
    if re.search(r"[.!?]\s", body):  # one sentence only: several are the caller's to split
        return None
    parts = [p.strip(" ,") for p in _JOINER.split(body)]
    if len(parts) < 2 or any(not p for p in parts):
        return None
    subjects = [_subject(p) for p in parts]
    if any(s is None for s in subjects) or len(set(subjects)) != len(subjects):
        return None
    return tuple(p + end for p in parts)

"""Simple coreference within one text: a pronoun that opens a sentence is the person last named.

"Bob moved to Paris. He works at Google now." states that Bob works at Google; the extractor's
patterns need a name as the subject, so :func:`resolved` gives them a reading of the text with
each sentence-opening third-person pronoun ("He", "She", "They"; "His", "Her", "Their" as
possessives) replaced by the person named last before it: "Bob moved to Paris. Bob works at
Google now." The reading is only what the relation patterns run on; the stored text is never
rewritten, and the relations it yields are stored with the text's extraction (content, erased
with it).

Decisions a reader might question:

* Only a pronoun that opens a sentence (or a clause after "and"/"but"/"so" and a comma), where it
  is the subject or its possessive: mid-sentence object pronouns ("Alice met Bob and likes
  him") are ambiguous without a parser and are left alone.
* The antecedent is the last person named before the pronoun, never the speaker of a labelled
  line ("Caroline: ... He ..." never means Caroline, who is "I" there), never "I/me/my" (the
  user). No gender is guessed: a name carries none without a model.
* No person named before it: nothing is resolved here; :func:`unresolved` tells the write path
  to look for the person its session named last (:func:`last_person` of each earlier memory),
  and it records what it found as evidence on the memory's event (``coref_of``).

Pure and deterministic.
"""

from __future__ import annotations

from typing import Final

from eventmem.text.lazyre import lazy_re

__all__ = ["POLICY_VERSION", "PRONOUN", "last_person", "resolved", "unresolved"]

# The write path's resolution of a leading pronoun to the session's last named person.
POLICY_VERSION: Final = "coref-1"

# A third-person pronoun opening a sentence or a coordinated clause. Group "p" is the pronoun.
PRONOUN: Final = lazy_re(
    r"(?:^|(?<=[.!?…]\s)|(?<=[.!?…]\s\s)|(?<=\n)|(?<=,\sand\s)|(?<=,\sbut\s)|(?<=,\sso\s)"
    r"|(?<=\sand\s)|(?<=\sbut\s))(?P<p>He|She|They|His|Her|Their|he|she|they|his|her|their)"
    r"(?=\s+[a-z])")
_POSSESSIVE: Final = frozenset({"his", "her", "their"})


def resolved(text: str, persons: list[tuple[int, int]], speaker_end: int = 0) -> str | None:
    """``text`` with each sentence-opening pronoun after a named person replaced by that name
    (``persons``: the spans of person names in ``text``, in order; a span ending at or before
    ``speaker_end`` is the line's speaker label and never an antecedent), or None when no
    pronoun was resolved."""
    if not persons:
        return None
    out: list[str] = []
    pos = 0
    for m in PRONOUN.finditer(text):
        start = m.start("p")
        before = [span for span in persons if span[1] <= start and span[1] > speaker_end]
        if not before:
            continue
        a, b = before[-1]
        name = text[a:b]
        word = m.group("p").lower()
        out += (text[pos:start], f"{name}'s" if word in _POSSESSIVE else name)
        pos = m.end("p")
    if not out:
        return None
    out.append(text[pos:])
    return "".join(out)


def unresolved(text: str, persons: list[tuple[int, int]], speaker_end: int = 0) -> bool:
    """Whether ``text`` has a sentence-opening pronoun with no person named before it (the
    speaker label aside): one that only an earlier turn can resolve."""
    return any(not any(speaker_end < b <= m.start("p") for _, b in persons)
               for m in PRONOUN.finditer(text))


def last_person(persons: list[tuple[tuple[int, int], str]], speaker_end: int = 0) -> str | None:
    """The key of the person a text names last, its speaker aside, or None."""
    named = [key for (_, b), key in persons if b > speaker_end]
    return named[-1] if named else None

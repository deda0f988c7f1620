"""What a correction takes back: the value a speaker says was wrong.

People correct what they just said in a handful of ways: a marker that takes it back ("Sorry,
I misspoke", "No wait", "Scratch that", "Correction:", "I got that wrong") and, often, the wrong
value named beside the right one ("it's Friday, not Monday", "I meant Denver, not Bristol",
"not Monday but Friday"). The right value alone may say nothing of what it corrects ("I meant
Denver" has no verb of residence), but the wrong one names the memory it corrects: the one just
said that holds it. :func:`taken_back` reads that value; :func:`takes_back` whether a text opens
as a correction at all. The write gate (gate-12) supersedes, among the namespace's latest
memories, the newest holding the value taken back.

Pure and deterministic: regexes over the text, no model.
"""

from __future__ import annotations

import re
from typing import Final

from eventmem.policies import facts
from eventmem.text.lazyre import lazy_re

# Words that open a correction of what was just said (English, in any case).
_MARKER: Final = lazy_re(
    r"^\s*(?:sorry|oops|whoops|no wait|wait|actually|correction|scratch that|my bad|my mistake|"
    r"i misspoke|i meant|i got (?:that|it) wrong|let me correct|to correct|i was wrong|"
    r"that's wrong|that was wrong|sorry,? i meant)\b"
    r"|\b(?:i misspoke|scratch that|i got (?:that|it) wrong|i meant)\b", re.IGNORECASE)
# From the fact reader's sixth edition (gate-16), the marker may follow an interjection ("Oh
# wait, it's Initech, not Globex", "Hmm, actually I live in Braga").
_INTERJECTION_6: Final = lazy_re(r"^\s*(?:oh|ah|ahh|hmm+|um+|uh|erm|ugh)\b[,!.]?\s*",
                                 re.IGNORECASE)
_WAIT_VERB: Final = lazy_re(r"\s*wait\s+(?!,)(?!.*\b(?:i misspoke|scratch that|i meant)\b)",
                            re.IGNORECASE)
# "..., not X." / "... not X!" at the end of a sentence, and "not X but Y": X is taken back. X is
# at most four words, without the article or preposition before it; ``first`` and ``rest`` are
# the characters its first word opens with and goes on with, by edition.
_BEFORE_VALUE: Final = r"(?:the\s+|a\s+|an\s+|on\s+|at\s+|in\s+|to\s+)?"


def _taking_back(first: str, rest: str, more: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The "not X but" and "..., not X." patterns for a value of words ``first`` + ``rest``
    (and ``more``, the words after its first)."""
    value = rf"({first}{rest}*(?:\s+{more}){{0,3}})"
    return (lazy_re(rf"\bnot\s+{_BEFORE_VALUE}{value}\s*,?\s+but\b"),
            lazy_re(rf",?\s+not\s+{_BEFORE_VALUE}{value}\s*(?:[.!?;]|$)"))


_FIRST_EDITION: Final = _taking_back("[A-Za-z0-9]", r"[\w'-]", r"[A-Za-z0-9][\w'-]*")
# From the fact reader's fourth edition (gate-14), a value's word may open with any letter
# ("not Łódź") and hold "&" and abbreviations ("not Ironwood & Co."); a full stop it ends
# with is left out (it ends the sentence, or "Co." is still found as "Co").
_FOURTH_EDITION: Final = _taking_back(r"[^\W_]", r"[\w'.&-]", r"(?:&|[^\W_][\w'.&-]*)")
# From the fifth edition (gate-15), a time of day with its minutes is one value ("I meant 9:10am,
# not 13:50"): the fourth read none there, and left the slip standing beside its correction.
_FIFTH_EDITION: Final = _taking_back(r"[^\W_]", r"[\w'.&:-]", r"(?:&|[^\W_][\w'.&:-]*)")
# A taken-back "value" that is no value: "not really", "not sure", "not yet"...
_NOT_VALUES: Final = frozenset("""
    really sure yet anymore any more quite exactly always never now today that this it so too
    very much bad good great
    """.split())  # noqa: SIM905 - a word list reads better as prose


def takes_back(text: str, edition: int = facts.EDITION) -> bool:
    """Whether ``text`` says it corrects what was said ("Sorry, I misspoke...", "No wait, ...",
    "... scratch that ..."; from the sixth ``edition``, after an interjection: "Oh wait, ...").

    >>> takes_back("No wait, I meant Denver, not Bristol.")
    True
    >>> takes_back("Wait for me at the station.")
    False
    """
    if edition >= facts.EDITION_6:
        text = _INTERJECTION_6.sub("", text, count=1)
    if _MARKER.search(text) is None:
        return False
    # "Wait" opens a correction only as an interjection ("Wait, ..."), not as a verb.
    return _WAIT_VERB.match(text) is None


def taken_back(text: str, edition: int = facts.EDITION) -> str | None:
    """The value ``text`` says was wrong, as written ("Monday" of "it's Friday, not Monday"),
    or None when it names none. ``edition``: the fact reader's edition the gate reads with;
    before the fourth, a value's words open with an ASCII letter or a digit; before the fifth,
    a time's minutes are no part of it.

    >>> taken_back("Actually, scratch that: it's Friday, not Monday.")
    'Monday'
    >>> taken_back("Correction: not Monday but Friday.")
    'Monday'
    >>> taken_back("I'm not sure.") is None
    True
    """
    fourth = edition >= facts.EDITION_4
    patterns = _FIFTH_EDITION if edition >= facts.EDITION_5 else \
        _FOURTH_EDITION if fourth else _FIRST_EDITION
    for pattern in patterns:
        match = pattern.search(text)
        if match is not None:
            value = match.group(1).strip()
            if fourth:
                value = value.rstrip(".")
            if value.split()[0].lower() not in _NOT_VALUES:
                return value
    return None


def holds(text: str, value: str) -> bool:
    """Whether ``text`` holds ``value`` as whole words, in any case."""
    # A pattern per value, compiled by the re module's own cache (values are few).
    return re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", text, re.IGNORECASE) is not None

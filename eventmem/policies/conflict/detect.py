"""Does a new memory text contradict an existing one? Rules over parsed claims, no model.

``claims(text)`` parses a text once into comparable claims (subject, attribute, value, polarity,
change marker); ``detect(new, old)`` compares two parsed texts and returns the first
:class:`Contradiction` or ``None``. The write gate calls ``detect`` against a few neighbours of
each new text, so parsing is a token walk and comparing is tuple equality.

How a claim is read, per clause (clauses end at punctuation and at "and/but/so/because/when/if..."):

* Subject: "I" -> ``self``, "we" -> ``we``, a capitalized name of one or two words ("Alice",
  "Bob Lee"), a possessive ("my birthday", "Alice's car": the owner is the subject and the noun
  names the attribute), "my/Alice's" + a one-per-person relation ("my wife" -> ``self's wife``),
  "the" + noun for events ("the meeting"). Pronouns other than I/we are not resolved: no claim.
  A clause after "and/but/then" without its own subject inherits the previous one. A transcript
  line "Alice: I live in Oslo" speaks for Alice: first person becomes ``alice`` (``we:alice``).
* Tense: present tense, "have lived/worked", "am living", and the change verbs (moved, switched,
  joined, turned) count; past ("I lived"), modals ("I'd love to") and questions (a sentence ending
  in "?", or starting with "does/do/is...") give no claim. Clauses opened by if/when/before/after/
  until/unless/whether are hypothetical or past framing: no claim.
* Attributes are single-valued (``lives_in``, ``works_at``, ``from``, ``born_in``, ``age``,
  ``count:<noun>``, ``date:<noun>``, ``name``, ``favorite:<x>``, ``color:<noun>``,
  ``marital_status``, ``status``) or boolean per object (``likes:<x>``, ``drinks:<x>``,
  ``uses:<x>``, ``is:<state>``...). Places and employers must be specific: "a new city", "my
  place", "the area" and pronouns give no claim, and "joined" needs a capitalized organization.

Rules, in the order a pair is reported (same subject and attribute required):

* ``attribute_value``: two different values of a single-valued attribute (values match when one's
  words include the other's: "paris" = "paris france"; dates without a year match any year).
* ``negation``: the same value asserted and denied ("likes:coffee" true vs false; "works_at acme"
  vs "not acme"); "never", "not ... anymore", "used to", "hate" (the negation of "like") count.
* ``change_marker``: either of the above when the NEW text carries a change marker ("moved to",
  "switched to", "no longer", "now"), and "switched to Y" against a different "uses X". Only this
  rule is asymmetric; the other two are symmetric in old and new.

``claims`` drops every claim that conflicts with another of the same text, so a text never
contradicts itself. Pure and deterministic: no clock, no locale, no set iteration order.

The words, the value readers and the clause grammar are in
:mod:`eventmem.policies.conflict.clauses`; this module cuts a text into clauses and compares
claims.
"""

from __future__ import annotations

import unicodedata
from typing import Final, NamedTuple

from eventmem.policies.conflict.clauses import (
    APOSTROPHES,
    CUTS,
    FRAMED,
    INHERIT,
    NOT_NAME,
    SENTENCE_END,
    TOKEN,
    Claim,
    read_clause,
    read_day,
)

__all__ = ["CONFLICT_VERSION", "Claims", "Contradiction", "claims", "detect", "detect_texts"]

CONFLICT_VERSION: Final = "conflict-1"


class Contradiction(NamedTuple):
    """A contradiction found between an existing text (old) and a new one."""

    subject: str
    attribute: str
    old_value: str
    new_value: str
    rule: str


class Claims(NamedTuple):
    """The parsed claims of one text. Opaque: build with :func:`claims`, pass to :func:`detect`."""

    items: tuple[Claim, ...] = ()


def _same(family: str, a: str, b: str) -> bool:
    """Whether two values of a single-valued attribute agree (symmetric)."""
    if a == b:
        return True
    if family.startswith("date:"):
        if a.isalpha() != b.isalpha():
            return True  # a weekday and a calendar date cannot be compared
        return len(a) != len(b) and a[-5:] == b[-5:]  # "05-03" matches "2024-05-03"
    if family.startswith("count:") and ">0" in (a, b):
        return "0" not in (a, b)
    if family in ("age", "status", "marital_status") or family.startswith("count:"):
        return False
    wa, wb = a.split(), b.split()  # "paris" agrees with "paris france"
    return set(wa).issubset(wb) or set(wb).issubset(wa)


def _conflict(new: Claim, old: Claim) -> Contradiction | None:
    if new.subject != old.subject:
        return None
    if new.family != old.family:
        if (new.marker == "switched" and new.positive and old.positive
                and new.family.startswith("uses:") and old.family.startswith("uses:")):  # fmt: skip
            return Contradiction(new.subject, "uses", old.family[5:], new.family[5:],
                                 "change_marker")  # fmt: skip
        return None
    if new.single:
        same = _same(new.family, new.value, old.value)
        if new.positive and old.positive and not same:
            rule = "attribute_value"
        elif new.positive != old.positive and same:
            rule = "negation"
        else:
            return None
        old_value = old.value if old.positive else "not " + old.value
        new_value = new.value if new.positive else "not " + new.value
    elif new.positive != old.positive:
        rule = "negation"
        old_value, new_value = str(old.positive).lower(), str(new.positive).lower()
    else:
        return None
    return Contradiction(new.subject, new.family, old_value, new_value,
                         "change_marker" if new.marker else rule)  # fmt: skip


_MAX_CLAIMS = 64  # bounds the self-consistency pass on pathological inputs


def claims(text: str) -> Claims:
    """Parse ``text`` into its comparable claims (see the module docstring for the grammar).

    Claims that contradict another claim of the same text are dropped, so
    ``detect(claims(t), claims(t))`` is always ``None``. Never raises on a ``str``.
    """
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(APOSTROPHES)
    orig = TOKEN.findall(text)
    lo = " ".join(orig).lower().split()  # one C pass; no token holds a space, casing adds none
    n = len(lo)
    if n != len(orig):
        lo = [w.lower() for w in orig]
    lo.append(".")  # the text ends a sentence
    found: list[Claim] = []
    sentence: list[Claim] = []
    start, subject, framed, inherit = 0, "", False, False
    for k in [k for k, w in enumerate(lo) if w in CUTS]:
        w = lo[k]
        if w == "," and 0 < k < n - 1 and lo[k - 1][0].isdigit() and read_day(lo[k + 1]) is None:
            continue  # "May 3, 2024": the year belongs to the date
        if start < k and not framed:
            subject = read_clause(lo, orig, start, k, subject if inherit else "", sentence)
        elif framed:
            subject = ""
        inherit, framed, start = w in INHERIT, w in FRAMED, k + 1
        if w in SENTENCE_END:
            if w != "?":
                found.extend(sentence)
            sentence.clear()
            subject = ""
    if not found:
        return Claims()
    speaker = _speaker(lo, orig)
    if speaker:
        found = [c._replace(subject=_as_speaker(c.subject, speaker)) for c in found]
    return Claims(_consistent(found[:_MAX_CLAIMS]))


def _speaker(lo: list[str], orig: list[str]) -> str:
    """The name in a leading "Name:" or "First Last:" (a chat transcript line), else ""."""
    for colon in (1, 2):
        if len(lo) > colon and lo[colon] == ":" and all(
            orig[k][0].isupper() and lo[k].isalpha() and lo[k] not in NOT_NAME
            for k in range(colon)
        ):
            return " ".join(lo[:colon])
    return ""


def _as_speaker(subject: str, speaker: str) -> str:
    """First person of a "Name:" line is Name: "self" -> "alice", "self's wife" -> "alice's
    wife", and "we" -> "we:alice" (Alice's group, not another speaker's)."""
    if subject == "self":
        return speaker
    if subject.startswith("self's "):
        return speaker + subject[4:]
    return f"we:{speaker}" if subject == "we" else subject


def _consistent(found: list[Claim]) -> tuple[Claim, ...]:
    """The claims without duplicates and without any that conflict with another of the list."""
    unique = list(dict.fromkeys(found))
    if len(unique) == 1:
        return (unique[0],)
    bad: set[int] = set()
    for x, a in enumerate(unique):
        for y in range(x + 1, len(unique)):
            b = unique[y]
            if a.subject == b.subject and (_conflict(a, b) or _conflict(b, a)):
                bad.update((x, y))
    return tuple(c for k, c in enumerate(unique) if k not in bad)


def detect(new: Claims, old: Claims) -> Contradiction | None:
    """The first contradiction of an existing text's claims (``old``) by a new text's (``new``),
    in the order the claims appear in the new text, then the old; ``None`` when they agree."""
    if not new.items or not old.items:
        return None
    for a in new.items:
        for b in old.items:
            if a.subject == b.subject and (found := _conflict(a, b)) is not None:
                return found
    return None


def detect_texts(new_text: str, old_text: str) -> Contradiction | None:
    """:func:`detect` on two raw texts (parses both; callers comparing many pairs should cache
    :func:`claims` per text).

    >>> found = detect_texts("Alice moved to Paris", "Alice lives in Berlin")
    >>> found.subject, found.attribute, found.old_value, found.new_value, found.rule
    ('alice', 'lives_in', 'berlin', 'paris', 'change_marker')
    """
    return detect(claims(new_text), claims(old_text))

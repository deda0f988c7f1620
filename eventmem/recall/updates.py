"""The latest word on a topic first: for a question about the present that names no attribute
the fact reader knows, the top hit's newer update goes above it.

The fact reader (:mod:`eventmem.policies.facts`) knows a dozen attributes: a home, an employer,
a car. People also tell a memory about a gym, a phone number, a rent, a language they are
learning, and change them: "My gym is PureGym", then "I switched gyms, I go to Anytime Fitness
now". Asked "Which gym do I go to?", relevance ranks the first on top: it shares more words with
the question. A careful listener takes the second as an update of the first, because it speaks
of the same thing (a word they share that is not whose it is: "gym"), of the same person, later,
and says that something changed ("switched", "now", "instead", "no longer").

That is the rule, and all of it is required. It runs only for a question in the present tense
at no valid time (a past question asks for the old value; at a valid time eligibility already
keeps what was true then), and only when the fact reader reads no attribute in the question
(then :func:`eventmem.recall.facts.asked_first` orders by the attribute it knows). The update is
found by a BM25 search of the top hit's own words, since it need not share a word with the
question ("What language am I learning?" -> "I gave up on Spanish and started Japanese
instead"). Nothing is hidden or lost: the older hit stays, just below its update.

For an attribute the reader does know, a statement may restate the old value's frame with a new
value in words the reader takes no attribute from: "I work at Globex", then "I'm at Initech
now" (alone, it could be a visit). :func:`restates` tells such a statement, and
:func:`eventmem.recall.facts.asked_first` counts it as stating the attribute.

Deterministic: the order depends only on the hits, the namespace's index, records and texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Final

from eventmem.policies import facts
from eventmem.recall import channels as ch
from eventmem.recall.plan import QueryPlan
from eventmem.text.lazyre import lazy_re
from eventmem.text.normalize import STOPWORDS, tokenize
from projections import Projections
from projections.state import MemoryRecord

Candidate = tuple[str, float, dict[str, float]]
Read = Callable[[Sequence[str]], list[str | None]]  # memory ids -> their texts

# How many of the top hit's BM25 neighbours are read for its update; how many updates may follow
# one another to the top ("moved to Sintra", then "we're in Cascais now").
_DEPTH: Final = 20
_CHAIN: Final = 3

# Words that say something changed. A word that only dates a statement ("yesterday", "in
# March") says nothing of a change, nor does "now that" (a reason, not a new state), nor a
# verb in "-ing" ("the moving van", "I'm starting to think").
_CHANGE: Final = lazy_re(
    r"\b(?:now(?! that\b)|new|newly|these days|nowadays|any ?more|no longer|not any longer"
    r"|switch(?:ed)?|swapp?(?:ed)?|moved|changed|instead|since|started"
    r"|gave up|quit|stopped|replaced|upgraded|downgraded|raised"
    r"|lowered|increased|decreased|cut|went (?:up|down)|(?:down|up|back) to|from now on"
    r"|turned|update[ds]?|correction|actually|scratch that|i meant|split up|broke up"
    r"|behind me|over to|transferred|became|finally|as of|parted ways)\b",
    re.IGNORECASE)


def topic_words(text: str, whose: str | None) -> frozenset[str]:
    """The words that name what ``text`` speaks of: no stopword, no number, no word of change
    (two updates share "now" but no topic) and not the name of whose statement it is (two
    statements about Jake share "jake", and may speak of his home and his car)."""
    return frozenset(w for w in tokenize(text)
                     if w not in STOPWORDS and not w.isdigit() and w != whose
                     and _CHANGE.fullmatch(w) is None and len(w) > 1)


def updates(newer: str, older: str) -> bool:
    """Whether ``newer`` (said later) reads as an update of ``older``: both are statements of
    the same person, ``newer`` says something changed, and they share a topic word.

    >>> updates("My new gym is Anytime Fitness.", "My gym is PureGym.")
    True
    >>> updates("Jake has a new car.", "Jake lives in Boston.")
    False
    """
    if not facts.is_statement(newer) or not facts.is_statement(older):
        return False
    newer = facts.said_to_hold(newer)  # "If I switched gyms I'd ..." changes nothing
    if _CHANGE.search(newer) is None:
        return False
    whose = _same_subject(facts.subject_of(newer), facts.subject_of(older), newer, older)
    if whose is None:
        return False
    return not topic_words(newer, whose).isdisjoint(topic_words(older, whose))


# A value said after a preposition ("at Globex", "in Lisbon"): the frame a later statement may
# restate with another value.
_FRAME: Final = lazy_re(rf"\b(at|in|with|for|from)\s+({facts.CAP}[\w&'.-]*"
                        rf"(?:\s+{facts.CAP}[\w&'.-]*)*)")
# How long something has held says it is the state now ("I've been at Initech for two weeks").
# ("I'm in Paris for a few days" is a visit: the time must be one that has passed.)
_HELD_FOR: Final = lazy_re(r"\bbeen\b[^.;!?]*\bfor (?:a|an|one|two|three|four|a few|several|\d+)"
                           r" (?:days?|weeks?|months?|years?)\b|\balready\b", re.IGNORECASE)
# A stay that ends is no new state ("I'm in Paris now for a conference").
_VISIT: Final = lazy_re(r"\b(?:visit\w*|trips?|holiday|vacation|conference|weekend|business"
                        r"|staying|until|till|tonight|today|tomorrow)\b", re.IGNORECASE)


def _frames(text: str) -> dict[str, frozenset[str]]:
    """The values ``text`` says after each preposition, lower-cased, dates aside."""
    out: dict[str, set[str]] = {}
    for preposition, value in (found for sentence in facts.sentences(text)
                               for found in _FRAME.findall(sentence)):
        value = value.rstrip(".'-").lower()  # the sentence's full stop is not the name's
        if value not in facts.CALENDAR:
            out.setdefault(preposition, set()).add(value)
    return {preposition: frozenset(values) for preposition, values in out.items()}


def restates(newer: str, older: str, attribute: str | None = None) -> bool:
    """Whether ``newer`` (said later) restates ``older``'s value in its frame: the same person,
    the same preposition before another name, and a word that it changed or has held a while.
    "I work at Globex", then "I'm at Initech now": read alone, the second could be a visit; read
    after the first, it is the new employer, as a listener who heard both would take it. With
    ``attribute``, the value is the one the clauses of ``older`` stating it say (see
    :func:`_stating`): "Guadalupe lives in Oaxaca and works as a teacher", then "... has been
    renting in Puebla since the new school term" restates the home, not the job.

    >>> restates("I'm at Initech now.", "I work at Globex.")
    True
    >>> restates("I'm at Initech now.", "I live in Lisbon.")
    False
    """
    if not facts.is_statement(newer):
        return False
    # (what was declined or supposed restates nothing: "If I got the job at Nordlys I'd ...")
    newer = facts.said_to_hold(newer)
    if _VISIT.search(newer) is not None or (
            _CHANGE.search(newer) is None and _HELD_FOR.search(newer) is None):
        return False
    if _same_subject(facts.subject_of(newer), facts.subject_of(older), newer, older) is None:
        return False
    older = _stating(older, attribute) if attribute is not None else older
    before, after = _frames(older), _frames(newer)
    if any(values - before[preposition]
           for preposition, values in after.items() if preposition in before):
        return True
    # The old value left for a new one in any frame: "I've swapped Malmö for Uppsala",
    # "Halcyon and I parted ways; I'm at Meridian now". (Of an attribute's clauses, only a name
    # or number it says: "school" of "a primary school teacher" is no value left.)
    old = frozenset(v for values in before.values() for v in values) | (
        facts.values_of(older) if attribute is None else facts.names_and_numbers(older))
    new = frozenset(v for values in after.values() for v in values) - old
    return bool(new) and any(re.search(rf"\b{re.escape(value)}\b", newer, re.IGNORECASE)
                             for value in old)


# The old value given up: "Sold the Forester, I bike everywhere now", "Cancelled Netflix".
_GIVEN_UP: Final = lazy_re(r"\b(?:sold|gave away|got rid of|traded in|scrapped|totall?ed|wrote off"
                           r"|cancell?ed|moved out of|handed back)\b", re.IGNORECASE)


def gives_up(newer: str, older: str, attribute: str) -> bool:
    """Whether ``newer`` says the value of ``attribute`` that ``older`` states is given up: it
    names the value (a word :func:`eventmem.policies.facts.values_of` reads in a clause of
    ``older`` stating ``attribute``) within a few words after a verb of giving up, said by the
    same person. "I live in Wellington and drive a Subaru Forester", then "Sold the Forester, I
    bike everywhere now": the car is no longer the answer, though no new one is named; the home
    still is.

    >>> gives_up("Sold the Forester, I bike everywhere now.", "I drive a Subaru Forester.", "car")
    True
    >>> gives_up("Jake sold his Forester.", "I drive a Subaru Forester.", "car")
    False
    """
    if not facts.is_statement(newer) or _GIVEN_UP.search(newer) is None:
        return False
    if _same_subject(facts.subject_of(newer), facts.subject_of(older), newer, older) is None:
        return False
    values = sorted(value for clause in _CLAUSE.split(older)
                    if any(fact.attribute == attribute for fact in facts.read(clause))
                    for value in facts.values_of(clause) if not value.isdigit())
    pattern = "|".join(re.escape(value) for value in values)
    return bool(values) and re.search(
        rf"{_GIVEN_UP.pattern}(?:\s+[\w'-]+){{0,3}}?\s+(?:{pattern})\b", newer,
        re.IGNORECASE) is not None


# Where one clause of a statement ends and the next begins ("I live in Wellington, teach music
# and drive a Subaru Forester").
_CLAUSE: Final = lazy_re(r"[,;:.!?]\s+|\s+and\s+")


@lru_cache(maxsize=1 << 12)
def _stating(text: str, attribute: str) -> str:
    """The clauses of ``text`` that state ``attribute`` (:func:`facts.read`), else all of it.
    (Asked of the same older statement for each newer candidate a recall weighs.)"""
    clauses = [clause for clause in _CLAUSE.split(text)
               if any(fact.attribute == attribute for fact in facts.read(clause))]
    return ". ".join(clauses) if clauses else text


def _same_subject(newer: str | None, older: str | None, newer_text: str,
                  older_text: str) -> str | None:
    """Whom both statements are about (:data:`~eventmem.policies.facts.USER`, another's
    relative, or a name), or None when they are about different people. Someone's relative
    named in passing ("My daughter Ava goes to Hillcrest", whose owner reads as another's) is
    the one a later statement names ("Ava started at Oakwood")."""
    if newer is None or older is None:
        return None
    if newer == older:
        return newer
    for name, other, text in ((newer, older, older_text), (older, newer, newer_text)):
        if other == facts.OTHER and name not in (facts.USER, facts.OTHER) \
                and name in tokenize(text):
            return name
    return None


def latest_update_first(hits: list[Candidate], views: Projections, plan: QueryPlan, read: Read,
                        *, namespace: str, allowed: ch.Allowed, k: int) -> list[Candidate]:
    """``hits`` with the newest update of the top hit (see :func:`updates`) on top, then that
    one's, up to :data:`_CHAIN` in a row. An update found beyond the hits joins them; a moved
    hit takes the top's score (scores never rise down the list) and is marked
    ``signals["update"] = 1.0``; the hits stay, up to ``k``. An update is of the part of the
    top hit the question asks about: "My flight leaves at 13:50, and I'm staying at Hotel
    Fjara", then "The airline moved the flight to 16:20" updates the flight, not where the
    speaker stays. ``hits`` unchanged for a question in the past tense or one the fact reader
    reads an attribute in."""
    if not hits or plan.past or plan.intent == "todo" or facts.read_question(plan.text):
        return hits
    memories = views.state.memories
    out = list(hits)
    for _ in range(_CHAIN):
        top_id, score, _ = out[0]
        found = _newest_update(views, namespace, top_id, read, allowed, memories, plan.text)
        if found is None:
            break
        kept = [hit for hit in out if hit[0] != found]
        signals = next((s for mid, _, s in out if mid == found), {})
        signals["update"] = 1.0
        out = [(found, score, signals), *kept]
    return out[:k]


def _newest_update(views: Projections, namespace: str, top_id: str, read: Read,
                   allowed: ch.Allowed, memories: Mapping[str, MemoryRecord], asked: str
                   ) -> str | None:
    """The newest memory ``allowed`` that updates the part of ``top_id``'s text the question
    ``asked`` is about (:func:`_asked_part`), said after it, among its :data:`_DEPTH` best BM25
    neighbours; None when none does."""
    top_text = read([top_id])[0]
    if top_text is None or memories[top_id].kind == "plan" or not facts.is_statement(top_text):
        return None  # (a plan's report or its new date is for the plans to read)
    # (the top hit itself is among its own best neighbours: one more to read)
    ranked = ch.bm25(ch.lexical(views, namespace, [(top_text, 1.0)]), _DEPTH + 1, allowed)
    since = _said(memories[top_id])
    later = [mid for mid, _ in ranked if mid != top_id
             and memories[mid].kind != "plan"  # "I'm moving to Sintra" changes nothing yet
             and _said(memories[mid]) > since]
    later.sort(key=lambda mid: _said(memories[mid]), reverse=True)
    part = _asked_part(top_text, asked)
    for mid, text in zip(later, read(later), strict=True):
        if text is not None and updates(text, part):
            return mid
    return None


def _asked_part(text: str, asked: str) -> str:
    """The clauses of ``text`` that share a word with the question ``asked`` (no stopword, not
    whom it is about), joined after the speaker who says them ("Maria: ..."); all of ``text``
    when none does or it is one clause."""
    whose = {facts.USER, facts.subject_of(text)}
    wanted = frozenset(w for w in tokenize(asked) if w not in STOPWORDS and w not in whose)
    speaker = _SPEAKER.match(text)
    said = text[speaker.end():] if speaker is not None else text
    clauses = [clause for clause in _CLAUSE.split(said) if clause.strip()]
    shared = [clause for clause in clauses if not wanted.isdisjoint(tokenize(clause))]
    if not shared or len(clauses) == 1:
        return text
    return (speaker.group(0) if speaker is not None else "") + ". ".join(shared)


# A dialogue turn's speaker ("Maria: ..."), whose every clause is.
_SPEAKER: Final = lazy_re(r"^\s*[^\W\d_][\w .'-]{0,30}:\s+")


def _said(record: MemoryRecord) -> tuple[int, int]:
    """When a memory's statement holds from (:func:`~eventmem.recall.channels.valid_time`),
    then the order it was written."""
    return ch.valid_time(record), record.created_seq

"""Entities and typed relations a text states, by deterministic rules: no model, no tagger.

``extract(text)`` returns ``(entities, relations)`` for the ``memory.ingested`` event: a pure
function of the text, its rules versioned by :data:`EXTRACTOR_VERSION` (bump it on any change).

Entities
* A name is a run of capitalized (or camel-case: "iPhone") words joined by spaces, by the
  connectors of/de/da/van/von/... and "&" ("Bank of America"), or after a title or an initial
  ("Dr. Smith", "J. K. Rowling"); a number right after it joins it ("iPhone 15"). A possessive
  "'s" is left out of the name.
* Sentences: a word opens one at the start of the text or of a line, or after ``. ! ? … :``
  (a "." that ends an abbreviation, "Dr." or "J.", does not count). A single capitalized word
  that opens a sentence is only tentative ("Lately", "Nature"): it is kept if the same key
  appears elsewhere, has a type cue, or takes part in a relation.
* Never names: the stoplist (function words, interjections, days, months, "Mom", "CEO"),
  contractions ("Don't"), runs longer than six words, a lone head word ("Park"), shouted words
  ("JUST DOING IT") and texts that are mostly capitalized (titles). Uncased scripts give none.
* Lowercase words are never entities, not even as a pattern's object ("uses python"): a graph
  node for every common noun ("works at a bakery") costs more precision than it gains.
* First person (I, me, my, mine) is :data:`SELF_KEY`, listed only when in a relation. From
  extract-2 on, a pronoun that opens a sentence or clause is the person named last before it in
  the same text (:mod:`eventmem.policies.extract.coref`): "Bob moved to Paris. He works at
  Google" states that Bob works at Google. A lone "he works at X" still states nothing.
* Type: the strongest evidence wins, the earliest on a tie. Strongest: the name itself (a small
  gazetteer; head words such as "Inc", "University", "Lake", "Festival"; a title; a digit or
  camel case means a product). Then the role in an explicit relation (the object of "works at"
  is an organization), then the context ("Hey Mel", "told Mel", "Mel's dad", "Mel:", "moved to
  X", "bought an X"), then the role in an ambiguous relation ("joined X"). Else "other".

Relations are regexes over the text with its names masked as placeholders and the rest
lowercased; a pattern runs only when one of its trigger words is present. The verb follows its
subject and auxiliaries (or an appositive, "Lucy, my sister, works at X", or a shared first
clause, "I grew up in Ohio but now live in Austin"), so negation and modals ("don't", "not",
"used to", "might") break a match; no pattern crosses a sentence end. A relation whose ends have
types it does not allow is dropped ("I met Paris": knows needs people). Confidence:
:data:`EXPLICIT` for a stated verb or copula ("works at", "is Ann's sister"), :data:`POSSESSIVE`
for a possessive noun or a looser template ("my friend Ann", "joined X", "a nurse at X"),
:data:`WEAK` for weak evidence ("met", "started X", "my neighbour Ann").

The vocabulary is in :mod:`eventmem.policies.extract.lexicon`, the name scanning and the context
cues in :mod:`eventmem.policies.extract.names`, the relation patterns in
:mod:`eventmem.policies.extract.patterns`; this module runs them and settles the types.
"""

from __future__ import annotations

from typing import Final

from eventmem import codec
from eventmem.events import EntityRef, Extraction, RelationRef
from eventmem.policies.extract import coref
from eventmem.policies.extract.lexicon import APOS_RE, MEMBERSHIP, STOP, entity_key
from eventmem.policies.extract.names import name_context, name_info, name_runs
from eventmem.policies.extract.patterns import (
    ALLOWED,
    ANY_ROLES,
    CONTEXT,
    EXPLICIT,
    FIRST_PERSON,
    HINT,
    HINTS,
    INTRINSIC,
    JOB_OF,
    JOB_REL,
    MASKED_NAME,
    PAIRS,
    PATTERN_TABLE,
    PATTERNS,
    POSSESSIVE,
    REQUIRED,
    ROLE,
    ROLES,
    SYMMETRIC,
    TRIGGER_WORDS,
    TRIGGERS,
    WEAK,
)
from eventmem.text.lazyre import lazy_re

__all__ = [
    "EXPLICIT", "EXTRACTORS", "EXTRACTOR_VERSION", "EXTRACT_1", "POSSESSIVE", "RELATION_TYPES",
    "SELF_KEY", "WEAK", "entity_key", "extract", "person_spans", "speaker_key",
]  # fmt: skip

EXTRACTOR_VERSION: Final = "extract-2"
EXTRACT_1: Final = "extract-1"  # no coreference
EXTRACTORS: Final = frozenset({EXTRACT_1, EXTRACTOR_VERSION})
RELATION_TYPES: Final[tuple[str, ...]] = (
    "works_at", "manages", "reports_to", "friend_of", "lives_in", "parent_of", "child_of",
    "dating", "married_to", "member_of", "founded", "uses", "created", "collaborates_with",
    "mentors", "competitor_of", "partner_of", "client_of", "sibling_of", "knows",
)  # fmt: skip
SELF_KEY: Final = "self"

_SELF = EntityRef(SELF_KEY, "I", "person")
_PLACEHOLDER = lazy_re(MASKED_NAME)


# --- extraction -------------------------------------------------------------------------------
_Ref = tuple[int, int]  # (mention index, or -1 for the speaker; position in the masked text)
_Raw = tuple[tuple[int, int], _Ref, str, _Ref, float, int]


class _Mention:
    """One occurrence of a candidate name."""

    __slots__ = ("key", "name", "order", "tentative")

    def __init__(self, key: str, name: str, tentative: bool) -> None:
        self.key, self.name, self.order, self.tentative = key, name, 0, tentative


def _note(evidence: dict[str, tuple[int, str]], key: str, level: int, kind: str) -> None:
    """Record a type cue; a stronger one replaces it, an equal one does not (earliest wins)."""
    if level > evidence.get(key, (0, ""))[0]:
        evidence[key] = (level, kind)


def _relations(
    masked: str, mentions: list[_Mention], evidence: dict[str, tuple[int, str]]
) -> list[_Raw]:
    """Every pattern match in the masked text, as raw relations (resolvers applied)."""
    found: list[_Raw] = []
    words = masked.split()
    hits = TRIGGER_WORDS.intersection(words)  # cheap exits: no trigger, or no second end
    if not hits:
        return found
    speaker = masked.startswith(":", masked.find("\x01") + 1)  # "Jon: ...", never in a relation
    if len(mentions) - speaker < 2 and FIRST_PERSON.isdisjoint(words):
        return found
    ids = sorted({i for w in hits for i in TRIGGERS.get(w, ())})
    for i in ids:
        if i in REQUIRED and REQUIRED[i].isdisjoint(hits):
            continue
        _, _, relation, conf, level, _ = PATTERN_TABLE[i]
        for m in PATTERNS[i].finditer(masked):
            refs = {g: (int(t[1:-1]) if t[0] == "\x00" else -1, m.start(g))
                    for g, t in m.groupdict().items() if t and g in ("s", "o", "s2")}
            rel, invert = relation, False
            if relation == "role":
                role = m.group("r")
                rel, invert = ROLES[role]
                if role not in ANY_ROLES:  # "my colleague Rob": Rob is a person
                    for g in ("s", "s2"):
                        if g in refs and refs[g][0] >= 0:
                            _note(evidence, mentions[refs[g][0]].key, ROLE, "person")
            elif relation == "work":  # works at / as a nurse at / for / with
                if m.group("with"):
                    rel, conf, level = "collaborates_with", POSSESSIVE, CONTEXT
                elif m.group("for"):
                    rel, level = "work_for", HINT
                else:
                    rel = "works_at"
            elif relation == "pair":
                rel = PAIRS[m.group("r")]
            elif relation == "job":
                head, prep = m.group("j").rsplit(" ", 1)[-1], m.group("p")
                rel = JOB_REL.get(head, "works_at")
                if not rel or (prep == "of" and head not in JOB_OF):
                    continue
            elif relation == "started":  # "started Bloom Studio", not "started Pilates"
                name = mentions[refs["o"][0]].name
                if " " not in name and name_info(name)[1] != "organization":
                    continue
                rel = "founded"
            elif relation == "joined":
                last = mentions[refs["o"][0]].name.rsplit(" ", 1)[-1].casefold()
                rel = "member_of" if last in MEMBERSHIP else "works_at"
            if rel == "knows":
                conf = min(conf, WEAK)
            for subj in ("s", "s2"):
                if subj in refs:
                    a, b = (refs["o"], refs[subj]) if invert else (refs[subj], refs["o"])
                    found.append(((m.start(), i), a, rel, b, conf, level))
    return found


def extract(text: str, version: str = EXTRACTOR_VERSION
            ) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """The named entities of ``text`` (first mention order, unique keys) and the relations it
    states between them (subject and object are entity keys; :data:`SELF_KEY` for "I"), as
    extractor ``version`` reads them (:data:`EXTRACT_1`: without coreference).

    In a speaker-labelled line ("Caroline: I work at Acme") "I" is the speaker: the relations
    name her, so that what two speakers say of themselves never lands on one "self".
    """
    entities, relations = _extract(text)
    if version != EXTRACT_1 and entities:
        entities, relations = _with_coreference(text, entities, relations)
    if not relations or not any(e.key == SELF_KEY for e in entities):
        return entities, relations
    label = _SPEAKER_LABEL.match(text)
    speaker = entity_key(label.group(1)) if label else ""
    if not speaker or not any(e.key == speaker for e in entities):
        return entities, relations
    moved = dict.fromkeys(
        RelationRef(speaker if r.subject == SELF_KEY else r.subject, r.relation,
                    speaker if r.object == SELF_KEY else r.object, r.confidence)
        for r in relations)
    return (tuple(e for e in entities if e.key != SELF_KEY),
            tuple(r for r in moved if r.subject != r.object))


_SPEAKER_LABEL: Final = lazy_re(r"\s*([^\W\d_][\w .'’-]{0,40}?)\s*:\s")


def speaker_key(text: str) -> str:
    """The entity key of the speaker of a labelled line ("Caroline: I work at Acme" ->
    "caroline"), "" when the line has no speaker label."""
    label = _SPEAKER_LABEL.match(text)
    return entity_key(label.group(1)) if label else ""


def person_spans(text: str, entities: tuple[EntityRef, ...]
                 ) -> tuple[list[tuple[tuple[int, int], str]], int]:
    """Where ``text`` names the people among its ``entities`` (each span with its key, in
    order), and where its speaker label ends (0: none): a speaker is "I" in the line."""
    people = {e.key for e in entities if e.type == "person"}
    spans = [((a, b), key) for a, b, _ in name_runs(text)
             if (key := name_info(" ".join(text[a:b].split()))[0]) in people] if people else []
    label = _SPEAKER_LABEL.match(text)
    return spans, label.end(1) if label else 0


def _with_coreference(text: str, entities: tuple[EntityRef, ...],
                      relations: tuple[RelationRef, ...]
                      ) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """What ``text`` states once its sentence-opening pronouns are read as the person named last
    before them (:mod:`eventmem.policies.extract.coref`): the relations of that reading join the
    text's own, after them."""
    if coref.PRONOUN.search(text) is None:
        return entities, relations
    spans, speaker_end = person_spans(text, entities)
    working = coref.resolved(text, [span for span, _ in spans], speaker_end)
    if working is None:
        return entities, relations
    more_entities, more = _extract(working)
    known = {e.key for e in entities}
    return (entities + tuple(e for e in more_entities if e.key not in known),
            tuple(dict.fromkeys(relations + more)))


def _extract(text: str) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """:func:`extract` before "I" is given to a labelled speaker."""
    mentions: list[_Mention] = []
    evidence: dict[str, tuple[int, str]] = {}
    parts: list[str] = []
    pos = 0
    for a, b, tentative in name_runs(text):
        name = " ".join(text[a:b].split())
        key, kind = name_info(name)
        if not key or key == SELF_KEY or key in STOP:
            continue
        if kind:
            _note(evidence, key, INTRINSIC, kind)
        parts += (text[pos:a], f"\x00{len(mentions)}\x01")
        mentions.append(_Mention(key, name, tentative))
        pos = b
    if not mentions:
        return (), ()
    parts.append(text[pos:])
    for i in range(0, len(parts), 2):  # the text between names: one form for the patterns
        part = parts[i].lower()
        if "\x00" in part or "\x01" in part:
            part = part.replace("\x00", " ").replace("\x01", " ")
        if "\n" in part:  # a line break ends a sentence for the patterns too
            part = part.replace("\n", " . ")
        parts[i] = part if part.isascii() else APOS_RE.sub("'", part)
    masked = " ".join("".join(parts).split())
    for m in _PLACEHOLDER.finditer(masked):
        mention = mentions[int(m.group()[1:-1])]
        mention.order = m.start()
        kind = name_context(masked, m.start(), m.end())
        if kind:
            _note(evidence, mention.key, CONTEXT, kind)
    raw = _relations(masked, mentions, evidence)
    return _finish(mentions, evidence, raw)


def _settle(
    mentions: list[_Mention], evidence: dict[str, tuple[int, str]], raw: list[_Raw]
) -> tuple[tuple[RelationRef, ...], dict[str, tuple[int, str]], dict[str, int]]:
    """Type the ends of the raw relations and drop those whose ends have the wrong types.

    Returns the relations, the types, and the first position of each key in a relation.
    """

    def key_of(ref: _Ref) -> str:
        return SELF_KEY if ref[0] < 0 else mentions[ref[0]].key

    def typed(rels: list[_Raw]) -> dict[str, tuple[int, str]]:
        types = dict(evidence)
        for _, s, rel, o, _, level in rels:
            for ref, kind in zip((s, o), HINTS.get(rel, (None, None)), strict=True):
                if kind and ref[0] >= 0:
                    _note(types, mentions[ref[0]].key, level, kind)
        return types

    def valid(rels: list[_Raw], types: dict[str, tuple[int, str]]) -> list[_Raw]:
        def fits(ref: _Ref, allowed: frozenset[str]) -> bool:
            kind = "person" if ref[0] < 0 else types.get(mentions[ref[0]].key, (0, "other"))[1]
            return kind == "other" or kind in allowed

        return [r for r in rels if fits(r[1], ALLOWED[r[2]][0]) and fits(r[3], ALLOWED[r[2]][1])]

    def resolve(rel: str, o: _Ref) -> str:  # "works for X": a person X is a boss
        if rel != "work_for":
            return rel
        person = o[0] < 0 or evidence.get(key_of(o), (0, ""))[1] == "person"
        return "reports_to" if person else "works_at"

    raw = sorted((order, s, resolve(rel, o), o, conf, level)
                 for order, s, rel, o, conf, level in raw if key_of(s) != key_of(o))
    # Two rounds: hints of relations dropped in the first no longer type their ends.
    kept = valid(raw, typed(raw))
    types = typed(kept)
    best: dict[tuple[str, str, str], float] = {}
    related: dict[str, int] = {}
    for _, s, rel, o, conf, _ in valid(kept, types):
        sk, ok = key_of(s), key_of(o)
        triple = (ok, rel, sk) if rel in SYMMETRIC and (ok, rel, sk) in best else (sk, rel, ok)
        best[triple] = max(best.get(triple, 0.0), conf)
        for key, ref in ((sk, s), (ok, o)):
            related[key] = min(related.get(key, ref[1]), ref[1])
    relations = tuple(RelationRef(s, rel, o, conf) for (s, rel, o), conf in best.items())
    return relations, types, related


def _finish(
    mentions: list[_Mention], evidence: dict[str, tuple[int, str]], raw: list[_Raw]
) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
    """The entities (corroborated names, typed, in first mention order) and the relations."""
    relations: tuple[RelationRef, ...] = ()
    types, related = evidence, dict[str, int]()
    if raw:
        relations, types, related = _settle(mentions, evidence, raw)
    # A tentative name needs corroboration: a relation, a type cue, or a second mention.
    kept = {m.key for m in mentions if not m.tentative}
    kept.update(related)
    kept.update(key for key, (level, _) in evidence.items() if level >= CONTEXT)
    entities: list[EntityRef] = []
    listed: set[str] = set()
    self_at = related.get(SELF_KEY, -1)  # the speaker goes where "I" first takes part
    for m in mentions:
        if 0 <= self_at < m.order:
            entities.append(_SELF)
            self_at = -1
        if m.key in kept and m.key not in listed:
            listed.add(m.key)
            kind = types.get(m.key, (0, "other"))[1]
            entities.append(EntityRef(m.key, m.name, kind))  # type: ignore[arg-type]
    if self_at >= 0:
        entities.append(_SELF)
    return tuple(entities), relations


def encoded(text: str, version: str = EXTRACTOR_VERSION) -> bytes | None:
    """The extraction of ``text`` as the store keeps it beside the text (an encoded
    :class:`eventmem.events.Extraction`), or None when it names nothing."""
    entities, relations = extract(text, version)
    if not entities:
        return None
    return codec.encode_value(Extraction(entities=entities, relations=relations))

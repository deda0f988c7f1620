"""The fact extractor: the typed facts a text (a chat turn) states, with a confidence each.

The store analyses a text once, when it first stores it: its vector, its terms, and the
entities and relations it states (the knowledge graph's input, kept beside the text as content,
by its content hash, so that erasing the text erases them). :data:`RULES`, the default, is the
rule-based extraction of :mod:`eventmem.policies.extract.relations`. Another extractor (an LLM:
:mod:`eventmem.judges.openai_compatible`) answers the same question; :func:`extraction` turns its
answer into what the store keeps. Its answer is thereby recorded: the graph folds the stored
extraction, so replay never asks it again, and audit re-decides the write with the stored
extraction. The memory's ``memory.ingested`` names the extractor (``extractor``, and the judge in
``judges``).

A text the store analysed before keeps the extraction it was given then (the content is shared
by every memory of the same text).
"""

from __future__ import annotations

import math
from typing import Protocol, cast, runtime_checkable

import msgspec

from eventmem import codec
from eventmem.events import ENTITY_TYPES, EntityRef, EntityType, Extraction, RelationRef
from eventmem.policies.extract import relations as rules
from eventmem.policies.extract.lexicon import entity_key

__all__ = ["RULES", "ExtractedEntity", "ExtractedFact", "FactAnswer", "FactExtractor",
           "FactQuestion", "RuleFactExtractor", "extraction"]

# What a fact's subject or object may say to mean the speaker.
SELF_WORDS = frozenset({"i", "me", "my", "mine", "myself", "self", "user", "the user"})


class FactQuestion(msgspec.Struct, frozen=True, kw_only=True):
    """A text to read facts from (a chat turn: "Caroline: I work at Acme" speaks for Caroline)."""

    text: str


class ExtractedEntity(msgspec.Struct, frozen=True, kw_only=True):
    """An entity the text names, as written, and its type (one of ``events.ENTITY_TYPES``;
    anything else is read as ``other``)."""

    name: str
    type: str = "other"


class ExtractedFact(msgspec.Struct, frozen=True, kw_only=True):
    """A typed fact: ``subject`` ``relation`` ``object`` (names as written, or "I" for the
    speaker), held with ``confidence`` in [0, 1]."""

    subject: str
    relation: str
    object: str
    confidence: float = 1.0


class FactAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The entities a text names and the facts it states between them."""

    entities: tuple[ExtractedEntity, ...] = ()
    facts: tuple[ExtractedFact, ...] = ()


@runtime_checkable
class FactExtractor(Protocol):
    """Reads the typed facts of a text. ``judge_id`` names the method, model and version
    (recorded as the memory's ``extractor``)."""

    judge_id: str

    def facts(self, question: FactQuestion) -> FactAnswer:
        """The entities and facts of one text."""
        ...


class RuleFactExtractor:
    """The default: the rules of :func:`eventmem.policies.extract.relations.extract`. The store
    calls them directly (:func:`eventmem.write.analysis.contents_for`), which is why it is
    recognised by identity (:func:`is_rules`)."""

    judge_id = rules.EXTRACTOR_VERSION

    def facts(self, question: FactQuestion) -> FactAnswer:
        """The rules' entities and relations, named as written ("I" for the speaker)."""
        entities, relations = rules.extract(question.text)
        names = {e.key: e.name for e in entities}
        return FactAnswer(
            entities=tuple(ExtractedEntity(name=e.name, type=e.type) for e in entities
                           if e.key != rules.SELF_KEY),
            facts=tuple(ExtractedFact(subject=names.get(r.subject, r.subject),
                                      relation=r.relation, object=names.get(r.object, r.object),
                                      confidence=r.confidence) for r in relations))


RULES = RuleFactExtractor()


def is_rules(extractor: FactExtractor | None) -> bool:
    """Whether ``extractor`` decides as the rules do (None is the default)."""
    return extractor is None or isinstance(extractor, RuleFactExtractor)


def extraction(answer: FactAnswer) -> bytes | None:
    """An answer as the store keeps it beside the text (an encoded Extraction; None when it
    names nothing), keeping only what the graph can hold: entities with a name (typed ``other``
    where the type is unknown, first mention wins), facts between named entities or the speaker
    with a relation word and a finite confidence (clamped to [0, 1])."""
    entities: dict[str, EntityRef] = {}
    for entity in answer.entities:
        key = entity_key(entity.name)
        if key and key != rules.SELF_KEY and key not in entities:
            kind = entity.type if entity.type in ENTITY_TYPES else "other"
            entities[key] = EntityRef(key, entity.name.strip(), cast(EntityType, kind))

    def key_of(name: str) -> str | None:
        if name.strip().lower() in SELF_WORDS:
            return rules.SELF_KEY
        key = entity_key(name)
        return key if key in entities else None

    relations: list[RelationRef] = []
    for fact in answer.facts:
        subject, obj = key_of(fact.subject), key_of(fact.object)
        relation = "_".join(fact.relation.lower().split())
        confidence = float(fact.confidence)
        if subject is None or obj is None or subject == obj or not relation \
                or not math.isfinite(confidence):
            continue
        relations.append(RelationRef(subject, relation, obj, min(1.0, max(0.0, confidence))))
    found = list(entities.values())
    if any(rules.SELF_KEY in (r.subject, r.object) for r in relations):
        found.insert(0, EntityRef(rules.SELF_KEY, "I", "person"))
    if not found:
        return None
    return codec.encode_value(Extraction(entities=tuple(found), relations=tuple(relations)))

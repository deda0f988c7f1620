"""The link judge: how a new memory relates to its nearest memories.

The write path links each new memory to the few memories most like it (those at least
``GateParams.link_similarity`` alike, at most ``max_links``) and asks a link judge what each
link is. :class:`RuleLinkJudge`, the default, is the rule the write path has always applied:
the nearest memory is ``causes`` when the new text gives a reason (:mod:`.causal`), else
``elaborates`` when it is at least ``elaborates_similarity`` alike and the new text holds all its
content words and more; every other is ``related_to``; the weight is the cosine.

Another judge (an LLM: :mod:`eventmem.judges.openai_compatible`) answers the same question. Its
answer is the links recorded in ``memory.ingested`` (:func:`judged_links` keeps only what a
link may be), so replay never asks it again and audit checks the links against the recorded
ones. The ``same_entity`` links (memories naming the same entity) are not the judge's: they
follow from the extraction, as before.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol, cast, runtime_checkable

import msgspec

from eventmem.events import LinkType, MemoryLink
from eventmem.policies import causal, merge

__all__ = ["JUDGED_RELATIONS", "JudgedLink", "LinkAnswer", "LinkCandidate", "LinkJudge",
           "LinkQuestion", "RuleLinkJudge", "judged_links", "rule_relation"]

LINKS_VERSION = "links-1"

# What a judge may call a link; the others are decided elsewhere (supersedes, contradicts by
# the gate, same_entity by the extraction).
JUDGED_RELATIONS: tuple[str, ...] = ("causes", "elaborates", "related_to")


class LinkCandidate(msgspec.Struct, frozen=True, kw_only=True):
    """A memory the new one may link to: its id, its text, and its cosine to the new text."""

    memory_id: str
    text: str
    similarity: float


class LinkQuestion(msgspec.Struct, frozen=True, kw_only=True):
    """A new memory's text and the memories it may link to, most similar first."""

    text: str
    candidates: tuple[LinkCandidate, ...]


class JudgedLink(msgspec.Struct, frozen=True, kw_only=True):
    """One link the judge decided: to which candidate, what it is, and its weight in [0, 1]."""

    memory_id: str
    relation: str  # one of JUDGED_RELATIONS
    weight: float


class LinkAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """The links a judge decided (candidates it leaves out get no similarity link)."""

    links: tuple[JudgedLink, ...] = ()


@runtime_checkable
class LinkJudge(Protocol):
    """Decides the links of a new memory to its candidates. ``judge_id`` names the method,
    model and version (recorded on the memory's event)."""

    judge_id: str

    def links(self, question: LinkQuestion) -> LinkAnswer:
        """The links to make."""
        ...


def rule_relation(rank: int, similarity: float, text: str, old_text: Callable[[], str],
                  elaborates_similarity: float) -> LinkType:
    """The rule's relation of a new text to its ``rank``-th nearest memory (``old_text`` is read
    only when the answer depends on it: a stored text costs a lookup)."""
    if rank == 0 and causal.gives_reason(text):
        return "causes"
    if rank == 0 and similarity >= elaborates_similarity \
            and merge.content_terms(old_text()) < merge.content_terms(text):
        return "elaborates"
    return "related_to"


class RuleLinkJudge:
    """The default link judge: :func:`rule_relation` for every candidate, weighed by its cosine.
    The write path applies the same rule inline (it reads a candidate's text only when the rule
    needs it), with ``elaborates_similarity`` from its config."""

    judge_id = LINKS_VERSION

    def __init__(self, elaborates_similarity: float = 0.7) -> None:
        self.elaborates_similarity = elaborates_similarity

    def links(self, question: LinkQuestion) -> LinkAnswer:
        """A link to every candidate, as the rule calls it."""
        found = []
        for rank, candidate in enumerate(question.candidates):
            relation = rule_relation(rank, candidate.similarity, question.text,
                                     functools.partial(str, candidate.text),
                                     self.elaborates_similarity)
            found.append(JudgedLink(memory_id=candidate.memory_id, relation=relation,
                                    weight=candidate.similarity))
        return LinkAnswer(links=tuple(found))


def is_rules(judge: LinkJudge | None) -> bool:
    """Whether ``judge`` decides as the rules do (None is the default)."""
    return judge is None or isinstance(judge, RuleLinkJudge)


def judged_links(answer: LinkAnswer, question: LinkQuestion) -> tuple[MemoryLink, ...]:
    """The links of an answer that a link may be: to a candidate asked about, once each, with a
    relation of :data:`JUDGED_RELATIONS`; the weight clamped to [0, 1] and rounded as the write
    path records it. The rest of the answer is dropped (an LLM's answer is not trusted blindly)."""
    asked = {c.memory_id for c in question.candidates}
    out: dict[str, MemoryLink] = {}
    for link in answer.links:
        if link.memory_id not in asked or link.memory_id in out \
                or link.relation not in JUDGED_RELATIONS:
            continue
        weight = float(link.weight)
        weight = 0.0 if weight != weight else min(1.0, max(0.0, weight))  # NaN -> 0
        out[link.memory_id] = MemoryLink(target=link.memory_id,
                                         relation=cast(LinkType, link.relation),
                                         weight=round(weight, 6))
    return tuple(out.values())

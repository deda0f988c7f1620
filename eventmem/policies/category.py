"""Retention categories beside the kinds (Cognitive Memory v9), and the procedural tier.

A memory's *kind* (identity, preference, plan, ...) says what it is about and sets its base
stability; its *category* says how it should be kept, and is decided at write time from the text
and the kind (recorded on ``memory.ingested`` with its rule and :data:`POLICY_VERSION`):

* ``correction``  the text corrects something ("actually", "should be", "was wrong"): its
                  retention never falls below a floor (``DecayParams.category_floor``), and the
                  write gate (gate-8) lets it supersede the memory it corrects.
* ``procedure``   a how-to or an always/never rule ("How to deploy: ...", "Always use UTC"): it
                  is stored in the procedural tier, which decays like the semantic one.
* ``decision``    something decided ("we decided to ...", "going with ..."): stability at least
                  45 days (``CategoryParams.stability_days``).
* ``preference``  a memory of the preference kind: a retention floor, like corrections.
* ``fact``        a person's lasting attribute (the classifier's fact rules: where they live,
                  their job, diet...): stability at least 14 days.

The first that matches wins, in that order. A category's stability is a floor, never a cap: it
raises a kind's base stability where that is shorter and leaves a longer-lived kind as it was,
so the kinds keep their meaning. A statement the classifier could not read (the default rule,
kind context) is no fact: calling every such text a fact lengthened the default kind to 14 days
and cost the mc-dev plan questions 0.021 acc@1 (older context outranked the current plan).
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from eventmem.errors import InvalidInputError
from eventmem.policies.classify import FACT_RULES
from eventmem.text.lazyre import lazy_re

__all__ = ["CATEGORIES", "NONE", "POLICIES", "POLICY_VERSION", "CategoryParams", "categorize",
           "is_correction", "tier_of"]

NONE: Final = ""  # no category was decided (memories recorded before category-1)
POLICY_VERSION: Final = "category-1"
POLICIES: Final = frozenset({NONE, POLICY_VERSION})
CATEGORIES: Final[tuple[str, ...]] = ("correction", "procedure", "decision", "preference", "fact")
# The tiers a caller may ask for: working memory comes with a session, dormant by forgetting.
CALLER_TIERS: Final[tuple[str, ...]] = ("episodic", "semantic", "procedural")

_CORRECTION = lazy_re(
    r"\b(?:actually|should\s+(?:be|have\s+been|read|say)|(?:was|were|is|are)\s+wrong|"
    r"i\s+was\s+mistaken|correction\s*:|to\s+correct\s+(?:that|myself|this)|"
    r"not\s+\w+(?:\s+\w+)?\s*,\s*but\b)", re.I)
# A rule stated as one: the text opens with it (so "I always take the bus" stays a habit).
_PROCEDURE = lazy_re(
    r"^\s*(?:how\s+to\b|how\s+do\s+(?:i|you|we)\b|always\b|never\b|don't\s+ever\b|"
    r"(?:rule|procedure|steps?)\s*(?:\d+\s*)?:|step\s+\d+\b|to\s+\w+[^,.]{0,60},\s*"
    r"(?:first|always|never|use|run)\b)", re.I)
_DECISION = lazy_re(
    r"\b(?:decided|decide\s+to|we\s+chose|chose\s+to|going\s+with|settled\s+on|agreed\s+to|"
    r"the\s+decision\s+(?:is|was)|opted\s+(?:for|to))\b", re.I)


class CategoryParams(msgspec.Struct, kw_only=True, frozen=True):
    """The least base stability (days) a category gives a memory at write time."""

    stability_days: dict[str, float] = msgspec.field(
        default_factory=lambda: {"decision": 45.0, "fact": 14.0})

    def __post_init__(self) -> None:
        unknown = sorted(set(self.stability_days) - set(CATEGORIES))
        if unknown:
            raise InvalidInputError(f"stability_days: unknown categories {unknown}; the "
                                    f"categories are {', '.join(CATEGORIES)}")
        if any(not days > 0 for days in self.stability_days.values()):
            raise InvalidInputError("category stability_days must be > 0")


def is_correction(text: str) -> bool:
    """Whether the text says it corrects something (the ``correction`` category's rule)."""
    return _CORRECTION.search(text) is not None


def categorize(text: str, kind: str, kind_rule: str,
               policy: str = POLICY_VERSION) -> tuple[str, str]:
    """(category, rule) of a memory with this text, kind and kind rule; ("", "") for none, or
    under the version :data:`NONE` (the audit re-derives an old record so)."""
    if policy == NONE:
        return "", ""
    if _CORRECTION.search(text):
        return "correction", "correction:phrase"
    if _PROCEDURE.search(text):
        return "procedure", "procedure:rule"
    if _DECISION.search(text):
        return "decision", "decision:phrase"
    if kind == "preference":
        return "preference", "preference:kind"
    if kind_rule in FACT_RULES:
        return "fact", "fact:attribute"
    return "", ""


def tier_of(caller_tier: str | None, session: str | None, category: str) -> tuple[str, str]:
    """(tier, tier rule) of a new memory: the caller's ``tier=`` wins, then a session's working
    memory, then a procedure's procedural tier; episodic otherwise."""
    if caller_tier is not None:
        return caller_tier, "caller"
    if session:
        return "working", ""
    if category == "procedure":
        return "procedural", "procedure"
    return "episodic", ""

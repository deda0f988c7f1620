"""Per-intent routing and read-time boosts (Cognitive Memory v9), and the seed's hot tier.

Pure decisions of the read path, with their parameters in :class:`RoutingParams`
(``Config.routing``):

* **temporal routing**: a "when" question also finds superseded memories (they were true once:
  "When did Bob live in Oslo?" after "Bob moved to Paris"), weighed ``superseded_weight``;
* **causal routing**: a "why" question follows ``causes`` and ``elaborates`` links from its best
  matches, ``causal_hops`` hops, each hop weighing ``causal_hop_decay`` of the one before;
* **entity routing**: "who is Alice?" also ranks Alice's hub, the memories stating her relations
  (``entity_hub``);
* **boosts** (:func:`boost`): the same session (+``session_boost``), each entity of the query a
  memory names (+``entity_boost``, at most ``entity_boost_max`` in all), the memory's sub-tier
  (:func:`subtier`) and a penalty while it is in an open conflict. They multiply a hit's score,
  and the read path never lets them lift a hit above one ``relevance_margin`` times as relevant
  (reinforcement never outweighs relevance, ARCHITECTURE.md section 11);
* **the hot tier** (:func:`hot_tier`): active semantic memories of utility at least
  ``hot_min_utility``, accessed ``hot_min_accesses`` times, younger than ``hot_max_age_days``;
  at most ``hot_max``, by utility.

Everything is a function of the records, their texts and a given ``now``: no wall clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal, NamedTuple

import msgspec

from eventmem.clock import MICROS_PER_DAY
from eventmem.errors import InvalidInputError
from eventmem.text.lazyre import lazy_re
from projections.state import MemoryRecord

__all__ = ["SUBTIERS", "Boost", "RoutingParams", "boost", "hot_tier", "subtier"]

SUBTIERS: tuple[str, ...] = ("personal", "observed", "vicarious", "schematic", "procedural",
                             "factual")


def _subtier_weights() -> dict[str, float]:
    return {"personal": 1.1, "observed": 1.0, "vicarious": 0.9,
            "schematic": 1.1, "procedural": 1.05, "factual": 1.0}


class RoutingParams(msgspec.Struct, frozen=True, kw_only=True):
    """Per-intent routing, the read-time boosts and the seed's hot tier (the seeds' defaults,
    except where a figure says otherwise: see the comments)."""

    # Temporal questions: superseded memories are eligible, at this status weight (an active
    # memory weighs 1, a stale one 0.5). 0.9: below the current value of equal relevance.
    temporal_include_superseded: bool = True
    superseded_weight: float = 0.9
    # Temporal questions naming a time ("what did I do last week?"): the hits (chosen by
    # relevance) told in valid-time order, earliest first, rather than by score. Off: on mc-dev
    # (daily) past acc@1 fell 0.852 -> 0.810 and past_as_of 0.880 -> 0.831 ("Where did I
    # live in March?" wants the value of March on top, not March's first memory).
    temporal_order: bool = False
    # Causal questions: follow causes/elaborates links this many hops from the best matches.
    causal_hops: int = 2
    causal_hop_decay: float = 0.5
    causal_seeds: int = 5  # how many of the best matches the links start from
    # HyDE-style answer templates per intent (eventmem.recall.plan.templates): BM25 weight of
    # the words only they add. Off: at 0.25 LoCoMo dev R@10 fell 0.777 -> 0.774 (temporal
    # 0.922 -> 0.911, multi-hop 0.388 -> 0.383): "last week", "because" match too widely.
    template_weight: float = 0.0
    # Inference questions ("Would X ...?", "What might X ...?", eventmem.recall.plan
    # .asks_hypothetical): the text channels match the question without its frame words
    # ("likely", "might", "considered"...: eventmem.recall.plan.without_frame).
    inference_frame: bool = True
    # Inference questions naming someone: the lines that person said (eventmem.recall.fuse
    # .own_words), ranked by context, as a channel of this RRF weight; 0 switches it off.
    own_words_weight: float = 1.0
    # Entity questions ("who is Alice?"): the entity's hub, the memories stating its relations.
    entity_hub: bool = True
    # Boosts, added to 1 and multiplied into the score.
    session_boost: float = 0.15  # a memory of the session the recall names
    # Per entity of the query the memory names, at most entity_boost_max in all. 0.05, not the
    # seed's 0.1: at 0.1, "Naomi's daughter is called Bruno" (names her) outranked "I own 2
    # houseplants" for "How many houseplants does Naomi have?" (mc-dev current acc@1 0.814 ->
    # 0.813); at 0.05 LoCoMo dev R@10 is 0.774 (0.777 at 0.1, 0.773 without).
    entity_boost: float = 0.05
    entity_boost_max: float = 0.2
    subtier_weights: dict[str, float] = msgspec.field(default_factory=_subtier_weights)
    conflict_penalty: float = 0.9  # a memory in an open conflict: its value is disputed
    # A boosted hit never rises above one at least this many times as relevant.
    relevance_margin: float = 2.0
    # The seed's hot tier.
    hot_rule: Literal["score", "seed"] = "score"  # what Reader.hot returns by default
    hot_min_utility: float = 0.8
    hot_min_accesses: int = 10
    hot_max_age_days: float = 30.0
    hot_tiers: tuple[str, ...] = ("semantic",)
    hot_max: int = 15

    def __post_init__(self) -> None:
        if not 0 <= self.superseded_weight <= 1 or not 0 <= self.causal_hop_decay <= 1:
            raise InvalidInputError("superseded_weight and causal_hop_decay must be in [0, 1]")
        if self.causal_hops < 0 or self.causal_seeds < 0 or self.hot_max < 0 \
                or self.hot_min_accesses < 0:
            raise InvalidInputError("causal_hops, causal_seeds, hot_max and hot_min_accesses "
                                    "must be >= 0")
        if min(self.session_boost, self.entity_boost, self.entity_boost_max,
               self.template_weight, self.own_words_weight) < 0:
            raise InvalidInputError("session_boost, entity_boost, entity_boost_max, "
                                    "template_weight and own_words_weight must be >= 0")
        if not 0 < self.conflict_penalty <= 1:
            raise InvalidInputError("conflict_penalty must be in (0, 1]")
        if self.relevance_margin <= 1:
            raise InvalidInputError("relevance_margin must be > 1")
        if any(not w > 0 for w in self.subtier_weights.values()) \
                or set(self.subtier_weights) - set(SUBTIERS):
            raise InvalidInputError(f"subtier_weights takes positive weights for "
                                    f"{', '.join(SUBTIERS)}")
        if not self.hot_max_age_days > 0:
            raise InvalidInputError("hot_max_age_days must be > 0")


# -- sub-tiers -----------------------------------------------------------------------------------

# Told by someone else: "Sam said...", "according to...", "I heard that...".
_HEARSAY = lazy_re(r"\b(said|says|told (me|us|him|her|them)|according to|heard (that|from)|"
                      r"apparently|reportedly|rumou?r)\b", re.I)
_RULE = lazy_re(r"^\s*(how to|to \w+,|always|never|first\b|step \d)|\b(always|never)\b", re.I)


def subtier(record: MemoryRecord, text: str | None) -> str:
    """The sub-tier of a memory, from its tier, origin and text.

    Semantic knowledge is *schematic* when consolidation derived it from other memories,
    *procedural* when it is a rule ("how to", "always", "never", or the procedural tier), else
    *factual*. Other memories are episodes: *vicarious* when told second hand ("Sam said",
    "according to"), *personal* when the user told it (their own experience), else *observed*
    (what the agent, an extraction or an import recorded)."""
    body = text or ""
    if record.tier == "procedural":
        return "procedural"
    if record.tier == "semantic":
        if record.derived_from or record.source == "consolidation":
            return "schematic"
        return "procedural" if _RULE.search(body) else "factual"
    if _HEARSAY.search(body):
        return "vicarious"
    return "personal" if record.source == "user" else "observed"


# -- boosts --------------------------------------------------------------------------------------


class Boost(NamedTuple):
    """One hit's boosts; ``weight`` multiplies its score."""

    session: float  # added: the recall's session
    entity: float  # added: the query's entities it names
    subtier: str
    subtier_weight: float
    conflict_weight: float  # 1, or the penalty while in an open conflict

    @property
    def weight(self) -> float:
        """The factor on the score."""
        return (1.0 + self.session + self.entity) * self.subtier_weight * self.conflict_weight


def boost(record: MemoryRecord, text: str | None, *, same_session: bool, entities_named: int,
          in_open_conflict: bool, params: RoutingParams) -> Boost:
    """The boosts of one hit (see the module docstring)."""
    tier = subtier(record, text)
    return Boost(
        session=params.session_boost if same_session else 0.0,
        entity=min(params.entity_boost * entities_named, params.entity_boost_max),
        subtier=tier,
        subtier_weight=params.subtier_weights.get(tier, 1.0),
        conflict_weight=params.conflict_penalty if in_open_conflict else 1.0,
    )


# -- the hot tier --------------------------------------------------------------------------------


def hot_tier(records: Iterable[MemoryRecord], now: int, params: RoutingParams,
             k: int | None = None) -> list[str]:
    """The seed's hot tier: ids of active memories of a hot tier (semantic) with utility at least
    ``hot_min_utility``, at least ``hot_min_accesses`` accesses, created less than
    ``hot_max_age_days`` before ``now``; at most ``min(k, hot_max)``, the most useful first
    (ties: the most accessed, then the latest, then by id)."""
    limit = params.hot_max if k is None else min(k, params.hot_max)
    if limit <= 0:
        return []
    max_age = params.hot_max_age_days * MICROS_PER_DAY
    found = [r for r in records
             if r.status == "active" and r.tier in params.hot_tiers
             and r.utility >= params.hot_min_utility
             and r.access_count >= params.hot_min_accesses
             and now - r.created_at < max_age]
    found.sort(key=lambda r: (-r.utility, -r.access_count, -r.created_seq, r.memory_id))
    return [r.memory_id for r in found[:limit]]

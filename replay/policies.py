"""What the audit knows how to re-derive: the policy versions this code implements, and the
recorded output of a pluggable summarizer (an LLM's text is an input to replay, not a decision
the audit can re-make; which memories it summarized, and when, is)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from eventmem.events import (
    BOX_POLICY,
    DREAM_POLICY,
    PLASTICITY_POLICY,
    POLICY_VERSION,
    CategorySummarized,
    Event,
    JudgeRef,
    LifecycleTransitioned,
    MemoryConsolidated,
    MemoryIngested,
    TierChanged,
    event_tag,
)
from eventmem.policies.category import POLICIES as CATEGORIES
from eventmem.policies.classify import POLICIES as CLASSIFIERS
from eventmem.policies.dream.summaries import EXTRACTIVE
from eventmem.policies.emotion import EMOTION_POLICY
from eventmem.policies.extract.relations import EXTRACTORS
from eventmem.policies.gate import (
    GATE_2,
    GATE_3,
    GATE_4,
    GATE_5,
    GATE_6,
    GATE_7,
    GATE_8,
    GATE_9,
    GATE_10,
    GATE_11,
    GATE_12,
    GATE_13,
    GATE_14,
    GATE_15,
    GATE_16,
    GATE_17,
    GATE_18,
    GATE_19,
    GATE_20,
    GATE_VERSION,
)
from eventmem.policies.lifecycle import (
    SWEEP_1,
    SWEEP_2,
    SWEEP_3,
    SWEEP_4,
    SWEEP_5,
    SWEEP_POLICY,
)
from eventmem.policies.observer.rules import OBSERVER_1, OBSERVER_VERSION
from eventmem.policies.times import POLICIES as TIMES
from eventmem.storage.log import EventLog
from projections import Projections

# dream-1 decided everything as dream-2 does but the pruning of relations; dream-2 as dream-3
# does but clusters, which could merge the sides of an open conflict (re-derived as dream-2 did
# when the recorded policy says so); dream-3 as dream-4 does but the search for similar pairs in
# a large namespace, which was exact (re-derived so when recorded so); dream-4 as dream-5 does
# but clusters, which could merge an episode with a note; dream-5 as dream-6 does but clusters,
# which could merge memories whose valid time was over.
_DREAM_STEPS = frozenset({"dream-1", "dream-2", "dream-3", "dream-4", "dream-5", DREAM_POLICY})

# sweep-1 (recorded as the store-wide "gate-1") judged tiers on the statuses before the sweep's
# own transitions; sweep-1 and sweep-2 let decay delete any kind; sweep-1 to sweep-3 never
# moved a memory out of working memory; sweep-1 to sweep-4 promoted pinned memories, never
# for a shared entity, and expired nothing speculative; sweep-1 to sweep-5 moved a memory one
# tier per sweep (each re-derived as it did when recorded so).
_SWEEPS = frozenset({SWEEP_1, SWEEP_2, SWEEP_3, SWEEP_4, SWEEP_5, SWEEP_POLICY})
# Newest first: the order the audit tries them in for a consolidation that records no sweep
# event (its sweep decided nothing, so its events do not say which version it was).
SWEEPS_NEWEST_FIRST: tuple[str, ...] = (SWEEP_POLICY, SWEEP_5, SWEEP_4, SWEEP_3, SWEEP_2,
                                         SWEEP_1)

# gate-2 decided everything as gate-3 does but the exact text of an expired memory; gate-3 as
# gate-4 does but a text differing in a value and the merged text; gate-4 as gate-5 does but a
# memory given no valid_from, whose valid time it left open; gate-5 as gate-6 does but closing a
# plan reported done; gate-6 as gate-7 does but a new value of a person's attribute (the write
# path re-decides an item as its recorded policy did); gate-7 as gate-8 does but a correction,
# which superseded nothing; gate-8 as gate-9 does but a reschedule of a passed day; gate-9 as
# gate-10 does but the words an attribute is searched with; gate-10 as gate-11 does but a plan
# closed on words of another sentence; gate-11 as gate-12 does but what the fact reader reads
# (its first edition: names in ASCII letters only, none of the second edition's phrasings), a
# correction naming the value it takes back, a plan reported done in the passive, and a report
# of a plan done that updated the plan; gate-12 as gate-13 does but the kind of a correction;
# gate-13 as gate-14 does but what the fact reader reads (its third edition) and a correction
# taking back a value spelled in other letters; gate-14 as gate-15 does but what the fact
# reader reads (its fourth edition) and a correction taking back a time with its minutes;
# gate-15 as gate-16 does but what the fact reader reads (its fifth edition), a correction
# after an interjection and a plan opening with "I'm"; gate-16 as gate-17 does but what the fact
# reader reads (its sixth edition); gate-17 as gate-18 does but a text restating part of what a
# memory says, which replaced all of it; gate-18 as gate-19 does but what the fact reader reads
# (its seventh edition); gate-19 as gate-20 does but what the fact reader reads (its eighth
# edition) and a memory's clause of values the new text leaves untouched, which it replaced;
# gate-20 as gate-21 does but what the fact reader reads (its ninth edition).
_GATES = frozenset({GATE_2, GATE_3, GATE_4, GATE_5, GATE_6, GATE_7, GATE_8, GATE_9, GATE_10,
                    GATE_11, GATE_12, GATE_13, GATE_14, GATE_15, GATE_16, GATE_17, GATE_18,
                    GATE_19, GATE_20, GATE_VERSION})

# The policy versions each decision event may carry that this code re-derives. The sweep,
# accesses and feedback record the store-wide version (events.POLICY_VERSION).
KNOWN: dict[str, frozenset[str]] = {
    "memory.ingested": _GATES | _DREAM_STEPS,
    "memory.reinforced": _GATES,
    "memory.skipped": _GATES,
    "memory.superseded": _GATES,
    "conflict.flagged": _GATES,
    "conflict.resolved": _GATES,
    "memory.rejected": frozenset({OBSERVER_1, OBSERVER_VERSION}),
    "memory.lifecycle": _SWEEPS,
    "memory.tier_changed": _SWEEPS,
    "memory.invalidated": frozenset({POLICY_VERSION}),
    "memory.recalled": frozenset({POLICY_VERSION}),
    "memory.touched": frozenset({POLICY_VERSION}),
    "memory.feedback": frozenset({POLICY_VERSION}),
    "memory.rehearsed": _DREAM_STEPS,
    "memory.dormant": _DREAM_STEPS,
    "memory.consolidated": _DREAM_STEPS,
    "memory.category_summarized": _DREAM_STEPS,
    "graph.relations_pruned": frozenset({"dream-2", "dream-3", "dream-4", "dream-5", DREAM_POLICY}),
    "memory.tagged": frozenset({PLASTICITY_POLICY}),
    "memory.strengthened": frozenset({PLASTICITY_POLICY}),
    "memory.tags_expired": frozenset({PLASTICITY_POLICY}),
    "memory.emotion_consolidated": frozenset({PLASTICITY_POLICY}),
    "memory.box_sealed": frozenset({BOX_POLICY}),
}


def unknown_policy(events: Sequence[Event]) -> str | None:
    """The first policy (or extractor) version among ``events`` that this code does not
    implement, or None."""
    for event in events:
        policy = getattr(event, "policy", None)
        known = KNOWN.get(event_tag(event))
        if policy is not None and known is not None and policy not in known:
            return policy
        if isinstance(event, MemoryIngested) and event.extractor not in ("", *EXTRACTORS) \
                and JudgeRef(role="facts", judge=event.extractor) not in event.judges:
            return event.extractor  # a pluggable extractor's is re-read from the stored content
        if isinstance(event, MemoryIngested) and event.kind_policy \
                and event.kind_policy not in CLASSIFIERS:
            return event.kind_policy
        if isinstance(event, MemoryIngested) and event.times_policy not in TIMES:
            return event.times_policy
        if isinstance(event, MemoryIngested) and event.emotion_policy not in ("", EMOTION_POLICY):
            return event.emotion_policy
        if isinstance(event, MemoryIngested) and event.category_policy not in CATEGORIES:
            return event.category_policy
    return None


class RecordedPolicies(NamedTuple):
    """The versions a recorded consolidation decided as (the current dream version where it
    shows none): what its audit re-runs. ``sweep`` is None when it records no sweep event."""

    sweep: str | None
    dream: str


def recorded_policies(events: Sequence[Event]) -> RecordedPolicies:
    """The sweep and dream-cycle versions the first of ``events`` that record one carry."""
    sweep = next((e.policy for e in events
                  if isinstance(e, LifecycleTransitioned | TierChanged)), None)
    dream = next((policy for e in events if event_tag(e) in _DREAM_TAGS
                  and (policy := getattr(e, "policy", None)) in _DREAM_STEPS), DREAM_POLICY)
    if sweep is not None and sweep not in _SWEEPS:
        sweep = SWEEP_POLICY
    return RecordedPolicies(sweep, dream)


_DREAM_TAGS = frozenset({"memory.ingested", "memory.rehearsed", "memory.dormant",
                         "memory.consolidated", "memory.category_summarized",
                         "graph.relations_pruned"})


class ReplayedSummarizer:
    """Gives back the summary recorded for the same source texts; raises for any other (the
    cycle then falls back to the extractive summary, as it did when the original failed)."""

    def __init__(self, summarizer_id: str, recorded: dict[tuple[str, ...], str]) -> None:
        self.summarizer_id = summarizer_id
        self._recorded = recorded

    def summarize(self, texts: Sequence[str]) -> str:
        """The recorded summary of ``texts``."""
        found = self._recorded.get(tuple(texts))
        if found is None:
            raise ValueError("no summary of these texts was recorded")
        return found


def texts_by_id(events: Sequence[Event], views: Projections,
                blob: Callable[[str], str | None]) -> Callable[[str], str | None]:
    """A memory's text by id: of one ``events`` create (not folded yet), else of the state's
    record; None when it is gone."""
    made = {e.memory_id: e.content_hash for e in events if isinstance(e, MemoryIngested)}
    memories = views.state.memories

    def text(memory_id: str) -> str | None:
        chash = made.get(memory_id)
        if chash is None:
            record = memories.get(memory_id)
            chash = None if record is None else record.content_hash
        return None if chash is None else blob(chash)

    return text


def replayed_summarizer(events: Sequence[Event], views: Projections, log: EventLog
                        ) -> ReplayedSummarizer | None:
    """The summarizer to re-run a consolidation's ``events`` with: None (the extractive one,
    re-derived) unless they record another method, whose outputs are then replayed."""
    text = texts_by_id(events, views, log.blob)
    method, recorded = None, {}
    for event in events:
        if not isinstance(event, MemoryConsolidated | CategorySummarized) \
                or event.method.startswith(EXTRACTIVE.summarizer_id):
            continue
        method = method or event.method
        sources = [text(mid) for mid in event.sources]
        summary = text(event.memory_id)
        if summary is not None and all(s is not None for s in sources):
            recorded[tuple(s for s in sources if s is not None)] = summary
    return None if method is None else ReplayedSummarizer(method, recorded)

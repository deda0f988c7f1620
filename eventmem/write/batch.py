"""The write path's decisions for a batch of checked items, as events.

``decide`` is a pure function of the projections, the items, their content (text, vector, terms),
the time and the config, plus three deterministic helpers the engine passes in: ``text_of`` and
``vector_of`` (a stored memory's text and vector) and ``analyse`` (content for a text the gate
synthesized). Items are decided in order, each against the store as it will stand when the
earlier items' events are folded (:mod:`eventmem.write.neighbours`). For each item:

1. the observer filter may reject it (recorded without its content);
2. the gate (:mod:`eventmem.policies.gate`) decides, with its evidence: reinforce, skip, merge,
   update, a conflict settled by its strategy (found and recorded by :func:`settle`), or create;
3. a created memory gets its links to related memories, and its kind, valid-until, importance
   and flashbulb status (:func:`ingested`, from a :class:`Creation`);
4. sessions over their working-memory capacity evict their weakest members.

Pluggable judges (:mod:`eventmem.judges`) may decide what contradicts (step 2) and the links
(step 3) in place of the rules; their answers go into the events, and each item's decision names
them (``judges``), so that an audit replays their answers instead of re-asking.

Nothing here reads the clock or writes; the engine appends the events in one transaction.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from itertools import takewhile
from typing import Any, Final, NamedTuple, cast

import msgspec
import numpy as np

from eventmem import metadata as caller_metadata
from eventmem.config import Config
from eventmem.events import (
    ConflictEvidence,
    ConflictFlagged,
    ConflictResolved,
    EntityRef,
    Event,
    Extraction,
    JudgeRef,
    Labels,
    MemoryIngested,
    MemoryKind,
    MemoryLink,
    MemoryReinforced,
    MemoryRejected,
    MemorySkipped,
    MemorySuperseded,
    PlanEvidence,
    RelationRef,
    TierChange,
    TierChanged,
    TimeSpan,
)
from eventmem.policies import (
    category,
    classify,
    corrections,
    emotion,
    facts,
    gate,
    horizon,
    importance,
    merge,
    plans,
    stated,
    tiers,
    timebound,
    times,
    values,
)
from eventmem.policies import links as links_policy
from eventmem.policies.conflict import detect as conflict
from eventmem.policies.conflict import judge as contradiction_judge
from eventmem.policies.conflict.judge import (
    ContradictionAnswer,
    ContradictionJudge,
    ContradictionQuestion,
)
from eventmem.policies.decay import progress, stability_after_access
from eventmem.policies.extract import coref
from eventmem.policies.extract import judge as fact_judge
from eventmem.policies.extract import relations as extract
from eventmem.policies.extract.judge import FactExtractor
from eventmem.policies.observer import rules as observer
from eventmem.recall.facts import NamespaceFacts, Read
from eventmem.results import Action
from eventmem.storage.envelope import Content
from eventmem.storage.log import Head
from eventmem.text.blas import single_thread
from eventmem.text.normalize import content_hash, dedup_key
from eventmem.write.items import Item
from eventmem.write.neighbours import GATE_STATUSES, Near, Neighbourhood, Query, eligible
from eventmem.write.readings import claims_of, classified, facts_of, values_in
from projections import Projections, paused_gc
from projections import graph as graph_view
from projections.state import MemoryRecord, dedup_slot, working_key

# The events that create a memory: what a new memory's ``memory.ingested`` records, and the
# working-memory evictions its arrival causes.
#
# :func:`ingested` settles everything a created memory gets beyond the gate's decision: its kind
# (given, or classified), valid-until for plans, importance from its four channels, flashbulb
# status, and what a merged or updated memory inherits from the one it replaces. The batch below
# and a conflict settled later by ``merge`` (:mod:`eventmem.write.resolve`) build their memories
# with it. Pure: nothing here reads the clock or the store.

# How many plans sharing a new text's words are checked for one it reports done.
PLAN_CANDIDATES = 8

IMPORTANCE_CHANNELS = ("novelty", "arousal", "reward", "attention")  # the event's tuple order



# The rules of the items the caller decided (Batch._given).
CALLER_UPDATE = "caller_update"
IMPORTED = "imported"


class Inherited(msgspec.Struct, frozen=True, kw_only=True):
    """What a merged or updated memory keeps of the one it replaces."""

    kind: str
    pinned: bool
    importance: float
    stability: float
    tags: tuple[str, ...]
    refs: tuple[str, ...]
    valid_from: int | None
    metadata: dict[str, Any] | None = None
    times: tuple[TimeSpan, ...] = ()  # what its text spoke of, read when it was said


class Creation(NamedTuple):
    """How a memory comes to be created, beyond the item it was asked for: its text and id, what
    the gate decided against which neighbours, and what the batch settled (links, what it is
    derived from and inherits)."""

    text: str  # the input's, or a synthesis of it and what it merges with
    memory_id: str
    content_hash: str
    dedup_key: str
    decision: gate.GateDecision
    near: Near
    links: tuple[MemoryLink, ...] = ()
    derived_from: tuple[str, ...] = ()
    input_hash: str | None = None  # the input's content, when ``text`` is a synthesis
    rule: str | None = None  # overrides the decision's rule
    inherited: Inherited | None = None
    reward: float | None = None  # the utility of the nearest neighbour, for importance
    # The times it speaks of when settled by the caller (a synthesis of texts said at other
    # times: what they spoke of, as read then); None: read from the input now.
    times: tuple[TimeSpan, ...] | None = None
    # The memory whose last named person a leading pronoun of the text refers to, and the
    # coreference version that looked ("": none did).
    coref_of: str | None = None
    coref_policy: str = ""


def ingested_event(item: Item, text: str, memory_id: str, *, at: int, config: Config,
                   derived_from: tuple[str, ...], rule: str,
                   spoken_of: tuple[TimeSpan, ...] = ()) -> MemoryIngested:
    """A memory the engine synthesizes outside the gate (a conflict settled by ``merge``):
    ``spoken_of`` are the times the texts it joins spoke of."""
    creation = Creation(text, memory_id, content_hash(text), dedup_key(text),
                        gate.GateDecision("merge", rule), Near([], None, None),
                        derived_from=derived_from, rule=rule, times=spoken_of)
    return ingested(item, creation, at=at, config=config)


def with_labels(event: MemoryIngested, session_label: str | None,
                metadata: dict[str, Any] | None = None
                ) -> tuple[MemoryIngested, dict[str, Content]]:
    """``event`` with its caller labels (tags, refs, the session as given, the metadata) moved
    out of the event into a Labels document stored as content by ``caller_hash``: caller text
    that an erasure must be able to remove (the log is immutable). Nothing to move: no
    content."""
    if not (event.tags or event.refs or session_label or metadata):
        return event, {}
    document = _LABELS.encode(Labels(memory_id=event.memory_id, tags=event.tags,
                                     refs=event.refs, session=session_label,
                                     metadata=metadata or None)).decode()
    chash = content_hash(document)
    return (msgspec.structs.replace(event, tags=(), refs=(), caller_hash=chash),
            {chash: Content(document)})


_LABELS = msgspec.json.Encoder(order="deterministic")


def ingested(item: Item, creation: Creation, *, at: int, config: Config) -> MemoryIngested:
    """The ``memory.ingested`` event of a created memory: its kind (given or classified),
    valid-until for plans, importance from its channels, flashbulb status, and what it inherits."""
    text, decision, near, inherited = (creation.text, creation.decision, creation.near,
                                       creation.inherited)
    reward, rule = creation.reward, creation.rule
    classify_policy = item.classify_policy or classify.POLICY_VERSION
    kind, kind_rule = ((item.kind, "caller") if item.kind
                       else classified(text, classify_policy))
    # Recorded only where the classifier decided; classify-1, the first, is recorded as "".
    kind_policy = "" if item.kind or classify_policy == classify.CLASSIFY_1 else classify_policy
    if kind_rule == classify.DEFAULT_RULE:
        kind = config.default_kind
    if inherited is not None and not item.kind:
        kind, kind_rule, kind_policy = inherited.kind, "inherited", ""
    valid_from = item.valid_from
    valid_until, until_rule = item.valid_until, ""
    window = 0.0
    if valid_until is None and kind == "plan":  # only plans: "went to the gym today" stays true
        inferred = timebound.infer_valid_until(
            text, at, overdue=item.gate_policy not in gate.BEFORE_OVERDUE)
        if inferred is None and not times.times(text, at):
            # No time phrase at all: a short errand gets the default window, an ambition none.
            window = (config.formation.plan_window_days if item.plan_window_days is None
                      else item.plan_window_days)
            inferred = horizon.default_until(text, at, window)
        if inferred is not None:
            valid_until, until_rule = inferred
    best = near.window_best
    scored = importance.score(text, neighbour_similarity=None if best is None else best[1],
                              neighbour_utilities=[] if reward is None else [reward],
                              session_similarity=near.session_similarity,
                              params=config.importance)
    weight = scored.effective if item.importance is None else item.importance
    category_policy = (category.POLICY_VERSION if item.category_policy is None
                       else item.category_policy)
    held_as, category_rule = category.categorize(text, kind, kind_rule, category_policy)
    tier, tier_rule = category.tier_of(item.tier, item.session, held_as)
    stability = max(config.base_stability_days[kind],
                    config.categories.stability_days.get(held_as, 0.0))
    pinned, tags, refs = item.pinned, item.tags, item.refs
    if inherited is not None:  # a new version keeps what its predecessor had earned
        weight = max(weight, inherited.importance)
        stability = max(stability, inherited.stability)
        pinned = pinned or inherited.pinned
        tags = union(inherited.tags, tags)
        refs = union(inherited.refs, refs)
        if valid_from is None and decision.action == "merge":
            valid_from = inherited.valid_from
    # The times the input speaks of, read against when it was said (a synthesis of texts said
    # earlier keeps what they spoke of: its "yesterday" was theirs, not today's; an imported
    # memory's was when its first store recorded it).
    if creation.times is not None:
        spoken, times_policy = creation.times, times.NONE
    else:
        times_policy = times.POLICY_VERSION if item.times_policy is None else item.times_policy
        said = at if item.created_at is None else item.created_at  # an import's own time
        spoken = times.times(item.text, said, times_policy)
        if inherited is not None and decision.action == "merge":
            spoken = times.merged(inherited.times, spoken)
    emotion_policy = emotion.EMOTION_POLICY if item.emotion_policy is None \
        else item.emotion_policy
    felt = emotion.analyse(text, scored.channels["arousal"]) if emotion_policy \
        else emotion.Emotion(0.0, 0.0, "")
    if scored.flashbulb:  # a high-arousal memory: kept, important, slow to fade
        pinned = True
        weight = max(weight, importance.FLASHBULB_MIN_IMPORTANCE)
        stability *= importance.flashbulb_boost(config.importance, emotion_policy)
    return MemoryIngested(
        at=at, namespace=item.namespace, actor=item.source, memory_id=creation.memory_id,
        content_hash=creation.content_hash, dedup_key=creation.dedup_key,
        kind=cast(MemoryKind, kind), kind_rule=kind_rule, kind_policy=kind_policy,
        source=item.source, stability=stability, importance=weight,
        confidence=item.confidence, valid_from=valid_from, valid_until=valid_until,
        pinned=pinned, immutable=item.immutable, tags=tags, refs=refs,
        rule=rule or decision.rule, policy=decision.policy,
        tier=tier, session=item.session,
        priority=scored.priority, flashbulb=scored.flashbulb,
        importance_channels=tuple(scored.channels[c] for c in IMPORTANCE_CHANNELS),
        valid_until_rule=until_rule, plan_window_days=window, coref_of=creation.coref_of,
        coref_policy=creation.coref_policy, source_hash=item.source_hash, part=item.part,
        split_policy=item.split_policy, neighbour=decision.neighbour,
        similarity=None if decision.neighbour is None else round(decision.similarity, 6),
        derived_from=creation.derived_from, input_hash=creation.input_hash, links=creation.links,
        extractor=extract.EXTRACTOR_VERSION if item.extractor is None else item.extractor,
        created_at=item.created_at, times=spoken,
        times_policy=times_policy, valence=felt.valence, arousal=felt.arousal,
        emotion=felt.category, emotion_policy=emotion_policy, category=held_as,
        category_rule=category_rule, category_policy=category_policy, tier_rule=tier_rule)


def union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """``first`` then what ``second`` adds to it, in order, without repeats."""
    return first + tuple(x for x in second if x not in first)


def provisional_record(event: MemoryIngested, seq: int) -> MemoryRecord:
    """The record the state fold will create for ``event`` (for working-memory decisions)."""
    record = MemoryRecord(
        event.memory_id, event.namespace, event.content_hash, event.dedup_key, event.kind,
        event.kind_rule, event.source, event.stability, event.importance, event.confidence,
        event.pinned, event.immutable, event.valid_from, event.valid_until, event.tags,
        event.refs, event.at, seq, event.at, seq)
    record.tier, record.session = event.tier, event.session
    return record


def working_evictions(views: Projections, new: list[MemoryRecord], retired: set[str], at: int,
                       config: Config) -> list[TierChanged]:
    """Sessions over capacity lose their lowest-scoring working memories to episodic (one
    event per namespace). Memories the batch superseded have left their session already."""
    new = [r for r in new if r.memory_id not in retired]
    sessions = sorted({(r.namespace, r.session or "") for r in new if r.tier == "working"})
    changes: dict[str, list[TierChange]] = {}
    records = {r.memory_id: r for r in new}
    for ns, session in sessions:
        members = [views.state.memories[mid]
                   for mid in views.state.working.get(working_key(ns, session), ())
                   if mid not in retired]
        members += [r for r in new if r.namespace == ns and r.session == session
                    and r.tier == "working"]
        for mid in tiers.working_evictions(members, config.tiers.working_capacity, at,
                                           config.tiers):
            record = records.get(mid) or views.state.memories[mid]
            changes.setdefault(ns, []).append(TierChange(
                memory_id=mid, from_tier="working", to_tier="episodic", reason="working_capacity",
                decay_done=progress(record, at, config.decay)))
    return [TierChanged(at=at, namespace=ns, now=at, changes=tuple(found))
            for ns, found in sorted(changes.items())]


class Outcome(NamedTuple):
    """What happened to one item, for the caller."""

    memory_id: str | None  # None only when rejected
    action: Action
    event: int  # index (in Decided.events) of the event that records the decision
    rule: str
    reason: str = ""
    neighbour: str | None = None
    similarity: float | None = None
    conflict_id: str | None = None


class Decided(NamedTuple):
    """What a batch decided: its events, one outcome per item, and the content to store."""

    events: list[Event]
    outcomes: list[Outcome]  # one per item, in item order
    contents: dict[str, Content]  # content hash -> content to store with the events


TextOf = Callable[[str], str]
VectorOf = Callable[[str], np.ndarray]
Analyse = Callable[[str], Content]


def decide(views: Projections, items: Sequence[Item], contents: Mapping[str, Content],
           *, at: int, head: Head, config: Config, text_of: TextOf, vector_of: VectorOf,
           analyse: Analyse, contradiction: ContradictionJudge | None = None,
           linker: links_policy.LinkJudge | None = None,
           extractor: FactExtractor | None = None) -> Decided:
    """The events that record what each item means (see the module docstring). An item may
    carry ``gate_policy`` (the audit re-deciding a recorded item): ``gate-2`` re-decides its
    exact-text match as that version did; ``gate-2`` and ``gate-3`` look for no value difference
    and merge by appending sentences.

    ``contradiction`` and ``linker``: pluggable judges (None: the rules). Their answers are
    recorded in the events; a judge that raises fails the whole batch, before anything is
    appended (the store stays as it was). ``extractor``: the fact extractor that analysed the
    contents (its answers are the contents' extractions; named in the events)."""
    # Similarities feed decisions: one thread, one summation order. The cyclic collector
    # waits: the batch keeps what it reads until the end, so each collection while it decides
    # would walk the whole store's objects for little garbage (the batch is freed after).
    with single_thread(), paused_gc():
        batch = Batch(views, items, contents, at=at, head=head, config=config,
                      text_of=text_of, vector_of=vector_of, analyse=analyse,
                      contradiction=contradiction, linker=linker, extractor=extractor)
        for i, item in enumerate(items):
            batch.decide(i, item)
    batch.events += working_evictions(views, batch.new_records, batch.retired, at,
                                               config)
    return Decided(batch.events, batch.outcomes, batch.stored)


class Batch:
    """The decisions of one batch so far, and what later items must see of them."""

    def __init__(self, views: Projections, items: Sequence[Item],
                 contents: Mapping[str, Content], *, at: int, head: Head, config: Config,
                 text_of: TextOf, vector_of: VectorOf, analyse: Analyse,
                 contradiction: ContradictionJudge | None = None,
                 linker: links_policy.LinkJudge | None = None,
                 extractor: FactExtractor | None = None) -> None:
        self.views, self.contents, self.at, self.head = views, contents, at, head
        # Pluggable judges; None where the rules decide (the default: the inline code paths,
        # which parse claims once per batch and read a neighbour's text only when needed).
        self.judge = None if contradiction_judge.is_rules(contradiction) else contradiction
        self.linker = None if links_policy.is_rules(linker) else linker
        self.extractor = None if fact_judge.is_rules(extractor) else extractor
        # Recorded on each item's decision, so that an audit knows whose answers to replay.
        self.judge_refs = tuple(JudgeRef(role=role, judge=judge.judge_id) for role, judge
                                in (("contradiction", self.judge), ("facts", self.extractor),
                                    ("links", self.linker))
                                if judge is not None)
        self.judged: dict[int, float] = {}  # item -> confidence, where the judge found conflict
        self.item_index = 0  # the item being decided
        self.answers: dict[tuple[str, str], ContradictionAnswer] = {}  # the judge's, by texts
        self.config, self.params = config, config.gate
        self._text_of, self._vector_of, self.analyse = text_of, vector_of, analyse
        self.events: list[Event] = []
        self.outcomes: list[Outcome] = []
        self.stored: dict[str, Content] = {}
        self.new_records: list[MemoryRecord] = []  # as the fold will make them
        self.created: dict[str, MemoryIngested] = {}  # this batch's memories by id
        self.first_parts: dict[str, str] = {}  # a split text's hash -> its first clause's memory
        self.texts: dict[str, str] = {}  # this batch's memories' texts by id
        # Stored memories' texts read so far: gate-7 and plan reports read the same ones item
        # after item, and a memory's text does not change while the batch decides.
        self.stored_texts: dict[str, str] = {}
        self.metadata: dict[str, dict[str, Any]] = {}  # this batch's memories' metadata by id
        self.pending_slots: dict[str, str] = {}  # dedup slot -> id created earlier in the batch
        self.retired: set[str] = set()  # superseded earlier in the batch
        # Whether a stored memory is eligible, as gate-7's searches ask of hundreds a search:
        # the stored records do not change while the batch decides (retired is apart).
        self.eligible_stored: dict[str, bool] = {}
        self.stated_items: set[int] = set()  # items whose memory's valid_from its text gave
        # Hashes and dedup keys by text: an item's are read by several steps of its decision.
        # (functools.cache: computed once per text, for this batch only)
        self.hash_of, self.key_of = cache(content_hash), cache(dedup_key)
        self.queries = []
        for item in items:
            content = contents[self.hash_of(item.text)]
            self.queries.append(Query(item.namespace, self._vector(content),
                                      content.terms or b"", item.session))
        self.hood = Neighbourhood(views, self.queries, window=self.params.window,
                                  rare_terms=self.params.rare_terms,
                                  max_term_df=self.params.max_term_df,
                                  keep=max(1, self.params.max_links,
                                           self.params.conflict_neighbours))
        # Claims compared for contradictions (eventmem.write.batch), read once per batch:
        self.claims: dict[str, conflict.Claims] = {}  # by text: an item's, then its memory's
        self.claims_by_id: dict[str, conflict.Claims] = {}
        self._extracted: dict[str, tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]] = {}
        self.entity_memories: dict[tuple[str, str], list[str]] = {}  # the batch's, by entity
        self.queries_by_text = {item.text: q for item, q in zip(items, self.queries,
                                                                    strict=True)}
        self._vectors: dict[str, np.ndarray] = {}  # the batch's memories' vectors by id
        # The current item's latest memories per attribute (by inferred_names), read once.
        self.latest_facts: dict[bool, list[tuple[facts.Fact, tuple[str, str]]]] = {}
        # What gate-7 reads of the stored memories, kept from item to item (see BatchFacts).
        self.readers: dict[tuple[str, bool, int], BatchFacts] = {}
        # By namespace, words, dated and reader edition; whose a name is by namespace,
        # inferred_names, name and reader edition.
        self.found: dict[tuple[str, str, bool, int], dict[str, Stated]] = {}
        self.users: dict[tuple[str, bool, str, int], bool] = {}
        # The texts a search found, where the texts are read first (whose a name is), by the
        # same keys as ``found``.
        self.texts_found: dict[tuple[str, str, bool, int], dict[str, str]] = {}
        # The batch's memories by namespace, in order, and those of them stating facts (read
        # when gate-7 first asks, up to the count read).
        self.created_in: dict[str, list[str]] = {}
        self.plans_in: dict[str, list[str]] = {}  # the batch's plans by namespace, in order
        self.plan_objects: dict[tuple[str, bool], tuple[str, ...]] = {}  # see _plan_objects
        # The batch's plans by namespace and object word (see _plan_done).
        self.plan_words: dict[str, dict[str, set[str]]] = {}
        self.stating_in: dict[tuple[str, int], dict[str, Stated]] = {}  # by (ns, edition)
        self.read_in: dict[tuple[str, int], int] = {}

    # -- one item -----------------------------------------------------------------------------

    def decide(self, i: int, item: Item) -> None:
        """Decide item ``i``, appending its events; later items see them."""
        self.item_index = i
        first = len(self.events)
        self._decide(i, item)
        self._note_input(first, i, item)

    def stated_start(self, item: Item) -> int | None:
        """The start of the past day ``item``'s text says its fact began ("yesterday I
        moved..."), when the caller gave no valid_from and the text names one
        (:mod:`eventmem.policies.stated`); else None. Only a memory created as it is reads it:
        the gate, contradictions and their settlement go by the time of recording, since a
        late "two weeks ago I moved" must still win over what was said in between."""
        if item.valid_from is not None or item.gate_policy in gate.OPEN_VALID_FROM:
            return None
        kind: str | None = item.kind
        if not kind:
            kind, kind_rule = classified(item.text, classifier(item))
            if kind_rule == classify.DEFAULT_RULE:
                kind = self.config.default_kind
        start, rule = stated.valid_from(item.text, kind, self.at)
        return start if rule == stated.STATED else None

    def _note_input(self, first: int, i: int, item: Item) -> None:
        """Record on the item's first event (the one that states its decision) what an audit
        needs to re-run the decision and that the event does not show otherwise."""
        event = self.events[first]
        noted: dict[str, Any] = {"item": i} if i else {}
        if isinstance(event, MemoryIngested):
            if item.importance is not None:
                noted["given_importance"] = item.importance
            if item.valid_from is None and event.valid_from is not None:
                noted["valid_from_rule"] = (
                    stated.STATED if i in self.stated_items
                    else "inherited" if event.rule == "near_duplicate_merge"
                    else stated.RECORDED)
        elif isinstance(event, MemoryReinforced | MemorySkipped):
            if item.valid_from is not None:
                noted["input_valid_from"] = item.valid_from
            if item.valid_until is not None:
                noted["input_valid_until"] = item.valid_until
        if self.judge_refs and isinstance(event, MemoryIngested | MemoryReinforced
                                          | MemorySkipped):
            noted["judges"] = self.judge_refs
        if noted:
            self.events[first] = msgspec.structs.replace(event, **noted)

    def _decide(self, i: int, item: Item) -> None:
        text, ns = item.text, item.namespace
        self.latest_facts.clear()  # read once per item: nothing is appended while it decides
        rejection = observer.screen(text, self.config.observer)
        if rejection is not None:
            self.events.append(MemoryRejected(
                at=self.at, namespace=ns, actor=item.source, reason=rejection.reason,
                rule=rejection.rule, length=len(text), policy=observer.OBSERVER_VERSION))
            self.outcome(None, "rejected", rejection.rule, reason=rejection.reason)
            return
        chash = self.hash_of(text)
        if item.replaces is not None or item.created_at is not None:
            self._given(i, item, chash)  # the caller's own version, or an import: no gate
            return
        slot = dedup_slot(ns, self.key_of(text))
        exact = self.pending_slots.get(slot) or self.views.state.by_dedup.get(slot)
        if exact in self.retired or (item.gate_policy != gate.GATE_2 and exact is not None
                                     and not eligible(self.views.state.memories.get(exact))):
            exact = None  # superseded in this batch, or expired: the text is news again
        reads_facts = self.params.mode != "exact" and item.gate_policy not in gate.BEFORE_FACTS
        if exact is not None and reads_facts and changed_since(self, item, exact):
            exact = None  # an older value said again after it changed: news, not a repeat
        near = self.hood.near(i, self.queries[i])
        nearest = self.neighbour(near.ranked[0]) if near.ranked and exact is None else None
        contradicted, found = (None, None) if exact is not None or self.params.mode == "exact" \
            else contradiction(self, item, near)
        if found is None and exact is None and reads_facts:
            contradicted, found = new_value(self, item)
        adds = nearest is not None and self._adds_information(nearest, text)
        decision = gate.decide(exact, nearest, adds_information=adds, contradicted=contradicted,
                               params=self.params)
        if nearest is not None and decision.neighbour == nearest.memory_id \
                and decision.action in ("reinforce", "skip", "merge") \
                and item.gate_policy not in gate.BEFORE_VALUES:
            # Only a text the gate would absorb needs the comparison (it reads the neighbour).
            value = values.value_difference(self.text_of(nearest.memory_id), text)
            if value is not None:
                decision = gate.decide(exact, nearest, adds_information=adds,
                                       contradicted=contradicted, params=self.params,
                                       value=value)
        if reads_facts and decision.neighbour is not None \
                and decision.action in ("reinforce", "skip", "merge") \
                and changed_since(self, item, decision.neighbour):
            # A value said again (in these words or others) after it changed is news again.
            decision = gate.GateDecision("create", "value_changed_since", decision.neighbour,
                                         decision.similarity)
        done = None if item.gate_policy in gate.BEFORE_PLANS else self._plan_done(item)
        absorbing = ("reinforce", "skip", "merge") if item.gate_policy in gate.BEFORE_DONE_UPDATES \
            else ("reinforce", "skip", "merge", "update")
        if done is not None and decision.neighbour == done[0] and decision.action in absorbing:
            # A report of the plan done is news about it, never a repeat of it, nor the plan
            # carried on (gate-12: an update would make the report a plan).
            decision = gate.GateDecision("create", done[1].rule)
        if item.gate_policy not in gate.BEFORE_PARTS and self._says_more(item, decision):
            decision = gate.GateDecision("create", "says_more", decision.neighbour,
                                         decision.similarity)
        outcomes = len(self.outcomes)
        match decision.action:
            case "reinforce" | "skip":
                self._absorbed(item, chash, decision)
            case "merge":
                self._merge(i, item, chash, decision, near)
            case "update":
                self._update(i, item, chash, decision, near)
            case "conflict":
                assert found is not None
                settle(self, i, item, chash, decision, near, found)
            case _:
                corrected = None if done is not None \
                    or item.gate_policy in gate.BEFORE_CORRECTIONS else self._corrects(item, near)
                if corrected is not None and item.gate_policy not in gate.BEFORE_CLAUSES \
                        and facts.keeps_apart(self.text_of(corrected[0]), item.text,
                                              reader_edition(item)):
                    # gate-20: a correction of part of what a memory says leaves the rest
                    # (the seat, when the time of the flight was misread) current beside it.
                    corrected = None
                # gate-13: a correction is a new version of what it corrects (see GATE_VERSION).
                version_of = None if corrected is None \
                    or item.gate_policy in gate.BEFORE_CORRECTION_KINDS else corrected[0]
                memory_id = self.create(i, item, text, chash, decision, near,
                                        version_of=version_of)
                self.outcome(memory_id, "created", decision.rule, neighbour=decision.neighbour,
                             similarity=decision.similarity if decision.neighbour else None)
                if corrected is not None:
                    old, rule, similarity = corrected
                    self.supersede(old, memory_id, item.valid_from or self.at, rule, similarity,
                                   item)
                    self.outcomes[-1] = self.outcomes[-1]._replace(
                        action="superseded", rule=rule, neighbour=old, similarity=similarity)
        by = self.outcomes[outcomes].memory_id if len(self.outcomes) > outcomes else None
        if done is not None and by is not None and by != done[0] and done[0] not in self.retired:
            self._close_plan(item, done[0], by, done[1])

    def _says_more(self, item: Item, decision: gate.GateDecision) -> bool:
        """gate-18: whether ``decision`` would replace its neighbour (an update, or a
        contradiction the strategy settles for the new text) for part of what the neighbour
        says: the two state an attribute in common, and the neighbour another the item leaves
        out (:func:`eventmem.policies.facts.says_more`); from gate-20 also when the neighbour
        holds a clause of values the item leaves untouched (:func:`facts.keeps_apart`)."""
        old = decision.neighbour
        if old is None or decision.action not in ("update", "conflict"):
            return False
        if decision.action == "conflict":
            old_from, old_immutable = self.valid_from_and_immutable(old)
            winner = gate.resolve(item.on_conflict or self.params.strategy,
                                  existing_valid_from=old_from,
                                  new_valid_from=item.valid_from or self.at,
                                  existing_immutable=old_immutable).winner
            if winner != "new":
                return False  # kept, merged or left open: nothing the old one says is lost
        edition = reader_edition(item)
        text = self.text_of(old)
        if item.gate_policy not in gate.BEFORE_CLAUSES \
                and facts.keeps_apart(text, item.text, edition):
            return True  # gate-20: a clause of values the item leaves untouched
        new = facts_of(item.text, edition)
        said = facts_of(text, edition)
        shared = {(f.attribute, f.qualifier) for f in new} \
            & {(f.attribute, f.qualifier) for f in said}
        named = _named_more(text, None if item.gate_policy in gate.BEFORE_NAMES else item.text)
        return bool(shared) and facts.says_more(said, new, named)

    def _corrects(self, item: Item, near: Near) -> tuple[str, str, float] | None:
        """gate-8: a correction ("actually...", "should be...") supersedes what it corrects:
        the nearest of its first ``correction_neighbours`` neighbours that is at least
        ``correction_similarity`` similar, not immutable, and differs from it in a value (the
        evidence, in the rule: ``correction:<value kind>``). Gate-7 value supersession already
        settles a person's attribute restated; this covers any other corrected statement.
        (memory id, rule, similarity) of what it corrects, read before the item is created;
        None if it corrects nothing."""
        phrasings = item.gate_policy not in gate.BEFORE_PHRASINGS
        taken_back = self._taken_back(item) if phrasings else None
        if taken_back is not None:
            return taken_back
        if not (category.is_correction(item.text)
                or (phrasings and corrections.takes_back(item.text, reader_edition(item)))):
            return None
        for old, similarity in near.ranked[:self.params.correction_neighbours]:
            if similarity < self.params.correction_similarity:
                return None
            if old in self.retired or self.valid_from_and_immutable(old)[1]:
                continue
            value = values.value_difference(self.text_of(old), item.text)
            if value is not None:
                return old, f"correction:{value}", round(similarity, 6)
        return None

    def _taken_back(self, item: Item) -> tuple[str, str, float] | None:
        """gate-12: a correction naming the value it takes back ("No wait, I meant Denver, not
        Bristol") supersedes the newest of the namespace's last ``correction_recent`` memories
        that holds that value (what was just said), unless immutable; the rule
        ``correction:taken_back`` is the evidence. (memory id, rule, similarity), or None."""
        text = item.text
        edition = reader_edition(item)
        if not (category.is_correction(text) or corrections.takes_back(text, edition)):
            return None
        wrong = corrections.taken_back(text, edition)
        if wrong is None:
            return None
        ns, recent = item.namespace, self.params.correction_recent
        space = self.views.vectors.spaces.get(ns)
        stored = space.ids[max(0, space.count - recent):space.count] if space else []
        # What was just said, before the item itself is created.
        latest = [*stored, *self.created_in.get(ns, [])][-recent:] if recent else []
        for old in reversed(latest):
            if old in self.retired \
                    or not (old in self.created or eligible(self.views.state.memories.get(old))):
                continue
            if not corrections.holds(self.text_of(old), wrong) \
                    or self.valid_from_and_immutable(old)[1]:
                continue
            vector = self.queries_by_text[text].vector
            similarity = round(float(self.vector_of(old) @ vector), 6)
            return old, "correction:taken_back", similarity
        return None

    def _given(self, i: int, item: Item, chash: str) -> None:
        """An item whose fate the caller decided: ``update(memory_id, text)`` (a new version
        superseding the memory it replaces, from now on) or an imported memory (created as
        exported: the store it came from settled it already). The gate does not judge them;
        they still link to their neighbours."""
        near = self.hood.near(i, self.queries[i])
        old = item.replaces
        if old is None:
            memory_id = self.create(i, item, item.text, chash,
                                    gate.GateDecision("create", IMPORTED), near)
            self.outcome(memory_id, "created", IMPORTED)
            return
        similarity = round(float(np.dot(self.queries[i].vector, self.vector_of(old))), 6)
        self._update(i, item, chash, gate.GateDecision("update", CALLER_UPDATE, old,
                                                       similarity), near)

    def _plan_done(self, item: Item) -> tuple[str, plans.Completion] | None:
        """The open plan of the item's namespace that its text reports done, with the
        evidence: among the plans sharing its words (BM25, best first), the first whose verb and
        object the text reports done (:func:`eventmem.policies.plans.completes`)."""
        if not plans.may_report_done(item.text):  # most texts: no plan to look for
            return None
        memories, ns = self.views.state.memories, item.namespace

        def open_plan(memory_id: str) -> bool:
            record = memories.get(memory_id)
            return record is not None and record.kind == "plan" and eligible(record) \
                and memory_id not in self.retired

        phrasings = item.gate_policy not in gate.BEFORE_PHRASINGS
        found = [mid for mid, _ in self.views.text.search_plans(ns, item.text, PLAN_CANDIDATES,
                                                               open_plan)]
        lowered = item.text.lower()
        # The batch's plans, latest first, that have an object word in the text (the check
        # below skips the others): looked up by word, not plan after plan, since a large
        # batch holds hundreds of plans.
        named = {mid for word, ids in self.plan_words.get(ns, {}).items() if word in lowered
                 for mid in ids}
        found += [mid for mid in reversed(self.plans_in.get(ns, ()))
                  if mid in named and mid not in self.retired]
        for memory_id in found:
            # completes() needs one of the plan's object words in the text: skip it otherwise
            # (the words of its whole text: a superset of those of its sentence, gate-11).
            if not any(word in lowered for word in self._plan_objects(memory_id,
                                                                      listed=phrasings)):
                continue
            completion = plans.completes(
                self.text_of(memory_id), item.text,
                one_sentence=item.gate_policy not in gate.BEFORE_PLAN_SENTENCES,
                passive=item.gate_policy not in gate.BEFORE_PHRASINGS,
                pronoun=reader_edition(item) >= facts.EDITION_5,
                i_am=reader_edition(item) >= facts.EDITION_6,
                causative=reader_edition(item) >= facts.EDITION_7)
            if completion is not None:
                return memory_id, completion
        return None

    def _plan_objects(self, memory_id: str, *, listed: bool) -> tuple[str, ...]:
        """The object words of a plan's intended action (none: it names no action), kept for
        the batch: every report of something done is compared with the batch's plans so far,
        and each plan's text and action stay what they are while the batch decides.
        ``listed``: a task after a reminder or a to-do label counts too (gate-12)."""
        objects = self.plan_objects.get((memory_id, listed))
        if objects is None:
            action = plans.plan_action(self.text_of(memory_id), listed=listed)
            objects = self.plan_objects[memory_id, listed] = () if action is None \
                else tuple(action.objects)
        return objects

    def _close_plan(self, item: Item, plan_id: str, by: str,
                    completion: plans.Completion) -> None:
        """Record the plan done: superseded by the report, its valid time ended when the
        report says (its valid-from) or now, the evidence stored as content beside it."""
        evidence = msgspec.json.encode(PlanEvidence(verb=completion.verb,
                                                    matched=completion.matched)).decode()
        evidence_hash = content_hash(evidence)
        self.stored.setdefault(evidence_hash, Content(evidence))
        self.supersede(plan_id, by, item.valid_from or self.at, completion.rule,
                       completion.overlap, item)
        event = self.events[-1]
        assert isinstance(event, MemorySuperseded)
        self.events[-1] = msgspec.structs.replace(event, content_hash=evidence_hash)

    def _absorbed(self, item: Item, chash: str, decision: gate.GateDecision) -> None:
        """Reinforce or skip: the input is kept as its blob (the evidence), no memory is made."""
        target = decision.neighbour
        assert target is not None
        ns, source = item.namespace, item.source
        self.stored.setdefault(chash, self.contents[chash])
        if decision.action == "reinforce":
            record = self.views.state.memories.get(target)
            self.events.append(MemoryReinforced(
                at=self.at, namespace=ns, actor=source, memory_id=target, content_hash=chash,
                similarity=decision.similarity, rule=decision.rule, policy=decision.policy,
                stability=None if record is None else stability_after_access(
                    record, self.at, self.config.decay)))
            self.outcome(target, "reinforced", decision.rule, neighbour=target,
                         similarity=decision.similarity)
        else:
            self.events.append(MemorySkipped(
                at=self.at, namespace=ns, actor=source, memory_id=target, content_hash=chash,
                similarity=decision.similarity, rule=decision.rule, policy=decision.policy))
            self.outcome(target, "skipped", decision.rule, neighbour=target,
                         similarity=decision.similarity)

    def _merge(self, i: int, item: Item, chash: str, decision: gate.GateDecision,
               near: Near) -> None:
        old = decision.neighbour
        assert old is not None
        synthesis = merge.appended_text if item.gate_policy in gate.BEFORE_VALUES \
            else merge.merged_text
        text = synthesis(self.text_of(old), item.text)
        memory_id = self.create(i, item, text, chash, decision, near, derived_from=old)
        self.outcome(memory_id, "merged", decision.rule, neighbour=old,
                     similarity=decision.similarity)
        # The facts carry on in the merged memory: the old one's valid time does not end.
        self.supersede(old, memory_id, None, "merged", decision.similarity, item)

    def _update(self, i: int, item: Item, chash: str, decision: gate.GateDecision,
                near: Near) -> None:
        old = decision.neighbour
        assert old is not None
        starts = item.valid_from or self.at
        memory_id = self.create(i, item, item.text, chash, decision, near, derived_from=old,
                                valid_from=starts)
        self.outcome(memory_id, "updated", decision.rule, neighbour=old,
                     similarity=decision.similarity)
        self.supersede(old, memory_id, starts, decision.rule, decision.similarity, item)

    # -- creating -----------------------------------------------------------------------------

    def create(self, i: int, item: Item, text: str, input_hash: str,
               decision: gate.GateDecision, near: Near, *, derived_from: str | None = None,
               rule: str | None = None, valid_from: int | None = None,
               version_of: str | None = None) -> str:
        """A new memory holding ``text`` (the input, or a synthesis of it and ``derived_from``);
        ``version_of``: the memory it corrects, whose kind, importance and stability it keeps
        as a merge or an update does (without deriving from it: erasing the slip leaves the
        correction)."""
        ns = item.namespace
        memory_id = self.new_id("mem", i)
        content = self.contents[input_hash] if text == item.text else self.analyse(text)
        chash = self.hash_of(text)
        extracted = self.extract(text, content)
        self.stored.setdefault(chash, content)
        if chash != input_hash:
            self.stored.setdefault(input_hash, self.contents[input_hash])
        inherited = self._inherited(derived_from or version_of)
        if valid_from is None and item.valid_from is None \
                and item.gate_policy not in gate.OPEN_VALID_FROM:
            # Never valid before it was stated: from the day its text names, else from now,
            # or, for a merge, from when the memory it carries on began (its valid_from, else
            # when it was recorded).
            if derived_from is not None and decision.action == "merge":
                valid_from = self.valid_from_and_immutable(derived_from)[0]
            else:
                valid_from = self.stated_start(item) if text == item.text else None
                if valid_from is None:
                    valid_from = self.at
                else:
                    self.stated_items.add(i)
        if valid_from is not None:
            item = msgspec.structs.replace(item, valid_from=valid_from)
        policy = item.coref_policy if item.coref_policy is not None \
            else coref.POLICY_VERSION if self.config.formation.coreference else ""
        person = self.antecedent(item, extracted[0]) if policy and text == item.text else None
        creation = Creation(
            text, memory_id, chash, self.key_of(text), decision, near,
            self._links(near, text, extracted[0], ns, person),
            derived_from=(derived_from,) if derived_from else (),
            input_hash=input_hash if chash != input_hash else None, rule=rule,
            inherited=inherited, reward=self._utility(near),
            coref_of=None if person is None else person[0],
            coref_policy=policy if text == item.text else "")
        first = self.first_parts.get(item.source_hash or "") if item.part else None
        if first is not None and derived_from is None:
            # A later clause of a compound statement: derived from the first clause's memory
            # (erasing what the caller was given erases it too), and linked to it.
            creation = creation._replace(
                derived_from=(first,),
                links=(*(link for link in creation.links if link.target != first),
                       MemoryLink(target=first, relation="part_of", weight=1.0)))
        carried = caller_metadata.merged(inherited.metadata if inherited else None, item.metadata)
        made = ingested(item, creation, at=self.at, config=self.config)
        if self.extractor is not None:  # its content was analysed by the fact extractor
            made = msgspec.structs.replace(made, extractor=self.extractor.judge_id)
        event, labels = with_labels(made, item.session_label, carried)
        if carried:
            self.metadata[memory_id] = carried
        self.stored.update(labels)
        self.events.append(event)
        self.created[memory_id] = event
        if item.source_hash is not None and item.part == 0:
            self.first_parts[item.source_hash] = memory_id
        if event.kind == "plan":
            self.plans_in.setdefault(ns, []).append(memory_id)
        self.texts[memory_id] = text
        if event.kind == "plan":
            words = self.plan_words.setdefault(ns, {})
            # (with listed tasks: a superset of the words, checked again per gate)
            for word in self._plan_objects(memory_id, listed=True):
                words.setdefault(word, set()).add(memory_id)
        self.created_in.setdefault(ns, []).append(memory_id)
        for entity in extracted[0]:
            self.entity_memories.setdefault((ns, entity.key), []).append(memory_id)
        self.pending_slots[dedup_slot(ns, event.dedup_key)] = memory_id
        self._vectors[memory_id] = self._vector(content)
        self.hood.add(ns, memory_id, self._vectors[memory_id], content.terms or b"",
                      item.session)
        self.new_records.append(
            provisional_record(event, self.head.seq + len(self.events)))
        return memory_id

    def supersede(self, old: str, by: str, until: int | None, rule: str, similarity: float,
                  item: Item, conflict_id: str | None = None) -> None:
        """Record that ``by`` supersedes ``old`` (valid until ``until``) and retire ``old``."""
        self.retired.add(old)
        self.hood.retire(old)
        if old in self.views.state.memories:  # what gate-7 found among the stored may change
            self._forget(old)
        self.events.append(MemorySuperseded(
            at=self.at, namespace=item.namespace, actor=item.source, memory_id=old, by=by,
            until=until, rule=rule, similarity=similarity, conflict_id=conflict_id,
            policy=gate.GATE_VERSION))

    def _inherited(self, old: str | None) -> Inherited | None:
        """What a merged or updated memory keeps of the one it replaces."""
        if old is None:
            return None
        record = self.views.state.memories.get(old)
        source: Any = record if record is not None else self.created[old]
        spoken = self.views.temporal.intervals[old].times if record is not None \
            else source.times
        return Inherited(kind=source.kind, pinned=source.pinned, importance=source.importance,
                         stability=source.stability, tags=source.tags, refs=source.refs,
                         valid_from=source.valid_from, times=spoken,
                         metadata=record.metadata if record is not None
                         else self.metadata.get(old))

    def antecedent(self, item: Item, entities: tuple[EntityRef, ...]) -> tuple[str, str] | None:
        """(memory id, person key) of the person the item's session named last, when its text
        opens a sentence with a pronoun that names no one before it; else None. The session:
        the item's (or, without one, the memories without one recorded within
        ``context_gap_s``), looking back at most ``coref_lookback`` memories of the namespace,
        the batch's own first, newest first. Never "I": only named people are antecedents."""
        text = item.text
        if coref.PRONOUN.search(text) is None:
            return None
        spans, speaker_end = extract.person_spans(text, entities)
        if not coref.unresolved(text, [span for span, _ in spans], speaker_end):
            return None
        ns, lookback = item.namespace, self.config.formation.coref_lookback
        gap = round(self.config.context_gap_s * 1_000_000)
        space = self.views.vectors.spaces.get(ns)
        stored = space.ids[max(0, space.count - lookback):space.count] if space else []
        candidates = [*stored, *self.created_in.get(ns, [])][-lookback:] if lookback else []
        for mid in reversed(candidates):
            made = self.created.get(mid)
            if made is not None:
                session, when = made.session, made.at
            elif (record := self.views.state.memories.get(mid)) is not None:
                session, when = record.session, record.created_at
            else:
                continue
            if session != item.session or (item.session is None and self.at - when > gap):
                continue
            try:
                earlier = self.text_of(mid)
            except (KeyError, LookupError):  # its text is gone (purged or erased)
                continue
            named, speaker = extract.person_spans(earlier, extract.extract(earlier)[0])
            key = coref.last_person(named, speaker)
            if key is not None:
                return mid, key
        return None

    def _links(self, near: Near, text: str, entities: tuple[EntityRef, ...], ns: str,
               person: tuple[str, str] | None = None) -> tuple[MemoryLink, ...]:
        """Links to other memories, decided now and recorded (the graph folds them):

        * ``elaborates`` the nearest memory when it is at least ``elaborates_similarity`` alike
          and the new text holds all its content words and more, ``causes`` it when the new
          text gives a reason ("because", "so"...), else
          ``related_to`` it and the next nearest above ``link_similarity`` (weight: cosine);
        * ``same_entity`` the latest memories naming one of its entities (weight 0.5), and
          the person a leading pronoun refers to (``person``: the memory that named them
          and their key), whose memories it is about too.

        A link judge other than the rules (``self.linker``) decides the first kind instead
        (:mod:`eventmem.policies.links`); its links are what the event records.
        """
        found: dict[str, MemoryLink] = {}
        floor = self.params.link_similarity
        nearest = list(takewhile(lambda pair: pair[1] >= floor,
                                 near.ranked[: self.params.max_links]))
        if self.linker is not None:
            question = links_policy.LinkQuestion(text=text, candidates=tuple(
                links_policy.LinkCandidate(memory_id=mid, text=self.text_of(mid),
                                           similarity=round(sim, 6)) for mid, sim in nearest))
            for link in links_policy.judged_links(self.linker.links(question), question):
                found[link.target] = link
        else:
            for rank, (mid, sim) in enumerate(nearest):
                relation = links_policy.rule_relation(
                    rank, sim, text, functools.partial(self.text_of, mid),
                    self.params.elaborates_similarity)
                found[mid] = MemoryLink(target=mid, relation=relation, weight=round(sim, 6))
        keys = [e.key for e in entities]
        if person is not None and person[1] not in keys:
            keys.append(person[1])
        for key in keys:
            if key == extract.SELF_KEY:  # the speaker: in nearly every memory
                continue
            for mid in self.memories_naming(ns, key, self.params.max_links):
                if mid not in found and mid not in self.retired \
                        and eligible(self.views.state.memories.get(mid)):
                    found[mid] = MemoryLink(target=mid, relation="same_entity", weight=0.5)
        return tuple(found.values())

    def facts_reader(self, ns: str, inferred_names: bool, edition: int) -> BatchFacts:
        """The namespace's stored memories read as facts by gate-7 (with the reader's
        ``edition``), leaving out what the batch retired."""
        reader = self.readers.get((ns, inferred_names, edition))
        if reader is None:
            memories, known = self.views.state.memories, self.eligible_stored

            def usable(memory_id: str) -> bool:
                if memory_id in self.retired:
                    return False
                found = known.get(memory_id)
                if found is None:
                    found = known[memory_id] = eligible(memories.get(memory_id))
                return found

            reader = self.readers[ns, inferred_names, edition] = BatchFacts(
                self, ns, lambda ids: [self.text_of(m) for m in ids], usable,
                inferred_names=inferred_names, edition=edition)
        return reader

    def _forget(self, old: str) -> None:
        """Drop what gate-7 read of the stored memories that retiring ``old`` changes: a
        search's answer (the best 200 allowed, by score then row) changes only if it held
        ``old``, and whose a name is only if the search for the name held it. The searches
        leave plans out after choosing the best 200, so a plan retired drops them all."""
        record = self.views.state.memories[old]
        if record.kind == "plan":
            self.found.clear()
            self.texts_found.clear()
        else:
            for key in [key for key, found in self.found.items() if old in found]:
                del self.found[key]
            for key in [key for key, texts in self.texts_found.items() if old in texts]:
                del self.texts_found[key]
        # Whose a name is holds while the search for the name it read holds.
        self.users = {key: known for key, known in self.users.items()
                      if (key[0], key[2], False, key[3]) in self.texts_found}
        self.readers.clear()  # they remember names: readers are made again, cheaply

    def created_stating(self, ns: str, edition: int) -> dict[str, Stated]:
        """The batch's memories of the namespace that state facts (read with the reader's
        ``edition``), in order, with their texts and facts (one that states none is never the
        latest of an attribute, nor names anyone)."""
        ids, known = self.created_in.get(ns, []), self.stating_in.setdefault((ns, edition), {})
        for mid in ids[self.read_in.get((ns, edition), 0):]:
            text = self.texts[mid]
            stated = facts_of(text, edition)
            if stated:
                known[mid] = (text, stated)
        self.read_in[ns, edition] = len(ids)
        return known

    def memories_naming(self, ns: str, key: str, last: int) -> list[str]:
        """The latest ``last`` memories naming entity ``key``, oldest first, the batch's own
        included (a slice: an entity may be named by thousands)."""
        batch = self.entity_memories.get((ns, key), [])
        _, stored = graph_view.latest_memories(self.views.graph, ns, key, last)
        return [*stored, *batch][-last:]

    def extract(self, text: str, content: Content | None = None
                ) -> tuple[tuple[EntityRef, ...], tuple[RelationRef, ...]]:
        """The entities and relations of a text, as analysed with its content (the engine
        extracts once, when it analyses a text for storage)."""
        found = self._extracted.get(text)
        if found is None:
            content = content or self.contents[self.hash_of(text)]
            extraction = _EXTRACTION.decode(content.extraction) if content.extraction \
                else _NOTHING
            found = self._extracted[text] = (extraction.entities, extraction.relations)
        return found

    # -- evidence -----------------------------------------------------------------------------

    def _adds_information(self, nearest: gate.Neighbour, text: str) -> bool:
        # Only a near duplicate needs the answer; reading the neighbour's text costs a lookup.
        sim = nearest.similarity
        if self.params.mode != "tiered" or not (
                self.params.near_duplicate <= sim < self.params.duplicate):
            return False
        return merge.adds_information(self.text_of(nearest.memory_id), text)

    def neighbour(self, ranked: tuple[str, float]) -> gate.Neighbour:
        """A ranked candidate as the gate sees it: id, similarity, immutable."""
        mid, sim = ranked
        return gate.Neighbour(mid, sim, self.valid_from_and_immutable(mid)[1])

    def valid_from_and_immutable(self, memory_id: str) -> tuple[int, bool]:
        """When a memory (stored or created in this batch) became valid, and whether it is
        immutable."""
        record = self.views.state.memories.get(memory_id)
        source: Any = record if record is not None else self.created[memory_id]
        created = record.created_at if record is not None else self.at
        return (source.valid_from if source.valid_from is not None else created,
                source.immutable)

    def _utility(self, near: Near) -> float | None:
        if near.window_best is None:
            return None
        record = self.views.state.memories.get(near.window_best[0])
        return record.utility if record is not None else 0.5

    def text_of(self, memory_id: str) -> str:
        """The text of a memory, stored or created in this batch."""
        text = self.texts.get(memory_id) or self.stored_texts.get(memory_id)
        if text is None:
            text = self.stored_texts[memory_id] = self._text_of(memory_id)
        return text

    def vector_of(self, memory_id: str) -> np.ndarray:
        """The vector of a memory, stored or created in this batch."""
        vector = self._vectors.get(memory_id)
        return vector if vector is not None else self._vector_of(memory_id)

    def outcome(self, memory_id: str | None, action: Action, rule: str, *, reason: str = "",
                neighbour: str | None = None, similarity: float | None = None,
                conflict_id: str | None = None, event: int | None = None) -> None:
        """Record the outcome the caller is told for the current item."""
        # Called        # Called right after the event that records the decision was appended.
        index = len(self.events) - 1 if event is None else event
        self.outcomes.append(Outcome(memory_id, action, index, rule, reason, neighbour,
                                     None if similarity is None else round(similarity, 6),
                                     conflict_id))

    def new_id(self, prefix: str, index: int) -> str:
        """An id derived from the chain head and the item's position: unique (the head changes
        with every append) and reproducible, so tests and replays see the same ids."""
        memories, salt = self.views.state.memories, 0
        while True:
            digest = hashlib.blake2b(self.head.hash + f"{prefix}:{index}:{salt}".encode(),
                                     digest_size=8).hexdigest()
            new_id = f"{prefix}_{digest}"
            if new_id not in memories and new_id not in self.created \
                    and new_id not in self.views.state.conflicts:
                return new_id
            salt += 1

    @staticmethod
    def _vector(content: Content) -> np.ndarray:
        return np.frombuffer(content.vector or b"", dtype=np.float32)


Stated = tuple[str, tuple[facts.Fact, ...]]  # a memory's text and the facts it states

_EXTRACTION = msgspec.msgpack.Decoder(Extraction)
_NOTHING = Extraction()


# A write batch's contradictions: the neighbour a new text contradicts, and the conflict recorded.
#
# :func:`contradiction` finds, for an item, the first of its nearest memories (or the latest naming
# the same entities) whose claims it contradicts over an overlapping valid time
# (:mod:`eventmem.policies.conflict.detect` compares the claims); the gate
# (:mod:`eventmem.policies.gate`) then decides it is a conflict. :func:`settle` records one: the
# new memory, ``conflict.flagged`` with its evidence, and the settlement by the item's strategy
# (``conflict.resolved`` and the loser's supersession), or the conflict left open. Both work on
# the :class:`Batch`, whose later items see what they record.


def contradiction(batch: Batch, item: Item, near: Near
                  ) -> tuple[gate.Neighbour | None, conflict.Contradiction | None]:
    """The first of the nearest memories (similar enough to be about the same thing) that
    the new text contradicts, and the contradiction's evidence. Facts whose valid times do
    not overlap never conflict: "lived in London until March" and "lives in Berlin since
    March" are history, not a contradiction."""
    if batch.judge is not None:
        return _judged_contradiction(batch, item, near)
    new_claims = _claims_in(batch, item.text)
    if not new_claims.items:  # most texts state nothing comparable: no lookups
        return None, None
    interval = (item.valid_from, item.valid_until)
    for mid, sim in _candidates(batch, item, near):
        if mid in batch.retired or not _overlap(interval, _interval(batch, mid)):
            continue
        found = conflict.detect(new_claims, _claims_of(batch, mid))
        if found is not None:
            return batch.neighbour((mid, sim)), found
    return None, None


def _judged_contradiction(batch: Batch, item: Item, near: Near
                          ) -> tuple[gate.Neighbour | None, conflict.Contradiction | None]:
    """:func:`contradiction` as a pluggable judge decides it: the same candidates, each asked
    about (no claims needed first: a model may see what the rules cannot parse). Its confidence
    is kept for the conflict it finds (:func:`settle` records it)."""
    assert batch.judge is not None
    interval = (item.valid_from, item.valid_until)
    for mid, sim in _candidates(batch, item, near):
        if mid in batch.retired or not _overlap(interval, _interval(batch, mid)):
            continue
        found = _judged(batch, item, mid)
        if found is not None:
            return batch.neighbour((mid, sim)), found
    return None, None


def _judged(batch: Batch, item: Item, memory_id: str) -> conflict.Contradiction | None:
    """The judge's contradiction of ``memory_id`` by the item, or None. Each pair of texts is
    asked once per batch (an answer cannot change within one decision); where it finds one,
    its confidence is kept for :func:`settle` to record."""
    assert batch.judge is not None
    pair = (item.text, batch.text_of(memory_id))
    answer = batch.answers.get(pair)
    if answer is None:
        answer = batch.answers[pair] = batch.judge.contradiction(ContradictionQuestion(
            new_text=pair[0], old_text=pair[1]))
    if not answer.contradicts:
        return None
    batch.judged[batch.item_index] = float(answer.confidence)
    return conflict.Contradiction(answer.subject, answer.attribute, answer.old_value,
                                  answer.new_value, answer.rule or "contradiction")


def new_value(batch: Batch, item: Item
              ) -> tuple[gate.Neighbour | None, conflict.Contradiction | None]:
    """The namespace's latest memory of a single-valued attribute that the new text states
    another value of (gate-7), and the evidence: the attribute, whose, and the value words
    each says and the other does not (:mod:`eventmem.policies.facts`). A late report of an
    earlier value (valid from before the latest memory began) is no contradiction of it, nor is
    a restatement (no value word the latest memory lacks), nor an elaboration (every value word
    of the latest memory and more, with no word saying the fact changed). Only a name the user
    declared is the user's here: replacing a fact needs more evidence than ordering a recall.
    From gate-9 a reschedule of an appointment or departure also finds its value whose day has
    passed (:func:`_rescheduled`). With a contradiction judge, the memory so found is put to
    it, and its answer decides."""
    gate_9 = item.gate_policy not in gate.BEFORE_RESCHEDULES
    latest = [(fact, found, False)
              for fact, found in _latest_of_attributes(batch, item)]
    if gate_9:
        latest += [(fact, found, True) for fact, found in _rescheduled(batch, item, latest)]
    values_of = _values_reading(item)
    new_values = values_of(item.text)
    new_from = item.valid_from or batch.at
    edition = reader_edition(item)
    if not facts.is_statement(item.text, edition):
        return None, None
    for fact, (mid, text), passed in latest:
        if not facts.is_statement(text, edition):
            continue
        old_values = values_of(text)
        if not old_values or not new_values - old_values:
            continue  # the same value said again
        if old_values <= new_values and not (
                values.announces_change(item.text)
                or (edition >= facts.EDITION_4 and facts.leaves_for(item.text))
                or (edition >= facts.EDITION_5 and facts.bids_goodbye(item.text))
                or (edition >= facts.EDITION_7 and facts.taken_on_elsewhere(item.text))):
            continue  # more said about the same value ("... as a data engineer in Berlin")
        if batch.valid_from_and_immutable(mid)[0] > new_from:
            continue  # a late report of an earlier value: history, beside the later one
        if not passed and not _overlap((item.valid_from, item.valid_until),
                                       _interval(batch, mid)):
            continue
        vector = batch.queries_by_text[item.text].vector
        if batch.judge is not None:  # the judge has the last word on what contradicts
            judged = _judged(batch, item, mid)
            if judged is None:
                continue
            return batch.neighbour((mid, float(batch.vector_of(mid) @ vector))), judged
        return batch.neighbour((mid, float(batch.vector_of(mid) @ vector))), \
            conflict.Contradiction(fact.owner, fact.attribute,
                                   " ".join(sorted(old_values - new_values)),
                                   " ".join(sorted(new_values - old_values)),
                                   f"value_of_{fact.attribute}")
    return None, None


def changed_since(batch: Batch, item: Item, exact: str) -> bool:
    """Whether a memory of the same attribute with another value came after ``exact``, the
    memory holding the same text: "I live in Oslo" said again after "I moved to Denver"."""
    start = batch.valid_from_and_immutable(exact)[0]
    values_of = _values_reading(item)
    return any(mid != exact and batch.valid_from_and_immutable(mid)[0] > start
               and values_of(text) - values_of(item.text)
               for _, (mid, text) in _latest_of_attributes(batch, item, inferred_names=True))


def _latest_of_attributes(batch: Batch, item: Item, *, inferred_names: bool = False
                          ) -> list[tuple[facts.Fact, tuple[str, str]]]:
    """For each single-valued attribute the item's text states of someone (not a relation of
    the user's), the latest eligible memory of the namespace stating it of the same person
    (same thing counted, same relative...), with its text. A name is the user's when declared,
    or (``inferred_names``: enough to make a restatement news, not to replace a fact) when the
    memories name the user so (:class:`NamespaceFacts`)."""
    known = batch.latest_facts.get(inferred_names)
    if known is None:
        known = batch.latest_facts[inferred_names] = _read_latest(batch, item, inferred_names)
    return known


class BatchFacts(NamespaceFacts):
    """A namespace's stored memories read as facts for gate-7, remembered by the batch from
    item to item (searches and whose a name is: ``Batch.found``, ``Batch.users``) until it
    retires a memory one of them found (``Batch._forget``), each with the reader's ``edition``."""

    def __init__(self, batch: Batch, namespace: str, read: Read, allowed: Callable[[str], bool],
                 *, inferred_names: bool, edition: int) -> None:
        super().__init__(batch.views, namespace, read, allowed, inferred_names=inferred_names,
                         edition=edition)
        self.batch = batch

    def stating(self, words: str, *, dated: bool = False) -> dict[str, Stated]:
        """As :meth:`NamespaceFacts.stating`, a new dict the caller may add to."""
        key = (self.namespace, words, dated, self.edition)
        found = self.batch.found.get(key)
        if found is None:
            found = self.batch.found[key] = super().stating(words, dated=dated)
        return dict(found)

    def searched(self, words: str, *, dated: bool = False) -> dict[str, str]:
        """As :meth:`NamespaceFacts.searched`, kept in ``Batch.texts_found`` (not to be
        changed by the caller)."""
        key = (self.namespace, words, dated, self.edition)
        found = self.batch.texts_found.get(key)
        if found is None:
            found = self.batch.texts_found[key] = super().searched(words, dated=dated)
        return found

    def is_user(self, name: str) -> bool:
        """As :meth:`NamespaceFacts.is_user`: it reads the search for ``name`` (kept in
        ``Batch.texts_found`` while the answer holds)."""
        key = (self.namespace, self.inferred_names, name, self.edition)
        known = self.batch.users.get(key)
        if known is None:
            known = self.batch.users[key] = super().is_user(name)
        return known


def _values_reading(item: Item) -> Callable[[str], frozenset[str]]:
    """The value words of a text as ``item``'s gate reads them (remembered: values_in): a word
    may open with any letter in the reader's second edition, an ASCII one in the first."""
    edition = reader_edition(item)
    if edition == facts.EDITION:
        return values_in
    return lambda text: values_in(text, edition)


def _read_latest(batch: Batch, item: Item, inferred_names: bool
                 ) -> list[tuple[facts.Fact, tuple[str, str]]]:
    edition = reader_edition(item)
    stated_all = facts_of(item.text, edition)
    stated = [f for f in stated_all
              if f.attribute in facts.SINGLE_VALUED and f.owner != facts.OTHER]
    if stated and (item.kind or classified(item.text, classifier(item))[0]) == "plan":
        # A plan ("renew the car registration by May") changes no fact yet; only an
        # appointment or a departure, planned by nature, is rescheduled by one.
        stated = [f for f in stated if f.attribute in facts.DATED]
    if not stated:
        return []
    ns = item.namespace
    reader = batch.facts_reader(ns, inferred_names, edition)
    created = batch.created_stating(ns, edition)
    out = []
    for fact in stated:
        dated = fact.attribute in facts.DATED
        found = _of_attribute(reader.stating(_searched(fact, item), dated=dated), fact)
        for mid, said in _of_attribute(created, fact).items():  # the batch's own
            if mid not in batch.retired and (dated or batch.created[mid].kind != "plan"):
                found[mid] = said
        newest = _newest_stating(batch, fact, stated_all, found,
                                 _owners(reader, fact, stated_all, found),
                                 None if item.gate_policy in gate.BEFORE_NAMES else item.text)
        if newest is not None:
            out.append((fact, (newest, found[newest][0])))
    return out


def _of_attribute(found: Mapping[str, Stated], fact: facts.Fact) -> dict[str, Stated]:
    """The memories of ``found`` stating ``fact``'s attribute (same qualifier) of anyone, in
    order: the only ones :func:`_newest_stating` may pick. Whose the other names ``found``
    states facts of are is never asked, then: each such question is a search of its own, and
    its answer would change no owner of a fact that is picked."""
    attribute, qualifier = fact.attribute, fact.qualifier
    out = {}
    for mid, said in found.items():
        for one in said[1]:
            if one.attribute == attribute and one.qualifier == qualifier:
                out[mid] = said
                break
    return out


def _rescheduled(batch: Batch, item: Item,
                 latest: Sequence[tuple[facts.Fact, tuple[str, str], bool]]
                 ) -> list[tuple[facts.Fact, tuple[str, str]]]:
    """gate-9: for each appointment or departure the item moves ("... is now on Wednesday",
    "was rescheduled to Tuesday") that no current memory states, the latest memory whose day
    has passed (expired by its valid time, not reported done) stating it of the same person (a
    name the memories show to be the user's counts: the passed day is no current fact).
    Without a word saying the date moved, a new day is a new occasion, and the passed one
    stays as it happened."""
    if not (values.announces_change(item.text) or facts.reschedules(item.text)):
        return []
    edition = reader_edition(item)
    stated_all = facts_of(item.text, edition)
    have = {(fact.attribute, fact.qualifier) for fact, _, _ in latest}
    moved = [f for f in stated_all if f.attribute in facts.DATED and f.owner != facts.OTHER
             and (f.attribute, f.qualifier) not in have]
    if not moved:
        return []
    ns, memories = item.namespace, batch.views.state.memories

    def passed(memory_id: str) -> bool:
        # Expired by its valid time: the sweep may not have run since (invalidated_at unset).
        record = memories.get(memory_id)
        return (record is not None and memory_id not in batch.retired
                and record.status in GATE_STATUSES and record.done_at is None
                and (record.invalidated_at is not None
                     or (record.valid_until is not None and record.valid_until <= batch.at)))

    # Expired memories are few and rarely looked for: a search of its own, not the batch's.
    search = NamespaceFacts(batch.views, ns, lambda ids: [batch.text_of(m) for m in ids],
                            passed, inferred_names=True, edition=edition)
    whose = batch.facts_reader(ns, True, edition)  # whose a name is, read from the current memories
    out = []
    for fact in moved:
        found = search.stating(_searched(fact, item), dated=True)
        newest = _newest_stating(batch, fact, stated_all, found,
                                 _owners(whose, fact, stated_all, found),
                                 None if item.gate_policy in gate.BEFORE_NAMES else item.text)
        if newest is not None:
            out.append((fact, (newest, found[newest][0])))
    return out


# The fact reader's edition and the classifier each gate version reads with (gate-11 and
# before: the first edition and classify-3), as they decided.
_READERS: Final = {gate.GATE_12: (facts.EDITION_2, classify.CLASSIFY_4),
                   gate.GATE_13: (facts.EDITION_3, classify.CLASSIFY_5),
                   gate.GATE_14: (facts.EDITION_4, classify.CLASSIFY_6),
                   gate.GATE_15: (facts.EDITION_5, classify.CLASSIFY_7),
                   gate.GATE_16: (facts.EDITION_6, classify.CLASSIFY_8),
                   gate.GATE_17: (facts.EDITION_7, classify.CLASSIFY_9),
                   gate.GATE_18: (facts.EDITION_7, classify.CLASSIFY_9),
                   gate.GATE_19: (facts.EDITION_8, classify.CLASSIFY_10),
                   gate.GATE_20: (facts.EDITION_9, classify.CLASSIFY_11),
                   gate.GATE_VERSION: (facts.EDITION, classify.POLICY_VERSION)}


def reader_edition(item: Item) -> int:
    """How the item's gate reads what a text says about whom: gate-12 with the reader's second
    edition (corrections, pronouns, more phrasings), gate-13 with the third (notice given,
    irregular plurals), gate-14 with the fourth (a job left for another, allergies said of the
    one they affect), gate-15 with the fifth (jobs in "-ary", a child's age said of someone
    else's child by name), gate-16 with the sixth (a job taken by its offer, a home by its
    address), gate-17 and gate-18 with the seventh ("moved house to", an age in words, a count
    by its number), gate-19 with the eighth ("Bosch onboarded me", an age in tens, an
    appointment by its field), gate-20 with the ninth (a promotion, a home moved to in a
    direction, no value held once as held now), gate-21 with the tenth
    (:data:`eventmem.policies.facts.EDITION`: no job declined or supposed, a clause with its own
    first-person subject as the speaker's, a birth as one child more), the gates before with the
    first, as they decided."""
    return _readers(item)[0]


def classifier(item: Item) -> str:
    """The classifier version the item's gate asks a kind of: classify-12 from gate-21, which
    reads attributes with the fact reader's tenth edition; classify-11 for gate-20 (the ninth),
    classify-10 for gate-19 (the eighth), classify-9 for gate-17 and gate-18 (the seventh),
    classify-8 for gate-16 (the sixth), classify-7 for gate-15 (the fifth), classify-6 for
    gate-14 (the fourth), classify-5 for gate-13 (the third), classify-4 for gate-12 (the
    second), classify-3 before, as decided."""
    return _readers(item)[1]


def _readers(item: Item) -> tuple[int, str]:
    # An item the caller writes now carries no version (None): the gate's own.
    return _READERS.get(item.gate_policy or gate.GATE_VERSION,
                        (facts.EDITION_1, classify.CLASSIFY_3))


def _searched(fact: facts.Fact, item: Item) -> str:
    """The words a memory stating ``fact``'s attribute is searched for with (as ``item``'s gate
    searched)."""
    every = item.gate_policy not in gate.BEFORE_READER_WORDS
    words = facts.attribute_words(fact.attribute, every_reader_word=every,
                                  phrasings=item.gate_policy not in gate.BEFORE_PHRASINGS,
                                  sixth=reader_edition(item) >= facts.EDITION_6)
    return " ".join(filter(None, (words, fact.qualifier)))


def _newest_stating(batch: Batch, fact: facts.Fact, stated_all: Sequence[facts.Fact],
                    found: Mapping[str, Stated], owners: frozenset[str],
                    new_text: str | None) -> str | None:
    """The newest of ``found`` stating ``fact``'s attribute (same qualifier) of one of
    ``owners``, and nothing the new text (stating ``stated_all``) does not; from gate-19
    (``new_text`` given) no name of what adds up that it does not (see :func:`_named_more`)."""
    # Only a memory that states no more than the new text does is replaced: superseding
    # "I work at Globex as a data analyst" for a new title would hide the employer too.
    # The facts that would make a memory one of them, looked up as a set: ``found`` holds a few
    # hundred memories (a search's and the batch's own), read for each fact of item after item.
    wanted = frozenset(facts.Fact(owner, fact.attribute, fact.qualifier) for owner in owners)
    same = [mid for mid, (text, other) in found.items()
            if not wanted.isdisjoint(other)
            and not facts.says_more(other, stated_all, _named_more(text, new_text))]
    if not same:
        return None
    return max(same, key=lambda mid: (batch.valid_from_and_immutable(mid)[0],
                                      _created_seq(batch, mid), mid))


def _named_more(old_text: str, new_text: str | None) -> frozenset[str]:
    """The names ``old_text`` says that ``new_text`` does not (none before gate-19, which
    passes no ``new_text``)."""
    if new_text is None:
        return frozenset()
    return facts.inner_names(old_text) - facts.inner_names(new_text)


def _owners(reader: NamespaceFacts, fact: facts.Fact, stated_all: Sequence[facts.Fact],
            found: Mapping[str, Stated]) -> frozenset[str]:
    """``reader.owners(fact.owner, found)`` as far as :func:`_newest_stating` can tell it: the
    user's names asked about (each a search of its own) are only those a memory it may pick
    states ``fact``'s attribute of. A name only ``found``'s other facts name, or only memories
    stating more than the new text does, could make no memory the newest, whoever it is."""
    if fact.owner != facts.USER:
        return reader.owners(fact.owner, found)
    kind = (fact.attribute, fact.qualifier)
    candidates = {mid: (text, tuple(g for g in other if (g.attribute, g.qualifier) == kind))
                  for mid, (text, other) in found.items()
                  if not facts.says_more(other, stated_all)}
    return reader.owners(facts.USER, candidates)


def _created_seq(batch: Batch, memory_id: str) -> int:
    record = batch.views.state.memories.get(memory_id)
    return record.created_seq if record is not None else 1 << 62  # the batch's: newest


def _candidates(batch: Batch, item: Item, near: Near) -> list[tuple[str, float]]:
    """The memories a contradiction is looked for in: the nearest few similar enough to be
    about the same thing, then the latest few naming one of the same entities (a
    contradiction is about a subject, and "Bob lives in Oslo" / "Bob moved to Paris"
    share little else), most similar first."""
    found = {mid: sim for mid, sim in near.ranked[: batch.params.conflict_neighbours]
             if sim >= batch.params.conflict_similarity}
    vector = batch.queries_by_text[item.text].vector
    for entity in batch.extract(item.text)[0]:
        for mid in batch.memories_naming(item.namespace, entity.key,
                                        batch.params.conflict_neighbours):
            if mid not in found and mid not in batch.retired \
                    and eligible(batch.views.state.memories.get(mid)):
                found[mid] = float(batch.vector_of(mid) @ vector)
    return sorted(found.items(), key=lambda pair: (-pair[1], pair[0]))


def _interval(batch: Batch, memory_id: str) -> tuple[int | None, int | None]:
    record = batch.views.state.memories.get(memory_id)
    source: Any = record if record is not None else batch.created[memory_id]
    return source.valid_from, source.valid_until


def _claims_of(batch: Batch, memory_id: str) -> conflict.Claims:
    claims = batch.claims_by_id.get(memory_id)
    if claims is None:  # a stored text costs a read: once per batch
        claims = batch.claims_by_id[memory_id] = _claims_in(batch, batch.text_of(memory_id))
    return claims


def _claims_in(batch: Batch, text: str) -> conflict.Claims:
    claims = batch.claims.get(text)
    if claims is None:
        claims = batch.claims[text] = claims_of(text)
    return claims


def settle(batch: Batch, i: int, item: Item, chash: str,
           decision: gate.GateDecision, near: Near, found: conflict.Contradiction) -> None:
    """Record a contradiction the gate found: the new memory, the conflict flagged with its
    evidence, and its settlement by the item's strategy (the loser superseded), or left open."""
    old = decision.neighbour
    assert old is not None
    strategy = item.on_conflict or batch.params.strategy
    old_from, old_immutable = batch.valid_from_and_immutable(old)
    new_from = item.valid_from or batch.at
    resolution = gate.resolve(strategy, existing_valid_from=old_from,
                              new_valid_from=new_from, existing_immutable=old_immutable)
    conflict_id = batch.new_id("cf", i)
    # The new claim is dated: a winner is true from where the old fact ends, not since
    # forever; a loser's interval is closed below (empty when it was refused outright).
    starts = new_from
    if resolution.winner == "merged":
        text = merge.conflict_text(batch.text_of(old), item.text)
        new = batch.create(i, item, text, chash, decision, near, derived_from=old,
                           rule=resolution.rule, valid_from=starts)
    else:
        new = batch.create(i, item, item.text, chash, decision, near,
                           rule=resolution.rule, valid_from=starts)
    ns, source = item.namespace, item.source
    first = len(batch.events) - 1  # the new memory's ingest records the decision
    # The evidence is words of the two texts: content, stored beside them, not in the event.
    evidence = evidence_text(found.subject, found.attribute, found.old_value, found.new_value)
    evidence_hash = content_hash(evidence)
    batch.stored.setdefault(evidence_hash, Content(evidence))
    judged = batch.judged.get(i)  # the judge's confidence, where it found the conflict
    batch.events.append(ConflictFlagged(
        at=batch.at, namespace=ns, actor=source, conflict_id=conflict_id, memory_id=old,
        other_id=new, content_hash=evidence_hash, rule=found.rule,
        similarity=decision.similarity, strategy=strategy, policy=gate.GATE_VERSION,
        judge="" if judged is None or batch.judge is None else batch.judge.judge_id,
        confidence=judged))
    if resolution.winner == "none":
        batch.outcome(new, "created", resolution.rule, neighbour=old,
                      similarity=decision.similarity, conflict_id=conflict_id, event=first)
        return
    winner, loser = (old, new) if resolution.winner == "existing" else (new, old)
    batch.events.append(ConflictResolved(
        at=batch.at, namespace=ns, actor=source, conflict_id=conflict_id, strategy=strategy,
        winner=winner, loser=loser, policy=gate.GATE_VERSION))
    if resolution.winner == "existing":
        # A late report of an older fact was true until the existing one began; a refused
        # claim gets an empty valid interval: it was never the store's belief.
        until = old_from if new_from < old_from else new_from
        batch.supersede(new, old, until, resolution.rule, decision.similarity, item,
                        conflict_id)
        batch.outcome(old, "skipped", resolution.rule, neighbour=old,
                      similarity=decision.similarity, conflict_id=conflict_id, event=first)
    else:
        until = new_from
        old_until = _interval(batch, old)[1]
        if item.gate_policy not in gate.BEFORE_RESCHEDULES and old_until is not None:
            until = min(until, old_until)  # a day already passed keeps its end (gate-9)
        batch.supersede(old, new, until, resolution.rule, decision.similarity, item,
                        conflict_id)
        action: Action = "merged" if resolution.winner == "merged" else "superseded"
        batch.outcome(new, action, resolution.rule, neighbour=old,
                      similarity=decision.similarity, conflict_id=conflict_id, event=first)


def evidence_text(subject: str, attribute: str, old_value: str, new_value: str) -> str:
    """A conflict's evidence as stored (by its content hash) beside ``conflict.flagged``."""
    return msgspec.json.encode(ConflictEvidence(subject=subject, attribute=attribute,
                                                old_value=old_value, new_value=new_value)).decode()


def _overlap(a: tuple[int | None, int | None], b: tuple[int | None, int | None]) -> bool:
    """Whether two valid intervals [from, until) share a moment (None: unbounded)."""
    (a_from, a_until), (b_from, b_until) = a, b
    return ((a_from is None or b_until is None or a_from < b_until)
            and (b_from is None or a_until is None or b_from < a_until))

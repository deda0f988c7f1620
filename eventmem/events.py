"""Every event eventmem records: frozen, keyword-only, explicitly tagged msgspec Structs.

Rules for this module (the log is forever):

* A tag is never renamed or reused; renaming a class is fine, the tag is what is stored.
* New fields get defaults, so old records still decode. An incompatible change gets a new tag and an
  upcaster in :mod:`eventmem.codec`.
* Collections are tuples; times are integer microseconds since the epoch, UTC
  (:func:`eventmem.clock.to_micros`).
* The log assigns the sequence number; an event never carries its own.

Every event carries ``at`` (transaction time from the injected clock), ``namespace`` (the
tenant/agent/user scope; ``""`` for store-wide events) and ``actor`` (who caused it). Decision
events also carry the ``rule`` that decided and the ``policy`` version.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final, Literal

import msgspec

MemoryKind = Literal[
    "identity", "preference", "relationship", "event", "activity", "plan", "context", "ephemeral"
]
MEMORY_KINDS: Final[tuple[str, ...]] = MemoryKind.__args__  # type: ignore[attr-defined]

Actor = Literal["user", "agent", "extraction", "consolidation", "import", "system"]
ACTORS: Final[tuple[str, ...]] = Actor.__args__  # type: ignore[attr-defined]

POLICY_VERSION: Final = "gate-1"

EntityType = Literal["person", "organization", "place", "product", "concept", "event", "other"]
ENTITY_TYPES: Final[tuple[str, ...]] = EntityType.__args__  # type: ignore[attr-defined]

# Memory-to-memory relations. The first two are facts of the log (a supersession, a conflict)
# and are never pruned; the others are inferred and give way, weakest first, at the cap.
LinkType = Literal["supersedes", "contradicts", "causes", "elaborates", "same_entity",
                   "related_to", "part_of"]
LINK_TYPES: Final[tuple[str, ...]] = LinkType.__args__  # type: ignore[attr-defined]


class EntityRef(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """An entity a memory mentions: ``key`` (the normalized name) identifies it in a namespace."""

    key: str
    name: str  # as written
    type: EntityType


class RelationRef(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A typed relation between two entities (by key) that a memory states."""

    subject: str
    relation: str
    object: str
    confidence: float


class Extraction(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """What the extractor found in a text: stored beside the text (by its content hash), never
    in an event, and removed with it by purge and erasure."""

    entities: tuple[EntityRef, ...] = ()
    relations: tuple[RelationRef, ...] = ()


class MemoryLink(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A relation from the memory that carries it to another memory."""

    target: str
    relation: LinkType
    weight: float


class TimeSpan(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A span of time ``[start, end)`` in epoch microseconds (UTC): a day, a week, a month..."""

    start: int
    end: int


class JudgeRef(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A pluggable judge other than the default that took part in a decision: its role
    (``contradiction``, ``links``) and its id. Its answers are recorded in the decision's
    events (``conflict.flagged``, the links of ``memory.ingested``), so replay never asks it
    again and audit checks the decision against them instead of re-asking."""

    role: str
    judge: str


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False,
            omit_defaults=True):
    """Fields every event carries."""

    at: int
    namespace: str
    actor: Actor = "system"


class EmbedderRegistered(Event, tag="store.embedder_registered", frozen=True, kw_only=True):
    """The store's vectors are made by this embedder from now on (recorded once, first)."""

    embedder_id: str
    dim: int
    # How the vector view keeps the rows of memories gone cold (archived, dormant): "int8"
    # (projections.quantize), or "" (float32, as stores made before cold rows were quantized
    # keep them: their logs replay and audit as decided).
    cold_vectors: str = ""


class MemoryIngested(Event, tag="memory.ingested", frozen=True, kw_only=True):
    """A new memory was created. Its text lives in the blob ``content_hash``."""

    memory_id: str
    content_hash: str
    dedup_key: str
    kind: MemoryKind
    kind_rule: str = "caller"
    # The classifier version that decided the kind ("": classify-1, or the kind was not
    # classified), so that an audit re-classifies the text as it was.
    kind_policy: str = ""
    source: Actor = "user"
    stability: float = 7.0  # base stability in days, decided from the kind at write time
    importance: float = 0.5
    confidence: float = 1.0
    valid_from: int | None = None
    valid_until: int | None = None
    pinned: bool = False
    immutable: bool = False
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    rule: str = "new"
    policy: str = POLICY_VERSION
    # Memory dynamics (decided at write time, with their evidence).
    tier: str = "episodic"
    session: str | None = None
    priority: str = "normal"
    flashbulb: bool = False
    # novelty, arousal, reward, attention (a tuple, not a map: one is decoded per ingest on replay)
    importance_channels: tuple[float, ...] = ()
    valid_until_rule: str = ""  # how valid_until was inferred ("" when given or none)
    # The default window (days) in force for a plan the caller gave no valid_until and whose
    # text names no time (eventmem.policies.horizon; 0: none was in force, as before horizon-1),
    # recorded whether or not the plan got it, so that an audit re-derives it as decided.
    plan_window_days: float = 0.0
    # A pronoun its text opens a sentence with, naming no one before it, resolved to the person
    # its session named last (eventmem.policies.extract.coref): the memory that named them
    # (None: none was found), and the version that looked ("": none looked, as before coref-1).
    # The person's name stays in that memory's content, never in the log.
    coref_of: str | None = None
    coref_policy: str = ""
    # One clause of a compound statement the write path split (eventmem.policies.split): the
    # content hash of the caller's whole text (an id: the text itself is not kept), the clause's
    # position in it, and the version that split it ("": not split). Clauses after the first
    # are derived from the first one's memory (``derived_from``, a ``part_of`` link), so that
    # erasing the memory the caller was given erases them too.
    source_hash: str | None = None
    part: int = 0
    split_policy: str = ""
    # The write gate's evidence: the nearest memory of the namespace and its cosine similarity.
    neighbour: str | None = None
    similarity: float | None = None
    # Merged or updated memories: the memories whose facts this one carries, and the caller's
    # input (its own blob) when the stored text is a synthesis of it and those memories.
    derived_from: tuple[str, ...] = ()
    input_hash: str | None = None
    # Links to other memories (ids only), decided at write time. The entities and relations
    # extracted from the text are content (names are words of the text): they are stored with it,
    # by content hash (see Extraction), so that erasing the text erases them too.
    links: tuple[MemoryLink, ...] = ()
    # The extractor in force for this write: the rules' version, or a pluggable fact
    # extractor's id (eventmem.judges). A text the store analysed before keeps the extraction
    # stored with it then.
    extractor: str = ""
    # The caller's labels (tags, refs and the session as given) are caller text: since
    # labels-1 they are content (a Labels document, JSON, by this hash) stored beside the text,
    # so that erasure removes them; ``tags`` and ``refs`` stay empty and ``session`` holds only
    # the session's key (:func:`session_key`), which groups working memory. Older records carry
    # them in the clear above (caller_hash None).
    caller_hash: str | None = None
    # The caller's input where the fields above do not show it, so that an audit can re-run the
    # decision (replay/audit.py): the item's position in its batch, the importance the caller
    # gave (the recorded one may be raised by a predecessor or a flashbulb), and where
    # valid_from came from when the caller gave none ("inherited" from the merged memory,
    # "transaction_time" for an update or a conflict's new side; "" when given or none).
    item: int = 0
    given_importance: float | None = None
    valid_from_rule: str = ""
    # When the memory was first recorded, where that is not ``at``: an imported memory keeps
    # the time its original store recorded it (``at`` is when this store learned it).
    created_at: int | None = None
    # The times its text speaks of ("yesterday", "next month", "on Friday", "March 16, 2022"),
    # resolved against when it was said (eventmem.policies.times), so that a question naming a
    # date finds what was said about that date on another day; and the version of the resolver
    # that read them ("": none was run, as before times-1).
    times: tuple[TimeSpan, ...] = ()
    times_policy: str = ""
    # Its emotion (eventmem.policies.emotion): valence in [-1, 1], arousal in [0, 1], the Ekman
    # category ("" none), and the version that read them ("": none was read, before emotion-1;
    # a flashbulb's stability boost was then the old x3.0).
    valence: float = 0.0
    arousal: float = 0.0
    emotion: str = ""
    emotion_policy: str = ""
    # The retention category beside the kind (eventmem.policies.category: correction, decision,
    # fact, preference, procedure; "" none), the rule that decided it and the version that ran
    # ("": none was run, as before category-1); and how ``tier`` was chosen ("caller": the
    # caller's ``tier=``, "procedure": a how-to or always/never rule; "" by the session alone).
    category: str = ""
    category_rule: str = ""
    category_policy: str = ""
    tier_rule: str = ""
    # The judges other than the defaults (eventmem.judges) the write path asked for this item:
    # empty when the rules decided, as before judges existed.
    judges: tuple[JudgeRef, ...] = ()


class MemoryReinforced(Event, tag="memory.reinforced", frozen=True, kw_only=True):
    """New input duplicated an existing memory, which was reinforced instead of stored twice."""

    memory_id: str
    content_hash: str
    similarity: float
    rule: str
    policy: str = POLICY_VERSION
    stability: float | None = None  # the stability after this reinforcement (None: unchanged)
    # For audit: the item's position in its batch, and the input's valid time as the caller
    # gave it (it decides whether the input contradicts a neighbour).
    item: int = 0
    input_valid_from: int | None = None
    input_valid_until: int | None = None
    judges: tuple[JudgeRef, ...] = ()  # as on memory.ingested


class MemoryRejected(Event, tag="memory.rejected", frozen=True, kw_only=True):
    """The observer filter refused an input. Its content is not stored, only why and its size."""

    reason: str
    rule: str
    length: int
    policy: str = POLICY_VERSION
    item: int = 0  # the item's position in its batch (for audit)


class MemorySkipped(Event, tag="memory.skipped", frozen=True, kw_only=True):
    """The input adds nothing to ``memory_id``, which already holds it (a near duplicate, or the
    losing side of a conflict kept out by ``keep_existing``). The input is kept as its blob."""

    memory_id: str
    content_hash: str
    similarity: float
    rule: str
    conflict_id: str | None = None
    policy: str = POLICY_VERSION
    # For audit, as on memory.reinforced.
    item: int = 0
    input_valid_from: int | None = None
    input_valid_until: int | None = None
    judges: tuple[JudgeRef, ...] = ()  # as on memory.ingested


class MemorySuperseded(Event, tag="memory.superseded", frozen=True, kw_only=True):
    """``memory_id`` is replaced by ``by`` (merged into it, updated by it, or the loser of a
    conflict). Its valid time ends at ``until`` (None: left as it was, the claim was refused, not
    ended); it stays in history."""

    memory_id: str
    by: str
    until: int | None
    rule: str
    similarity: float = 0.0
    conflict_id: str | None = None
    policy: str = POLICY_VERSION
    # A plan closed by a report of it done (rule ``plan_done_*``): the evidence's content hash
    # (a :class:`PlanEvidence`, words of both texts, stored beside them so erasure reaches it).
    content_hash: str | None = None


class PlanEvidence(msgspec.Struct, frozen=True, kw_only=True):
    """Why a text closes a plan: the plan's verb and the object words both texts hold."""

    verb: str
    matched: tuple[str, ...]


class ConflictEvidence(msgspec.Struct, frozen=True, kw_only=True):
    """What a contradiction is about, in words of the two texts: stored as content (JSON, by
    its hash) beside them, so that erasing either text erases these words too."""

    subject: str
    attribute: str
    old_value: str
    new_value: str


class ConflictFlagged(Event, tag="conflict.flagged", frozen=True, kw_only=True):
    """A new memory contradicts an existing one about the same subject. The evidence (subject,
    attribute, the two values) is the content ``content_hash`` names (a ConflictEvidence)."""

    conflict_id: str
    memory_id: str  # the existing memory
    other_id: str  # the new one
    content_hash: str  # the ConflictEvidence, as JSON content
    rule: str
    similarity: float
    strategy: str  # the strategy applied; "ask" leaves it open
    policy: str = POLICY_VERSION
    # The contradiction judge that found it when not the rules ("": the rules of
    # eventmem.policies.conflict), and the confidence it gave: its answer, with the evidence.
    judge: str = ""
    confidence: float | None = None


class ConflictResolved(Event, tag="conflict.resolved", frozen=True, kw_only=True):
    """A conflict was settled: ``loser`` is superseded by ``winner`` (a supersede event follows
    in the same append)."""

    conflict_id: str
    strategy: str
    winner: str
    loser: str
    policy: str = POLICY_VERSION


class MemoryRecalled(Event, tag="memory.recalled", frozen=True, kw_only=True):
    """A recall returned these memories; each counts as an access. The audit trail of what an
    agent was given.

    The query is caller text: since labels-1 it is content (a RecalledQuery document, JSON, by
    ``query_hash``), erased with the namespace or with a memory the recall returned, and
    ``query`` stays empty. Older records carry it in the clear (query_hash None)."""

    query: str
    k: int
    memory_ids: tuple[str, ...]
    scores: tuple[float, ...]
    valid_at: int | None = None
    # The stability of each returned memory after this access (the spacing effect), decided by
    # the decay policy; empty in records written before memory dynamics (stability unchanged).
    stabilities: tuple[float, ...] = ()
    policy: str = POLICY_VERSION
    query_hash: str | None = None
    # The query's intent as a pluggable intent classifier answered it, and the classifier's id
    # ("" both: the rules of eventmem.recall.plan decided, which a replanning re-derives).
    intent: str = ""
    intent_judge: str = ""


class Labels(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A memory's caller labels, stored as content beside its text (``caller_hash``). The
    memory id makes each memory's document its own, so erasing one memory removes exactly its
    labels."""

    memory_id: str
    tags: tuple[str, ...] = ()
    refs: tuple[str, ...] = ()
    session: str | None = None
    metadata: dict[str, Any] | None = None  # the caller's JSON object (eventmem.metadata)


class RecalledQuery(msgspec.Struct, frozen=True, kw_only=True):
    """A recall's query, stored as content (``query_hash``); the namespace keeps one
    namespace's queries apart from another's and from every memory text."""

    namespace: str
    query: str


def session_key(namespace: str, session: str) -> str:
    """What events and projections hold for a caller's session: a digest of it, enough to group
    a session's working memory, while the session as given is erasable content (Labels)."""
    digest = hashlib.blake2b(f"{namespace}\x00{session}".encode(), digest_size=12,
                             person=b"em-session").hexdigest()
    return f"s:{digest}"


class MemoryTouched(Event, tag="memory.touched", frozen=True, kw_only=True):
    """An explicit access (the agent used the memory): reinforces it like a recall does."""

    memory_id: str
    stability: float
    policy: str = POLICY_VERSION


class FeedbackGiven(Event, tag="memory.feedback", frozen=True, kw_only=True):
    """The caller said whether a memory was useful; utility moved toward the target."""

    memory_id: str
    target: float  # 1.0 useful, 0.0 not, or a graded value
    utility: float  # the utility after this feedback (drift since the last change included)
    policy: str = POLICY_VERSION


class StatusChange(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One memory's move between lifecycle statuses in a sweep, why, and its retention at the
    sweep's ``now`` (the evidence)."""

    memory_id: str
    from_status: str
    to_status: str
    reason: str
    retention: float


class LifecycleTransitioned(Event, tag="memory.lifecycle", frozen=True, kw_only=True):
    """A sweep at ``now`` moved these memories between lifecycle states (one event per sweep)."""

    now: int
    changes: tuple[StatusChange, ...]
    policy: str = POLICY_VERSION


class TierChange(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One memory's move between tiers, and why."""

    memory_id: str
    from_tier: str
    to_tier: str
    reason: str
    decay_done: float = 0.0  # decay progress at the change; the new tier's rate applies after it


class TierChanged(Event, tag="memory.tier_changed", frozen=True, kw_only=True):
    """Memories promoted, demoted or evicted from working memory at ``now``."""

    now: int
    changes: tuple[TierChange, ...]
    policy: str = POLICY_VERSION


class MemoryInvalidated(Event, tag="memory.invalidated", frozen=True, kw_only=True):
    """The fact stopped being true: its valid time ends at ``until``; it stays in history."""

    memory_id: str
    until: int
    reason: str
    policy: str = POLICY_VERSION
    now: int | None = None  # the sweep's now (None in records written before it was kept)


class MemoryForgotten(Event, tag="memory.forgotten", frozen=True, kw_only=True):
    """The memory is deleted (status ``deleted``); its events and text stay until purge/erase."""

    memory_id: str
    reason: str = "explicit"


class MemoryPinned(Event, tag="memory.pinned", frozen=True, kw_only=True):
    """The memory is pinned: exempt from forgetting (the sweep's and the dream cycle's) until
    unpinned."""

    memory_id: str


class MemoryUnpinned(Event, tag="memory.unpinned", frozen=True, kw_only=True):
    """The memory is unpinned: it can be forgotten again."""

    memory_id: str


class CommitmentResolved(Event, tag="memory.commitment_resolved", frozen=True, kw_only=True):
    """The caller marked a plan or commitment done (``Engine.resolve_commitment``): its valid
    time ends at ``at``, it leaves recall, and a sweep archives it once it has been done for
    ``LifecycleParams.done_archive_days``."""

    memory_id: str


# -- The dream cycle (consolidate): rehearsal, strategic forgetting, clusters, category summaries.
# Each batch event carries the cycle's ``now`` (its folds take times from it, like a sweep's) and
# the policy version; the memories the cycle creates are ordinary ``memory.ingested`` events
# (source "consolidation"), followed by the event that records why.

# dream-2: a relation is judged as the same cycle's purges leave it (dream-1 could prune one
# whose only statements the sweep was purging: a decision no rebuild can see the grounds of).
# dream-3: the sides of a conflict left open ("ask") are not merged into a cluster.
# dream-4: a namespace with more than ``DreamParams.pairs_exact_max`` memories to compare finds
# its similar pairs among pivot-block candidates (dream-1 to dream-3: the exact all-pairs search).
# dream-5: an episode (a time-specific event, plan or passing context) and a note (a stable
# belief: identity, preference, relationship, habit) are never merged into one memory.
# dream-6: a memory whose valid time is over (expired) is not merged: its time is past, and the
# consolidated memory would be born expired (dream-5 merged it, and the next cycle at the same
# now expired the consolidated memory, so a cycle was not settled by itself).
DREAM_POLICY: Final = "dream-6"


class Rehearsal(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One endangered memory replayed: its stability grew, its retention at ``now`` did not."""

    memory_id: str
    retention: float  # at the cycle's now (the evidence: under the rehearsal threshold)
    importance: float  # the ranking key (most important first)
    from_stability: float
    stability: float
    decay_done: float  # decay progress at now; the new stability applies after it


class MemoriesRehearsed(Event, tag="memory.rehearsed", frozen=True, kw_only=True):
    """A dream cycle at ``now`` rehearsed these memories (one event per namespace)."""

    now: int
    changes: tuple[Rehearsal, ...]
    policy: str = DREAM_POLICY


class DormantChange(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One memory the cycle made dormant, with the reason and its evidence.

    Reasons: ``contradiction`` (the older side of an open conflict; ``other`` is the newer side,
    ``conflict_id`` the conflict), ``utility_floor`` (``utility`` under the floor, ``idle_days``
    unused), ``redundant`` (``other`` is the memory kept, ``similarity`` their cosine),
    ``capacity`` (trimmed, lowest utility first, from ``count`` live memories), ``consolidated``
    (``other`` is the consolidated memory that now stands for it, ``similarity`` its cosine to
    the cluster's centroid).
    """

    memory_id: str
    reason: str
    from_tier: str
    from_status: str
    decay_done: float  # decay progress at now (a dormant memory's clock stops there)
    utility: float  # drifted to now
    idle_days: float = 0.0
    other: str | None = None
    similarity: float | None = None
    conflict_id: str | None = None
    count: int = 0


class MemoriesDormant(Event, tag="memory.dormant", frozen=True, kw_only=True):
    """Strategic forgetting at ``now``: these memories went to the dormant tier (hidden from
    default recall, decay frozen, revived by an access). One event per namespace and step."""

    now: int
    changes: tuple[DormantChange, ...]
    policy: str = DREAM_POLICY


class MemoryConsolidated(Event, tag="memory.consolidated", frozen=True, kw_only=True):
    """A cluster of similar memories was merged into ``memory_id`` (ingested just before, source
    "consolidation", ``derived_from`` the members). The members follow as ``memory.dormant``
    changes with reason ``consolidated``; they stay, linked, and an access revives each."""

    now: int
    memory_id: str
    members: tuple[str, ...]  # in creation order
    sources: tuple[str, ...]  # the members whose text the summary was made of, in time order
    method: str  # the summarizer's id ("extractive-1" by default)
    algorithm: str  # how the cluster was found, with its fixed parameters
    threshold: float  # the cosine every two members reach at least (complete linkage)
    cohesion: float  # the smallest cosine between two members
    policy: str = DREAM_POLICY


class CategorySummarized(Event, tag="memory.category_summarized", frozen=True, kw_only=True):
    """``memory_id`` (ingested just before) summarizes the active memories of ``kind`` in the
    namespace; it supersedes ``replaces``, the summary of an earlier membership."""

    now: int
    memory_id: str
    kind: MemoryKind
    members: int  # how many memories the category held
    members_digest: str  # blake2b of the sorted member ids: a changed membership refreshes
    sources: tuple[str, ...]  # the members whose text the summary was made of, in time order
    method: str
    replaces: str | None = None
    policy: str = DREAM_POLICY


# Plasticity after a write or an access (eventmem.policies.plasticity): synaptic tagging and
# capture, co-activation, spreading activation. plasticity-1 is the first version.
PLASTICITY_POLICY: Final = "plasticity-1"

StrengthCause = Literal["capture", "coactivation", "spread"]


class Strengthening(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One memory's stability grown by a plasticity rule (no access of its own: like a rehearsal,
    its retention at the time does not jump; the new stability applies from then on)."""

    memory_id: str
    from_stability: float
    stability: float
    decay_done: float  # decay progress at the time; the new stability applies after it


class MemoriesTagged(Event, tag="memory.tagged", frozen=True, kw_only=True):
    """Weak memories of a session got a synaptic tag until ``until``: a strong memory stored
    in the same session before then captures them (their stability grows)."""

    session: str  # the session's key (events.session_key)
    memory_ids: tuple[str, ...]
    until: int
    policy: str = PLASTICITY_POLICY


class MemoriesStrengthened(Event, tag="memory.strengthened", frozen=True, kw_only=True):
    """Stabilities grown by a plasticity rule, with the memories that caused it: the capturing
    memory (capture), the memories returned together (coactivation), the accessed memory
    (spread)."""

    cause: StrengthCause
    evidence: tuple[str, ...]
    changes: tuple[Strengthening, ...]
    policy: str = PLASTICITY_POLICY


class EmotionConsolidated(Event, tag="memory.emotion_consolidated", frozen=True, kw_only=True):
    """A consolidation at ``now`` strengthened aroused memories once, by their arousal (the
    emotional consolidation step of eventmem.policies.plasticity)."""

    now: int
    changes: tuple[Strengthening, ...]
    policy: str = PLASTICITY_POLICY


class TagsExpired(Event, tag="memory.tags_expired", frozen=True, kw_only=True):
    """A consolidation at ``now`` dropped the synaptic tags that expired uncaptured."""

    now: int
    memory_ids: tuple[str, ...]
    policy: str = PLASTICITY_POLICY


# Memory boxes (eventmem.policies.boxes): the consecutive memories of a session grouped into a
# box, sealed on a topic shift, a quiet gap or a full box; sealed boxes on a recurring topic share
# a trace. boxes-1 is the first version.
BOX_POLICY: Final = "boxes-1"

BoxReason = Literal["topic", "gap", "size"]


class BoxSealed(Event, tag="memory.box_sealed", frozen=True, kw_only=True):
    """The open box of a session was sealed with these members (``memory_ids``, in the order
    they joined it), for ``reason``, and joined the trace ``trace_id``.

    Membership is the log's: a session's memories join its open box as they are ingested, and
    this event closes the box on exactly the members it names (those that joined after them
    open the next box). The evidence is numbers and ids, never words: the topic terms it was
    judged on are words of the members' texts, read from the store at decision time (the audit
    reads them there too), so that erasing a text leaves no word of it in the log. Replay
    folds this decision; it never re-judges a topic.

    Evidence by reason: ``topic``: ``by`` (the memory whose arrival shifted the topic) and
    ``overlap`` (its overlap with the box's topic, under ``BoxParams.seal_below``); ``gap``:
    ``by`` (the memory that came after the gap; None when a consolidation at ``now`` found the
    session quiet) and ``gap_s``; ``size``: the box reached ``BoxParams.max_size``. The trace:
    ``trace_box`` (the earlier box whose trace it joined; None: it starts ``trace_id``, its own
    id) and ``trace_overlap`` (the best topic overlap among the boxes compared).
    """

    box_id: str
    session: str  # the session's key (events.session_key)
    memory_ids: tuple[str, ...]
    reason: BoxReason
    trace_id: str
    by: str | None = None
    overlap: float | None = None
    gap_s: float | None = None
    trace_box: str | None = None
    trace_overlap: float = 0.0
    now: int | None = None  # a consolidation's now (None: decided after a write)
    policy: str = BOX_POLICY


class MemoryErased(Event, tag="memory.erased", frozen=True, kw_only=True):
    """The content of these memories was erased (section 8 of the architecture): in the same
    transaction the store removed the text, vector and terms of every content hash only erased
    memories referenced (their own text and the caller inputs recorded for them: reinforcement,
    skip and merge inputs). Their events stay, so the hash chain still verifies; a fold shows them
    as ``erased``, with no text and no row in the vector, text or graph views.

    ``memory_ids`` holds ``requested`` (None for a namespace erase) and every memory derived from
    an erased one (``derived_from``, transitively: a merge copies text into a new memory, so
    erasing the source must erase the copy). It never carries text, and ``reason`` is a short
    code ("request"), not prose. One event per namespace.
    """

    memory_ids: tuple[str, ...]  # in creation order
    reason: str = "request"
    requested: str | None = None


class RelationsPruned(Event, tag="graph.relations_pruned", frozen=True, kw_only=True):
    """The dream cycle at ``now`` dropped these relations of a namespace's knowledge graph: seen
    long ago and too weak to keep. Relations are named by digest (``edge_digest``), never by the
    entity names, which are words of texts and must not outlive their erasure."""

    now: int
    edges: tuple[str, ...]  # edge digests, sorted
    strengths: tuple[float, ...]  # each one's strength at now (the evidence)
    policy: str = POLICY_VERSION


def edge_digest(namespace: str, edge_key: str) -> str:
    """The name a relation goes by in events: a digest of its namespace and key."""
    return hashlib.blake2b(f"{namespace}\x00{edge_key}".encode(), digest_size=12).hexdigest()


AnyEvent = (
    EmbedderRegistered
    | MemoryIngested
    | MemoryReinforced
    | MemoryRecalled
    | MemoryForgotten
    | MemoryPinned
    | MemoryUnpinned
    | CommitmentResolved
    | MemoryTouched
    | FeedbackGiven
    | LifecycleTransitioned
    | TierChanged
    | MemoryInvalidated
    | MemoryRejected
    | MemorySkipped
    | MemorySuperseded
    | ConflictFlagged
    | ConflictResolved
    | RelationsPruned
    | MemoriesRehearsed
    | MemoriesDormant
    | MemoryConsolidated
    | CategorySummarized
    | MemoryErased
    | MemoriesTagged
    | MemoriesStrengthened
    | TagsExpired
    | EmotionConsolidated
    | BoxSealed
)

EVENT_TYPES: Final[tuple[type[Event], ...]] = AnyEvent.__args__


# Statuses in which a memory's content is gone: its rows leave the vector and text views.
CONTENT_GONE: Final = frozenset({"purged", "erased"})


def purged_ids(event: Event) -> frozenset[str]:
    """The memories whose content an event removes (a sweep's purges, an erasure)."""
    if isinstance(event, MemoryErased):
        return frozenset(event.memory_ids)
    if isinstance(event, LifecycleTransitioned):
        return frozenset(c.memory_id for c in event.changes if c.to_status in CONTENT_GONE)
    return frozenset()

# Events whose content (text blob and vector) the log reader joins before projections fold them.
CONTENT_EVENTS: Final[tuple[type[Event], ...]] = (MemoryIngested, ConflictFlagged)


def event_tag(event: Event) -> str:
    """The stored tag of an event (``memory.ingested``...)."""
    return type(event).__struct_config__.tag  # type: ignore[return-value]


def memory_ids_of(event: Event) -> tuple[str, ...]:
    """The memories an event touches, for the by-memory index."""
    if isinstance(event, MemorySuperseded):
        return (event.memory_id, event.by)
    if isinstance(event, ConflictFlagged):
        return (event.memory_id, event.other_id)
    if isinstance(event, ConflictResolved):
        return (event.winner, event.loser)
    if isinstance(event, MemoryConsolidated):
        return (event.memory_id, *event.members)
    if isinstance(event, CategorySummarized):
        return (event.memory_id,) if event.replaces is None else (event.memory_id, event.replaces)
    mid = getattr(event, "memory_id", None)
    if mid is not None:
        return (mid,)
    if isinstance(event, MemoryRecalled | MemoryErased | MemoriesTagged | TagsExpired
                  | BoxSealed):
        return event.memory_ids
    if isinstance(event, MemoriesStrengthened):
        changed = tuple(change.memory_id for change in event.changes)
        return changed + tuple(mid for mid in event.evidence if mid not in changed)
    if isinstance(event, LifecycleTransitioned | TierChanged | MemoriesRehearsed
                  | MemoriesDormant | EmotionConsolidated):
        return tuple(change.memory_id for change in event.changes)
    return ()

"""The typed configuration of a store: every parameter in one frozen struct with the seeds'
defaults (ARCHITECTURE.md section 9). Pass ``eventmem.open(path, config=Config(...))``.

The parameters are inputs to every decision (the gate's thresholds, the stabilities, the sweep's
and the dream cycle's limits), and a store may be opened with other ones tomorrow. So a writer
records the config it decides with (:func:`record_config`, in the store's meta: each config
with the seq from which it decided), and the audit re-derives each decision with the config in
force when it was made (:func:`recorded_configs`), not with the auditing engine's.
"""

from __future__ import annotations

import functools

import msgspec

from eventmem.errors import InvalidInputError
from eventmem.events import MEMORY_KINDS
from eventmem.policies.boxes import BoxParams
from eventmem.policies.category import CategoryParams
from eventmem.policies.decay import DecayParams
from eventmem.policies.dream.params import DreamParams
from eventmem.policies.gate import GateParams
from eventmem.policies.importance import ImportanceParams
from eventmem.policies.lifecycle import LifecycleParams
from eventmem.policies.observer.rules import ObserverParams
from eventmem.policies.plasticity import PlasticityParams
from eventmem.policies.routing import RoutingParams
from eventmem.policies.tiers import TierParams
from eventmem.policies.utility import UtilityParams
from eventmem.storage.environment import DEFAULT_MAP_SIZE
from eventmem.storage.log import EventLog
from eventmem.storage.opslog import DEFAULT_KEEP, DEFAULT_MAX_BYTES


class FormationParams(msgspec.Struct, frozen=True, kw_only=True):
    """How memories are formed from what is said, without a model (issue 18 item 5)."""

    # A short-horizon plan that names no time ends this many days after it was said
    # (eventmem.policies.horizon; the seeds' window is 7); 0 gives none (a plan without a time
    # phrase stays open). On mc-dev (daily) it lifts plan acc@1 0.639 -> 0.861 with no other
    # figure falling (with gate-9's reschedules; before them it hid one more past value).
    plan_window_days: float = 7.0
    # A memory whose text opens a sentence with a pronoun that names no one before it ("He
    # works at Google now") is linked to the person its session named last, looking back at
    # most coref_lookback memories (eventmem.policies.extract.coref; recorded as coref_of).
    coreference: bool = True
    coref_lookback: int = 8
    # A compound statement about different named subjects ("Alice moved to Paris and Bob
    # started a job at Google.") is stored as one memory per clause (eventmem.policies.split),
    # each with the caller's metadata; the caller gets the first clause's result.
    split_compounds: bool = True


BASE_STABILITY_DAYS: dict[str, float] = {
    "identity": 365.0,
    "preference": 180.0,
    "relationship": 180.0,
    "event": 60.0,
    "activity": 45.0,
    "plan": 30.0,
    "context": 7.0,
    "ephemeral": 1.0,
}


class Config(msgspec.Struct, frozen=True, kw_only=True):
    """Every parameter of a store, with the seeds' defaults; an invalid value is refused on
    construction (InvalidInputError)."""

    # Storage
    sync: bool = True  # fsync every call: a returned call is durable
    map_size: int = DEFAULT_MAP_SIZE  # initial LMDB map; it doubles when full
    # Events between automatic snapshots (one is also taken on close). The gap grows to half the
    # log once that is larger, so the snapshot cost per event stays flat as a store grows.
    snapshot_every: int = 50_000
    # Snapshots kept (at least 1). Open reads only the newest; an older one serves only an
    # ``as_of(seq=...)`` before the newest, which otherwise folds the log from the start. Each
    # holds every projection and vector row (1.9 KB a memory with the default embedder,
    # ops.bench.scale at 10k), so a second one was 29% of a compacted store, for a rare read.
    # A crash while a snapshot is written leaves the one before it (one transaction).
    snapshots_kept: int = 1
    # Whether a snapshot holds its own copy of the float32 vector rows (4 x dim bytes a memory,
    # a third of a compacted store with the default embedder). Kept, an open maps them in place
    # and reads nothing until a query does; not kept, the snapshot names each row by its content
    # key (16 bytes) and an open reads and unpacks every row from the store's vector table:
    # about 1.1 KB a memory less disk (ops.bench.scale at 10k: 3,249 -> 2,100 B), for a slower
    # open (5-12 us a row) and the rows in anonymous memory rather than file pages.
    snapshot_rows: bool = True
    # The ops log (<store>/ops.log, diagnostics only) rotates once it would pass this size, and
    # keeps this many rotated files (ops.log.1 newest): at most about (files + 1) x size on disk.
    ops_log_max_bytes: int = DEFAULT_MAX_BYTES
    ops_log_files: int = DEFAULT_KEEP

    # Input limits
    max_text_chars: int = 16_000
    max_namespace_chars: int = 128
    max_query_chars: int = 4_000
    max_k: int = 1_000

    # Memory model
    default_kind: str = "context"  # kind when neither the caller nor a classifier rule decides
    base_stability_days: dict[str, float] = msgspec.field(
        default_factory=lambda: dict(BASE_STABILITY_DAYS)
    )
    decay: DecayParams = msgspec.field(default_factory=DecayParams)
    lifecycle: LifecycleParams = msgspec.field(default_factory=LifecycleParams)
    utility: UtilityParams = msgspec.field(default_factory=UtilityParams)
    tiers: TierParams = msgspec.field(default_factory=TierParams)
    categories: CategoryParams = msgspec.field(default_factory=CategoryParams)
    importance: ImportanceParams = msgspec.field(default_factory=ImportanceParams)
    # The write path: the observer filter on input, and the gate (dedup, conflicts, strategy).
    observer: ObserverParams = msgspec.field(default_factory=ObserverParams)
    gate: GateParams = msgspec.field(default_factory=GateParams)
    # Plasticity: synaptic tagging and capture, co-activation, spreading activation, and
    # the co-retrieval and mood boosts of recall (see PlasticityParams).
    plasticity: PlasticityParams = msgspec.field(default_factory=PlasticityParams)
    # Memory boxes: a session's consecutive memories grouped until a topic shift, a quiet gap
    # or a full box, and boxes on a recurring topic woven into traces (see BoxParams).
    boxes: BoxParams = msgspec.field(default_factory=BoxParams)
    # Formation: default windows for plans without a time phrase, compound statements split,
    # pronouns resolved (see FormationParams).
    formation: FormationParams = msgspec.field(default_factory=FormationParams)

    def __post_init__(self) -> None:
        _check_types(self)
        if self.default_kind not in MEMORY_KINDS:
            raise InvalidInputError(f"default_kind {self.default_kind!r} is not one of "
                                    f"{', '.join(MEMORY_KINDS)}")
        missing = set(MEMORY_KINDS) - set(self.base_stability_days)
        if missing or any(not days > 0 for days in self.base_stability_days.values()):
            raise InvalidInputError("base_stability_days needs a positive value for every kind "
                                    f"(missing: {sorted(missing)})")
        if not self.formation.plan_window_days >= 0:
            raise InvalidInputError("formation.plan_window_days must be 0 (no window) or more")
        if self.formation.coref_lookback < 0:
            raise InvalidInputError("formation.coref_lookback must be 0 or more")
        if self.snapshots_kept < 1:
            raise InvalidInputError("snapshots_kept must be at least 1: the newest snapshot is "
                                    "what an open starts from")
        if self.ops_log_max_bytes < 4096 or self.ops_log_files < 0:
            raise InvalidInputError("ops_log_max_bytes must be at least 4096 and ops_log_files "
                                    "at least 0")

    # Retrieval
    rrf_k: int = 60
    candidates_per_channel: int = 50
    record_recalls: bool = True  # a recall appends a memory.recalled event (the access trail)
    recall_cache_size: int = 256  # hot recall answers kept per engine or view (keyed by head)
    # RRF weight of each channel (an intent's route multiplies them). The context channel scores
    # a memory with its session neighbours' text and carries most of the lexical evidence; plain
    # BM25 adds each memory's own words.
    bm25_weight: float = 0.0
    context_weight: float = 1.0
    vector_weight: float = 1.0
    time_weight: float = 1.0
    # Memories reached through a graph path weigh half a direct match (BM25 context, vectors).
    graph_weight: float = 0.5  # memories of the neighbours of the entities the query names
    # A vector match alone counts as evidence of relevance only at this cosine or above (None:
    # the embedder's own relevance_floor; 0.0 returns whatever the vector search finds).
    vector_floor: float | None = None
    # A lexical embedder (the default hashing one) sees the words BM25 sees: its vectors weigh
    # vector_weight x this share x the share of the query's words that no memory holds.
    lexical_vector_share: float = 0.5
    # A semantic (neural) embedder's vectors count at this share of vector_weight: they see
    # paraphrases BM25 misses, but at full weight they outvote exact word matches.
    semantic_vector_share: float = 0.5
    # Neighbouring context: neighbours up to context_radius memories away weigh
    # context_decay ** distance; memories without a common session are neighbours when created
    # within context_gap_s seconds of each other.
    context_radius: int = 2
    context_decay: float = 0.5
    context_gap_s: float = 1_800.0
    expansion_weight: float = 0.5  # BM25 weight of the words only the declarative form adds
    # BM25 weight of the members of a category the query names ("martial arts" -> karate, ...:
    # eventmem.text.hyponyms); 0 switches them off. LoCoMo dev R@10 when it came: 0.776
    # without, 0.782 at 0.3, 0.784 at 0.5 (multi-hop 0.394 -> 0.422), 0.787 at 1.0
    # (open-domain 0.263 -> 0.237).
    hyponym_weight: float = 0.5
    # BM25 weight of the other forms of the query's compounds that the namespace's memories use
    # ("roadtrip" -> "road trip", "road trip" -> "roadtrip": eventmem.recall.compounds);
    # 0 switches them off.
    compound_weight: float = 0.5
    # The answer channel (eventmem.recall.fuse.answers): the turn after one of the answer_seeds
    # best matches that asks a question, at this RRF weight; 0 switches it off. LoCoMo dev R@10
    # 0.785 without; 0.797 at 0.3 with 5 seeds (adversarial 0.866 -> 0.902, single-hop 0.870 ->
    # 0.880, multi-hop 0.429 -> 0.426, R@5 0.669 -> 0.696); at 0.5, 0.796 but multi-hop 0.413
    # and open-domain 0.263 -> 0.237; at 1.0, 0.788 (temporal 0.900 -> 0.889).
    answer_weight: float = 0.3
    answer_seeds: int = 5
    # A question asking for a list: each hit's score times this for every better hit of its
    # session (eventmem.recall.fuse.spread_sessions); 1 switches it off.
    session_spread: float = 0.8
    # The composite (eventmem.recall.score): how far the profile's priors may move a score (+-, at
    # the default profile), the recency half-life, and ACT-R activation's most added share.
    prior_lift: float = 0.05
    recency_half_life_days: float = 30.0
    activation_weight: float = 0.1
    cue_boost: float = 1.1  # the intent's cue (a time mentioned for "when"...)
    # MMR over a pool of pool_factor x k candidates; similarity counts above mmr_floor.
    mmr_lambda: float = 0.7
    mmr_floor: float = 0.0
    pool_factor: int = 3
    # Per-intent routing (superseded memories for "when", causal links for "why"), the boosts
    # (session, entities, sub-tiers, open conflicts) and the seed's hot tier.
    routing: RoutingParams = msgspec.field(default_factory=RoutingParams)

    # Maintenance: the dream cycle that consolidate() runs after the lifecycle sweep
    # (rehearsal, strategic forgetting, clusters, category summaries; see DreamParams).
    dream: DreamParams = msgspec.field(default_factory=DreamParams)


@functools.cache
def _fields(cls: type[Config]) -> tuple[msgspec.structs.FieldInfo, ...]:
    return msgspec.structs.fields(cls)  # resolves the annotations: a millisecond each time


def _check_types(config: Config) -> None:
    """Refuse a field whose value is not of its declared type (msgspec does not check types on
    construction): ``Config(max_k="5")`` would otherwise fail later, inside some call, with a
    TypeError. Each value must convert to its field's type strictly (an int is a float; a bool
    is not an int), nested parameter structs field by field."""
    for field in _fields(type(config)):
        try:
            msgspec.convert(msgspec.to_builtins(getattr(config, field.name)), field.type)
        except (msgspec.ValidationError, TypeError, ValueError, OverflowError) as exc:
            raise InvalidInputError(f"Config.{field.name}: {exc}") from None


# meta key of the config history: msgpack [[from_seq, msgpack Config], ...], by from_seq.
CONFIGS_KEY = b"configs"


def _encoded(config: Config) -> bytes:
    return msgspec.msgpack.encode(config, order="deterministic")


def _history(log: EventLog) -> list[tuple[int, bytes]]:
    raw = log.get_meta(CONFIGS_KEY)
    if raw is None:
        return []
    return [(int(seq), bytes(data))
            for seq, data in msgspec.msgpack.decode(raw, type=list[tuple[int, bytes]])]


def record_config(log: EventLog, config: Config) -> None:
    """Note in the store's meta that ``config`` decides from the next seq on; nothing when it is
    the config already in force. Called by a writer when it opens the store."""
    history = _history(log)
    encoded = _encoded(config)
    if history and history[-1][1] == encoded:
        return
    start = log.head().seq + 1
    if history and history[-1][0] == start:  # the last one decided nothing: replace it
        history.pop()
    history.append((start, encoded))
    log.set_meta(CONFIGS_KEY, msgspec.msgpack.encode(history))


def recorded_configs(log: EventLog) -> list[tuple[int, Config | None]]:
    """The configs the store's writers decided with: (first seq, config), by seq. None for one
    this code cannot decode (written by a newer eventmem with an incompatible parameter).
    Decisions before the first entry were made before stores recorded their config."""
    out: list[tuple[int, Config | None]] = []
    for start, data in _history(log):
        try:
            config: Config | None = msgspec.msgpack.decode(data, type=Config)
        except (msgspec.DecodeError, msgspec.ValidationError, InvalidInputError):
            config = None
        out.append((start, config))
    return out

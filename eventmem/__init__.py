"""eventmem: long-term memory for AI agents, as an event-sourced engine with a replayable log.

    import eventmem
    with eventmem.open("path/to/store") as mem:
        mem.remember("Alice moved to Berlin in March", namespace="alice")
        hits = mem.recall("where does alice live", namespace="alice")

    mem = eventmem.connect("http://127.0.0.1:8765", token=...)   # the same, through a server
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from eventmem.errors import (
    ClosedError,
    CorruptRecordError,
    CorruptStoreError,
    EmbedderError,
    EmbedderMismatchError,
    EventmemError,
    IncompatibleStoreError,
    InvalidInputError,
    JudgeError,
    NotFoundError,
    ReadOnlyError,
    StorageFullError,
    StoreError,
    StoreLockedError,
)

if TYPE_CHECKING:
    from eventmem.clock import Clock, ManualClock, SystemClock
    from eventmem.config import Config, FormationParams
    from eventmem.engine import Engine
    from eventmem.graph import Entity, GraphReader, Link, Neighbor, Relation
    from eventmem.judges import Judges
    from eventmem.judges.openai_compatible import OpenAICompatibleJudge
    from eventmem.maintain.sweep import ConsolidationReport
    from eventmem.policies.boxes import BoxParams
    from eventmem.policies.conflict.judge import (
        ContradictionAnswer,
        ContradictionJudge,
        ContradictionQuestion,
        RuleContradictionJudge,
    )
    from eventmem.policies.decay import DecayParams
    from eventmem.policies.dream.params import DreamParams
    from eventmem.policies.dream.summaries import Summarizer
    from eventmem.policies.extract.judge import (
        ExtractedEntity,
        ExtractedFact,
        FactAnswer,
        FactExtractor,
        FactQuestion,
        RuleFactExtractor,
    )
    from eventmem.policies.gate import GateParams
    from eventmem.policies.importance import ImportanceParams
    from eventmem.policies.lifecycle import LifecycleParams
    from eventmem.policies.links import (
        JudgedLink,
        LinkAnswer,
        LinkCandidate,
        LinkJudge,
        LinkQuestion,
        RuleLinkJudge,
    )
    from eventmem.policies.observer.rules import ObserverParams
    from eventmem.policies.plasticity import PlasticityParams
    from eventmem.policies.routing import RoutingParams
    from eventmem.policies.tiers import TierParams
    from eventmem.policies.utility import UtilityParams
    from eventmem.reader import View
    from eventmem.recall.channels import Channel
    from eventmem.recall.intent import (
        IntentAnswer,
        IntentClassifier,
        IntentQuestion,
        RuleIntentClassifier,
    )
    from eventmem.results import (
        Box,
        BoxNeighbour,
        Conflict,
        HistoryEntry,
        Hit,
        Memory,
        RememberResult,
        Version,
    )
    from eventmem.serve.client import connect
    from eventmem.storage.log import Head
    from eventmem.text.embedders import Embedder, HashingEmbedder
    from eventmem.text.neural import MiniLMEmbedder
    from eventmem.write.erase import Erasure
    from replay.audit import AuditReport
    from replay.verify import VerifyReport

__version__ = "0.1.0"

# Everything but the errors loads on first use (see __getattr__): ``import eventmem`` stays cheap
# (no projection, policy or numpy until a store is opened or a name is asked for), so the CLI
# answers --help at once. Public name -> the module that defines it.
_LAZY = {
    "AuditReport": "replay.audit",
    "Box": "eventmem.results",
    "BoxNeighbour": "eventmem.results",
    "BoxParams": "eventmem.policies.boxes",
    "Channel": "eventmem.recall.channels",
    "Clock": "eventmem.clock",
    "Config": "eventmem.config",
    "Conflict": "eventmem.results",
    "ConsolidationReport": "eventmem.maintain.sweep",
    "ContradictionAnswer": "eventmem.policies.conflict.judge",
    "ContradictionJudge": "eventmem.policies.conflict.judge",
    "ContradictionQuestion": "eventmem.policies.conflict.judge",
    "DecayParams": "eventmem.policies.decay",
    "DreamParams": "eventmem.policies.dream.params",
    "Embedder": "eventmem.text.embedders",
    "Engine": "eventmem.engine",
    "Entity": "eventmem.graph",
    "Erasure": "eventmem.write.erase",
    "ExtractedEntity": "eventmem.policies.extract.judge",
    "ExtractedFact": "eventmem.policies.extract.judge",
    "FactAnswer": "eventmem.policies.extract.judge",
    "FactExtractor": "eventmem.policies.extract.judge",
    "FactQuestion": "eventmem.policies.extract.judge",
    "FormationParams": "eventmem.config",
    "GateParams": "eventmem.policies.gate",
    "GraphReader": "eventmem.graph",
    "HashingEmbedder": "eventmem.text.embedders",
    "Head": "eventmem.storage.log",
    "HistoryEntry": "eventmem.results",
    "Hit": "eventmem.results",
    "ImportanceParams": "eventmem.policies.importance",
    "IntentAnswer": "eventmem.recall.intent",
    "IntentClassifier": "eventmem.recall.intent",
    "IntentQuestion": "eventmem.recall.intent",
    "JudgedLink": "eventmem.policies.links",
    "Judges": "eventmem.judges",
    "LifecycleParams": "eventmem.policies.lifecycle",
    "Link": "eventmem.graph",
    "LinkAnswer": "eventmem.policies.links",
    "LinkCandidate": "eventmem.policies.links",
    "LinkJudge": "eventmem.policies.links",
    "LinkQuestion": "eventmem.policies.links",
    "ManualClock": "eventmem.clock",
    "Memory": "eventmem.results",
    "MiniLMEmbedder": "eventmem.text.neural",
    "Neighbor": "eventmem.graph",
    "ObserverParams": "eventmem.policies.observer.rules",
    "OpenAICompatibleJudge": "eventmem.judges.openai_compatible",
    "PlasticityParams": "eventmem.policies.plasticity",
    "Relation": "eventmem.graph",
    "RememberResult": "eventmem.results",
    "RoutingParams": "eventmem.policies.routing",
    "RuleContradictionJudge": "eventmem.policies.conflict.judge",
    "RuleFactExtractor": "eventmem.policies.extract.judge",
    "RuleIntentClassifier": "eventmem.recall.intent",
    "RuleLinkJudge": "eventmem.policies.links",
    "Summarizer": "eventmem.policies.dream.summaries",
    "SystemClock": "eventmem.clock",
    "TierParams": "eventmem.policies.tiers",
    "UtilityParams": "eventmem.policies.utility",
    "VerifyReport": "replay.verify",
    "Version": "eventmem.results",
    "View": "eventmem.reader",
    "connect": "eventmem.serve.client",
}

__all__ = [
    "AuditReport",
    "Box",
    "BoxNeighbour",
    "BoxParams",
    "Channel",
    "Clock",
    "ClosedError",
    "Config",
    "Conflict",
    "ConsolidationReport",
    "ContradictionAnswer",
    "ContradictionJudge",
    "ContradictionQuestion",
    "CorruptRecordError",
    "CorruptStoreError",
    "DecayParams",
    "DreamParams",
    "Embedder",
    "EmbedderError",
    "EmbedderMismatchError",
    "Engine",
    "Entity",
    "Erasure",
    "EventmemError",
    "ExtractedEntity",
    "ExtractedFact",
    "FactAnswer",
    "FactExtractor",
    "FactQuestion",
    "FormationParams",
    "GateParams",
    "GraphReader",
    "HashingEmbedder",
    "Head",
    "HistoryEntry",
    "Hit",
    "ImportanceParams",
    "IncompatibleStoreError",
    "IntentAnswer",
    "IntentClassifier",
    "IntentQuestion",
    "InvalidInputError",
    "JudgeError",
    "JudgedLink",
    "Judges",
    "LifecycleParams",
    "Link",
    "LinkAnswer",
    "LinkCandidate",
    "LinkJudge",
    "LinkQuestion",
    "ManualClock",
    "Memory",
    "MiniLMEmbedder",
    "Neighbor",
    "NotFoundError",
    "ObserverParams",
    "OpenAICompatibleJudge",
    "PlasticityParams",
    "ReadOnlyError",
    "Relation",
    "RememberResult",
    "RoutingParams",
    "RuleContradictionJudge",
    "RuleFactExtractor",
    "RuleIntentClassifier",
    "RuleLinkJudge",
    "StorageFullError",
    "StoreError",
    "StoreLockedError",
    "Summarizer",
    "SystemClock",
    "TierParams",
    "UtilityParams",
    "VerifyReport",
    "Version",
    "View",
    "connect",
    "open",
]


def open(  # the documented name, as in ``eventmem.open(path)``; shadows the builtin here only
    path: str | os.PathLike[str],
    *,
    clock: Clock | None = None,
    embedder: Embedder | None = None,
    config: Config | None = None,
    readonly: bool = False,
    summarizer: Summarizer | None = None,
    judges: Judges | None = None,
) -> Engine:
    """Open (or create) the store at ``path``. Use it as a context manager.

    ``clock``: where time comes from (SystemClock by default; ManualClock for tests).
    ``embedder``: None uses the store's own (the default HashingEmbedder for a new store).
    ``readonly``: read a store another process writes; queries see its latest appends.
    ``summarizer``: what writes the text of consolidated memories and category summaries during
    ``consolidate`` (any object with ``summarize(texts) -> str``; None: extractive). Its output
    is stored, so a replay never calls it.
    ``judges``: pluggable judges (an LLM...) for contradictions, fact extraction, links and
    recall intent, each deciding in place of the rules (:class:`Judges`; None: the rules). Their
    answers are recorded in the events, so replay never calls them and audit checks against
    them.
    """
    from eventmem.engine import Engine

    return Engine(path, clock=clock, embedder=embedder, config=config, readonly=readonly,
                  summarizer=summarizer, judges=judges)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    # Importing a kernel module (eventmem.codec, eventmem.events...) from projections/ or replay/
    # never drags the engine in this way, and the import order cannot cycle.
    module = _LAZY.get(name)
    if module is not None:
        import importlib

        value = getattr(importlib.import_module(module), name)
        globals()[name] = value  # later lookups are plain attribute reads
        return value
    raise AttributeError(f"module 'eventmem' has no attribute {name!r}")

"""What a re-run of a decision reads: content by hash (noting what is gone since), and the
caller's items rebuilt from the events that recorded their decisions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from eventmem.events import MemoryIngested, MemoryReinforced, MemorySkipped
from eventmem.policies.classify import CLASSIFY_1
from eventmem.storage.envelope import Content
from eventmem.storage.log import EventLog
from eventmem.text.embedders import Embedder
from eventmem.text.normalize import content_hash
from eventmem.write.analysis import contents_for
from eventmem.write.batch import CALLER_UPDATE
from eventmem.write.items import Item
from projections import Projections

# Texts an audit keeps between its re-runs (a few hundred bytes each): enough for the memories a
# write gate reads again batch after batch (its neighbours, the latest memory of each attribute).
TEXTS_KEPT = 1 << 16


class Texts:
    """Stored texts by content hash, read once for a whole audit, at most ``maxsize`` kept (the
    oldest read go first).

    The write gate reads the texts of the same stored memories batch after batch (about twelve
    reads per text over a store's log), and each read from the log is a read transaction of its
    own. A content hash names one text for good, so a text read once is the text every later
    re-run would read; only a text that is there is kept: one gone is looked up (and found
    missing) each time it is asked for."""

    def __init__(self, log: EventLog, maxsize: int = TEXTS_KEPT) -> None:
        self.log, self.maxsize = log, maxsize
        self.kept: dict[str, str] = {}

    def get(self, chash: str) -> str | None:
        """The stored text of ``chash`` (None when it is gone)."""
        text = self.kept.get(chash)
        if text is not None:
            return text
        text = self.log.blob(chash)
        if text is not None:
            self.kept[chash] = text
            if len(self.kept) > self.maxsize:
                del self.kept[next(iter(self.kept))]
        return text


class Lookups:
    """Content lookups for a re-run, noting whether any content it asked for is gone.

    ``texts``: the stored texts an audit shares between its re-runs (None: read from the log
    each time)."""

    def __init__(self, log: EventLog, views: Projections, embedder: Embedder,
                 texts: Texts | None = None) -> None:
        self.log, self.views, self.embedder = log, views, embedder
        self.texts = texts if texts is not None else Texts(log, 0)
        self.missing = False

    def blob(self, chash: str) -> str | None:
        """The stored text of a content hash; None, noted as missing, when it is gone."""
        text = self.texts.get(chash)
        if text is None:
            self.missing = True
        return text

    def text_of(self, memory_id: str) -> str:
        """A memory's text (``""``, noted as missing, when it is gone)."""
        return self.blob(self.views.state.memories[memory_id].content_hash) or ""

    def vector_of(self, memory_id: str) -> np.ndarray:
        """A memory's stored vector; zeros, noted as missing, when its content is gone."""
        chash = self.views.state.memories[memory_id].content_hash
        content = self.log.contents([chash])[0]
        if content is None or content.vector is None:
            self.missing = True
            return np.zeros(self.embedder.dim, dtype=np.float32)
        return np.frombuffer(content.vector, dtype=np.float32)

    def terms_of(self, hashes: Sequence[str]) -> list[bytes | None]:
        """The stored BM25 terms of each content hash; None, noted as missing, where gone."""
        out = self.log.terms(list(hashes))
        if any(terms is None for terms in out):
            self.missing = True
        return out

    def contents_for(self, texts: Mapping[str, str]) -> dict[str, Content]:
        """As the engine's cache: stored content where whole, the rest analysed now."""
        return contents_for(self.log, self.embedder, texts)

    def analyse(self, text: str) -> Content:
        """A text's content (vector, terms, extraction) as the write path analyses it."""
        chash = content_hash(text)
        return self.contents_for({chash: text})[chash]


def item_input(item: list[Any], tracker: Lookups) -> Item | None:
    """The checked item (as :func:`eventmem.write.items.check_items` makes it) that the write path
    decided ``item`` from; None when its text is gone."""
    head = item[0]
    if isinstance(head, MemoryIngested):
        text = tracker.blob(head.input_hash or head.content_hash)
        strategy = next((getattr(e, "strategy", None) for e in item[1:]
                         if hasattr(e, "strategy")), None)
        return None if text is None else Item(
            text=text, namespace=head.namespace,
            kind=head.kind if head.kind_rule == "caller" else None, source=head.source,
            importance=head.given_importance, confidence=head.confidence,
            valid_from=None if head.valid_from_rule else head.valid_from,
            valid_until=None if head.valid_until_rule else head.valid_until,
            pinned=head.pinned and not head.flashbulb, immutable=head.immutable,
            tags=head.tags, refs=head.refs, session=head.session,
            on_conflict=strategy, gate_policy=head.policy,  # re-decided as it was
            classify_policy=head.kind_policy or CLASSIFY_1,
            # What the caller decided (Batch._given): the memory an update replaced, and an
            # import's original time.
            replaces=head.derived_from[0] if head.rule == CALLER_UPDATE else None,
            created_at=head.created_at,
            times_policy=head.times_policy,  # "": read no time, as before times-1
            emotion_policy=head.emotion_policy,  # "": read no emotion, as before emotion-1
            category_policy=head.category_policy,  # "": no category, as before category-1
            plan_window_days=head.plan_window_days,  # 0: no default window, before horizon-1
            extractor=head.extractor,  # the content was analysed by it when it was stored
            coref_policy=head.coref_policy,  # "": no coreference looked, as before coref-1
            source_hash=head.source_hash, part=head.part, split_policy=head.split_policy,
            tier=head.tier if head.tier_rule == "caller" else None,
        )
    assert isinstance(head, MemoryReinforced | MemorySkipped)
    text = tracker.blob(head.content_hash)
    return None if text is None else Item(
        text=text, namespace=head.namespace, source=head.actor,
        valid_from=head.input_valid_from, valid_until=head.input_valid_until,
        gate_policy=head.policy,
    )

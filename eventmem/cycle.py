"""The state of one dream cycle under way: what it was given, what it decided so far, and the
overlay that shows the state as those decisions leave it.

The steps of :mod:`eventmem.dream` must see what earlier steps decided, yet nothing may be folded
into the live projections before the cycle's one atomic append. :class:`Overlay` keeps copies of
the records the cycle's events touch (and records of the memories it creates), folded with the
very same ``projections.state.apply`` and the seqs the log will assign: the state a step sees is
exactly the state the log holds just before that step's events, which is also what an audit
re-running the step on the log's prefix sees.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

import msgspec
import numpy as np

from eventmem.config import Config
from eventmem.content import Content
from eventmem.envelope import Envelope
from eventmem.events import DREAM_POLICY, Event, MemoryIngested, memory_ids_of
from eventmem.log import Head
from eventmem.policies.summaries import EXTRACTIVE, Summarizer
from projections import Projections
from projections import state as state_view
from projections.state import MemoryRecord, State

TextOf = Callable[[str], str | None]  # content hash -> the stored text (None when gone)
ContentsFor = Callable[[Mapping[str, str]], Mapping[str, Content]]  # hash -> text, to store


class Overlay:
    """The state as the cycle's events so far leave it, without touching the live state: the
    live records, except those the cycle changed or created, which are folded copies."""

    def __init__(self, base: State, first_seq: int) -> None:
        self._base = base.memories
        self.state = State(
            conflicts=dict(base.conflicts), rehearsed_at=dict(base.rehearsed_at),
            consolidations=dict(base.consolidations), summaries=dict(base.summaries))
        self._next_seq = first_seq
        self._by_namespace: dict[str, list[str]] | None = None
        self.created: list[str] = []

    def get(self, memory_id: str) -> MemoryRecord | None:
        """The record as the cycle's events so far leave it (None: no such memory)."""
        record = self.state.memories.get(memory_id)
        return self._base.get(memory_id) if record is None else record

    def apply(self, events: Iterable[Event]) -> None:
        """Fold events (in log order) into copies of the records they touch."""
        copies = self.state.memories
        for event in events:
            for mid in memory_ids_of(event):
                if mid not in copies and mid in self._base:
                    copies[mid] = msgspec.structs.replace(self._base[mid])
            if isinstance(event, MemoryIngested):
                self.created.append(event.memory_id)
                if self._by_namespace is not None:
                    self._by_namespace.setdefault(event.namespace, []).append(event.memory_id)
            state_view.apply(self.state, Envelope(self._next_seq, event))
            self._next_seq += 1

    def records(self) -> Iterator[MemoryRecord]:
        """Every record, in creation order."""
        copies = self.state.memories
        for mid, record in self._base.items():
            yield copies.get(mid, record)
        for mid in self.created:
            yield copies[mid]

    def namespaces(self) -> list[str]:
        return sorted(self._namespace_ids())

    def namespace_records(self, namespace: str) -> list[MemoryRecord]:
        """The records of one namespace, in creation order."""
        get = self.get
        return [get(mid) for mid in self._namespace_ids().get(namespace, ())]  # type: ignore[misc]

    def _namespace_ids(self) -> dict[str, list[str]]:
        if self._by_namespace is None:
            found: dict[str, list[str]] = {}
            for record in self.records():
                found.setdefault(record.namespace, []).append(record.memory_id)
            self._by_namespace = found
        return self._by_namespace


class Pairs(NamedTuple):
    """The similar pairs among a namespace's active, ordinary memories (see forgetting_step)."""

    ids: list[str]  # the memories searched, in vector row order
    matrix: np.ndarray  # their unit rows (float32)
    i: np.ndarray
    j: np.ndarray
    sims: np.ndarray


class Cycle:
    """One dream cycle under way: its inputs, the events decided so far, and their overlay."""

    def __init__(self, views: Projections, now: int, at: int, config: Config, head: Head,
                 text_of: TextOf, contents_for: ContentsFor,
                 summarizer: Summarizer | None) -> None:
        self.views, self.now, self.at, self.config, self.head = views, now, at, config, head
        self.params = config.dream
        self.dream_policy = DREAM_POLICY  # the version to decide as (an audit may set an older)
        self.summarizer = summarizer or EXTRACTIVE
        self._text_of = text_of
        self._contents_for = contents_for
        self.events: list[Event] = []
        self.contents: dict[str, Content] = {}
        self.state = Overlay(views.state, head.seq + 1)
        self.gone: set[str] = set()  # made dormant by this cycle's forgetting
        self.pairs: dict[str, Pairs] = {}
        self._texts: dict[str, str | None] = {}
        self._rows: dict[str, dict[str, int]] = {}
        self._new_ids = 0

    def emit(self, events: Sequence[Event]) -> None:
        self.events += events
        self.state.apply(events)

    def text(self, chash: str) -> str | None:
        """The stored text of a content hash, the texts this cycle creates included: they are
        in the log (and the audit reads them there) before anything later reads the cycle."""
        made = self.contents.get(chash)
        if made is not None:
            return made.text
        if chash not in self._texts:
            self._texts[chash] = self._text_of(chash)
        return self._texts[chash]

    def store(self, texts: Mapping[str, str]) -> None:
        """Analyse and embed the new texts (content hash -> text) the cycle creates."""
        if texts:
            self.contents.update(self._contents_for(texts))

    def new_memory_id(self) -> str:
        """An id for a memory the cycle creates: from the chain head, like the write path's,
        so a replay of the same log makes the same ids."""
        while True:
            self._new_ids += 1
            digest = hashlib.blake2b(self.head.hash + f"dream:{self._new_ids}".encode(),
                                     digest_size=8).hexdigest()
            memory_id = f"mem_{digest}"
            if self.state.get(memory_id) is None:
                return memory_id

    def rows(self, namespace: str) -> dict[str, int]:
        """Memory id -> its row in the namespace's vector space (built once per cycle)."""
        if namespace not in self._rows:
            space = self.views.vectors.spaces.get(namespace)
            ids = [] if space is None else space.ids[:space.count]
            self._rows[namespace] = {mid: row for row, mid in enumerate(ids)}
        return self._rows[namespace]

    def vector(self, record: MemoryRecord) -> np.ndarray | None:
        """A memory's unit vector: from the vector view, or the content this cycle made."""
        row = self.rows(record.namespace).get(record.memory_id)
        if row is not None:
            return self.views.vectors.spaces[record.namespace].matrix[row]
        content = self.contents.get(record.content_hash)
        if content is None or content.vector is None:
            return None
        return np.frombuffer(content.vector, dtype=np.float32)

    def dream_made(self) -> set[str]:
        """The memories earlier cycles (or this one) made: consolidated ones and summaries."""
        state = self.state.state
        return set(state.consolidations) | {ref.memory_id for ref in state.summaries.values()}

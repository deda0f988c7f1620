"""Memory boxes and the trace weaver (openclaw-engram; issue 18 item 8). Pure decisions: the
state, the trigger and a reader of stored terms in, the ``memory.box_sealed`` events out; the
engine appends them right after the write that triggered them (a consolidation, among its
steps), and the audit re-derives them from the same inputs.

* **Boxes**: the consecutive memories of a session form a box. A memory said in a session joins
  its open box (the state's fold does that, from the ingest alone); a box is sealed when

  - ``topic``: a new memory's content terms overlap the box's topic less than ``seal_below``
    (0.35; the overlap coefficient ``|a & b| / min(|a|, |b|)``): the new memory opens the next
    box;
  - ``gap``: a new memory comes ``gap_s`` (30 min) or more after the box's last one, or a
    consolidation at ``now`` finds the session quiet that long (a session that simply goes
    quiet is sealed lazily, at its next memory or at the next consolidation);
  - ``size``: the box holds ``max_size`` (50) memories, as soon as it does.

  A box's topic is the ``topic_terms`` content terms (stopwords left out) most of its members
  hold, ties by term id. A memory with no content term, or a box whose members' texts are all
  gone (erased), gives no evidence of a shift: the memory joins.
* **Traces**: when a box seals, its topic is compared with the latest box of each of the
  namespace's ``trace_window`` (8) most recently extended traces; at an overlap of
  ``trace_from`` (0.35) or more it joins the trace it overlaps most (the most recent on a tie),
  else it starts a trace of its own. The window bounds the work per seal whatever the store's
  size.

Memories stored without a session are in no box: a box is a stretch of one conversation, and a
namespace's session-less memories come from any caller at any time. Memories the dream cycle
creates are in none either.

Topic terms are words of texts (term ids of their stems): they are read from the store at
decision time (:data:`TermsOf`), never written into an event or a projection, so that erasing a
text leaves nothing of it behind. The events record the outcome and its evidence as numbers and
ids; replay folds them without reading any text.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import msgspec

from eventmem.clock import MICROS_PER_SECOND
from eventmem.errors import InvalidInputError
from eventmem.events import BOX_POLICY, BoxReason, BoxSealed, MemoryIngested
from eventmem.text.normalize import STOPWORDS, packed_parts, term_id
from projections.state import BoxRecord, State, box_id_of, box_session, working_key

__all__ = ["BOX_POLICY", "BoxParams", "TermsOf", "after_write", "boxed", "content_terms",
           "overlap", "quiet_boxes", "trace_id_of"]

# content hashes -> their packed BM25 terms (eventmem.text.normalize.packed_terms); None where
# the store no longer holds the content (erased, purged).
TermsOf = Callable[[Sequence[str]], list[bytes | None]]


class BoxParams(msgspec.Struct, kw_only=True, frozen=True):
    """The parameters of memory boxes and traces (``Config.boxes``), with the seed's defaults."""

    enabled: bool = True
    seal_below: float = 0.35  # topic overlap under this seals the open box
    gap_s: float = 30 * 60.0  # a quiet gap this long seals it
    max_size: int = 50  # a box this full is sealed
    topic_terms: int = 24  # the content terms a box's topic keeps
    trace_from: float = 0.35  # topic overlap with a trace's latest box from which a box joins it
    trace_window: int = 8  # the most recently extended traces of a namespace compared

    def __post_init__(self) -> None:
        if not (0.0 <= self.seal_below <= 1.0 and 0.0 <= self.trace_from <= 1.0):
            raise InvalidInputError("seal_below and trace_from must be in [0, 1]")
        if not self.gap_s > 0 or self.max_size < 1 or self.topic_terms < 1 \
                or self.trace_window < 0:
            raise InvalidInputError("gap_s must be > 0, max_size and topic_terms >= 1, "
                                    "trace_window >= 0")


# Function words say nothing about a topic ("the", "was"...): their term ids are left out.
_STOP_IDS = frozenset(term_id(word) for word in STOPWORDS)


def content_terms(packed: bytes | None) -> frozenset[int]:
    """The content terms of a text's packed terms (its stopwords left out); none when gone."""
    if not packed:
        return frozenset()
    _, ids, _ = packed_parts(packed)
    return frozenset(array("I", ids)) - _STOP_IDS


def overlap(a: frozenset[int], b: frozenset[int]) -> float:
    """The overlap coefficient of two term sets (0 when either is empty): the share of the
    smaller one the other holds, so that a short memory on the box's topic is not judged a
    shift because the box has said more."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def trace_id_of(box_id: str) -> str:
    """The id of the trace a box starts."""
    return f"trace-{box_id.removeprefix('box-')}"


def boxed(event: MemoryIngested) -> bool:
    """Whether an ingested memory joins a box (the fold's rule, projections.state)."""
    return event.session is not None and not event.policy.startswith("dream-")


class _Decider:
    """One call's decisions: the terms it read (each content hash once) and the boxes it sealed
    so far, which the next seals of the call weave with as if already folded."""

    def __init__(self, state: State, at: int, params: BoxParams, terms_of: TermsOf,
                 now: int | None) -> None:
        self.state, self.at, self.params, self.terms_of, self.now = state, at, params, terms_of, now
        self._terms: dict[str, frozenset[int]] = {}
        # namespace -> [(trace id, box id, topic)] sealed by this call, in order
        self._sealed: dict[str, list[tuple[str, str, frozenset[int]]]] = {}
        self.out: list[BoxSealed] = []

    def terms(self, memory_ids: Iterable[str]) -> list[frozenset[int]]:
        memories = self.state.memories
        hashes = [memories[mid].content_hash for mid in memory_ids]
        missing = list(dict.fromkeys(h for h in hashes if h not in self._terms))
        if missing:
            for chash, packed in zip(missing, self.terms_of(missing), strict=True):
                self._terms[chash] = content_terms(packed)
        return [self._terms[h] for h in hashes]

    def topic(self, memory_ids: Sequence[str]) -> frozenset[int]:
        counts: Counter[int] = Counter()
        for terms in self.terms(memory_ids):
            counts.update(terms)
        ranked = sorted(counts.items(), key=lambda tc: (-tc[1], tc[0]))
        return frozenset(term for term, _ in ranked[:self.params.topic_terms])

    def seal(self, box: BoxRecord, box_id: str, members: list[str], reason: BoxReason, *,
             by: str | None = None, score: float | None = None, gap_s: float | None = None
             ) -> None:
        topic = self.topic(members)
        trace_id, trace_box, best = self.weave(box.namespace, topic)
        if trace_id is None:
            trace_id = trace_id_of(box_id)
        self._sealed.setdefault(box.namespace, []).append((trace_id, box_id, topic))
        self.out.append(BoxSealed(
            at=self.at, namespace=box.namespace, box_id=box_id, session=box.session,
            memory_ids=tuple(members), reason=reason, trace_id=trace_id, by=by, overlap=score,
            gap_s=gap_s, trace_box=trace_box, trace_overlap=best, now=self.now))

    def weave(self, namespace: str, topic: frozenset[int]
              ) -> tuple[str | None, str | None, float]:
        """The trace a sealing box of ``topic`` joins (None: a new one), the box it matched
        and the best overlap found."""
        window = self.params.trace_window
        recent = list(self.state.recent_traces.get(namespace, ()))
        latest: dict[str, tuple[str, frozenset[int]]] = {}
        for trace_id, box_id, sealed_topic in self._sealed.get(namespace, ()):
            if trace_id in recent:
                recent.remove(trace_id)
            recent.append(trace_id)
            latest[trace_id] = (box_id, sealed_topic)
        best = 0.0
        found: tuple[str | None, str | None] = (None, None)
        if not topic or window == 0:
            return None, None, best
        for trace_id in reversed(recent[-window:]):  # the newest first: it wins a tie
            if trace_id in latest:  # sealed by this call
                box_id, theirs = latest[trace_id]
            else:
                box_id = self.state.traces[trace_id][-1]
                theirs = self.topic(self.state.boxes[box_id].members)
            score = overlap(topic, theirs)
            if score > best:
                best, found = score, (trace_id, box_id)
        if best >= self.params.trace_from and found[0] is not None:
            return found[0], found[1], best
        return None, None, best


def after_write(state: State, ingested: Sequence[MemoryIngested], at: int, params: BoxParams,
                terms_of: TermsOf) -> list[BoxSealed]:
    """The seals a write batch's new memories decide (``state``: after the batch folded, so
    each session's open box ends with the batch's memories of that session): walking them in
    order, each seals the box before it on a gap or a topic shift, and a box that reaches
    ``max_size`` is sealed at once."""
    if not params.enabled:
        return []
    news: dict[str, list[str]] = {}  # working key -> the batch's memories, in batch order
    for event in ingested:
        if event.session is not None and boxed(event):
            key = working_key(event.namespace, box_session(event.namespace, event.session))
            news.setdefault(key, []).append(event.memory_id)
    decider = _Decider(state, at, params, terms_of, None)
    memories = state.memories
    limit = round(params.gap_s * MICROS_PER_SECOND)
    for key, new_ids in news.items():
        box_id = state.open_boxes.get(key)
        if box_id is None:
            continue
        box = state.boxes[box_id]
        fresh = set(new_ids)
        current = [mid for mid in box.members if mid not in fresh]
        for mid in new_ids:
            if current:
                reason: BoxReason | None = None
                score: float | None = None
                gap = memories[mid].created_at - memories[current[-1]].created_at
                if len(current) >= params.max_size:  # filled without a decision (an import)
                    reason = "size"
                elif gap >= limit:
                    reason = "gap"
                else:
                    [mine] = decider.terms([mid])
                    topic = decider.topic(current)
                    if mine and topic:
                        score = overlap(mine, topic)
                        reason = "topic" if score < params.seal_below else None
                if reason is not None:
                    decider.seal(box, box_id, current, reason, by=mid,
                                 score=score if reason == "topic" else None,
                                 gap_s=gap / MICROS_PER_SECOND if reason == "gap" else None)
                    current = []
            if not current:
                box_id = box_id_of(mid)
            current.append(mid)
            if len(current) >= params.max_size:
                decider.seal(box, box_id, current, "size")
                current = []
    return decider.out


def quiet_boxes(state: State, now: int, at: int, params: BoxParams, terms_of: TermsOf
                ) -> list[BoxSealed]:
    """A consolidation's step: the open boxes whose session has been quiet for ``gap_s`` or
    more at ``now``, sealed for ``gap``, the longest quiet first (then by box id)."""
    if not params.enabled:
        return []
    limit = round(params.gap_s * MICROS_PER_SECOND)
    quiet = sorted((box for box_id in state.open_boxes.values()
                    if (box := state.boxes[box_id]).members and now - box.last_at >= limit),
                   key=lambda box: (box.last_at, box.box_id))
    decider = _Decider(state, at, params, terms_of, now)
    for box in quiet:
        decider.seal(box, box.box_id, list(box.members), "gap",
                     gap_s=(now - box.last_at) / MICROS_PER_SECOND)
    return decider.out

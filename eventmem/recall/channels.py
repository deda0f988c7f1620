"""Candidate channels of the read path: BM25, neighbouring context, vectors, time and the
knowledge graph.

Each channel ranks the memories a recall may return (``allowed``) and hands back ``(id, score)``
pairs, best first, ties by position (insertion order). A channel only proposes; fusion
(:mod:`eventmem.recall.fuse`) decides. Another channel (the knowledge graph's, say) plugs in as any
callable of the :class:`Channel` protocol.

Per-query work is numpy over a namespace's arrays (as BM25 itself is) plus Python over the
candidates only: nothing here loops over a namespace's memories in Python.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple, Protocol

import numpy as np

from eventmem.clock import MICROS_PER_SECOND
from eventmem.policies.extract.relations import SELF_KEY, extract
from eventmem.text.normalize import STOPWORDS, term_id, tokenize
from projections import Projections
from projections import graph as graph_view
from projections.state import MemoryRecord
from projections.topk import bar, top_allowed

Ranked = list[tuple[str, float]]
Allowed = Callable[[str], bool]


class Channel(Protocol):
    """A pluggable candidate channel: ``(views, namespace, query, n, allowed) -> ranked``."""

    def __call__(self, views: Projections, namespace: str, query: str, n: int,
                 allowed: Allowed) -> Ranked: ...


class Lexical(NamedTuple):
    """One query's BM25 over a namespace: every row's score, and the rows' memory ids (in
    creation order, which the context and time channels rely on)."""

    scores: np.ndarray
    ids: Sequence[str]


def query_terms(text: str) -> list[int]:
    """The term ids BM25 matches for a query: its content words (stopwords carry no meaning in a
    question: "what did", "when was"), or every word when it has no content word."""
    words = tokenize(text)
    content = [w for w in words if w not in STOPWORDS]
    return [term_id(w) for w in (content or words)]


def lexical(views: Projections, namespace: str, groups: Sequence[tuple[str, float]]) -> Lexical:
    """BM25 scores of every memory of ``namespace`` for weighted texts: the query (weight 1) and
    its expansions (words the query lacks, at their weight)."""
    index = views.text.indexes.get(namespace)
    if index is None:
        return Lexical(np.zeros(0), ())
    total: np.ndarray | None = None
    seen: set[int] = set()
    for text, weight in groups:
        terms = [t for t in query_terms(text) if t not in seen]
        seen.update(terms)
        if not terms or weight <= 0:
            continue
        part = index.scores(terms)
        total = part * weight if total is None else total + part * weight
    return Lexical(np.zeros(len(index.ids)) if total is None else total, index.ids)


def bm25(found: Lexical, n: int, allowed: Allowed) -> Ranked:
    """The plain BM25 channel: each memory on its own words."""
    return top_allowed(found.scores, found.ids, n, allowed)


# -- neighbouring context -----------------------------------------------------------------------


def kernel(radius: int, decay: float) -> list[float]:
    """Weights of the neighbours at distance 1..radius: ``decay ** d``."""
    return [decay**d for d in range(1, radius + 1)]


def smoothed(scores: np.ndarray, weights: Sequence[float]) -> np.ndarray:
    """Each row's score plus its neighbours' scores weighted by distance, session breaks
    ignored: an upper bound of :func:`context_scores`, cheap enough to rank a whole namespace."""
    kernel = np.array([*weights[::-1], 1.0, *weights])
    if len(scores) >= len(kernel):
        # One pass in C (the kernel is symmetric, so convolving is correlating).
        return np.convolve(scores, kernel, mode="same")
    out = scores.copy()
    for d, w in enumerate(weights, start=1):
        if d >= len(scores):
            break
        out[d:] += w * scores[:-d]
        out[:-d] += w * scores[d:]
    return out


def same_session(a: MemoryRecord, b: MemoryRecord, gap_s: float) -> bool:
    """Whether two memories of a namespace belong to one conversation: the same session when
    both name one, else created within ``gap_s`` seconds of each other (interleaved sessions
    stay apart; a long pause starts a new conversation)."""
    if a.session is not None and b.session is not None:
        return a.session == b.session
    return abs(a.created_at - b.created_at) <= gap_s * MICROS_PER_SECOND


def context_scores(found: Lexical, rows: Sequence[int], memories: Mapping[str, MemoryRecord],
                   weights: Sequence[float], gap_s: float, allowed: Allowed) -> list[float]:
    """The scores of memories (by row) with the text around them: each one's own BM25 plus its
    session neighbours' (the memories created up to ``len(weights)`` rows before and after it),
    weighted by distance. Only a neighbour of the same session that the recall may return
    lends its words. Numpy finds the neighbours with a score; Python checks only those."""
    if not len(rows):
        return []
    scores, ids = found.scores, found.ids
    radius = len(weights)
    offsets = np.array([d * side for d in range(1, radius + 1) for side in (-1, 1)])
    kernel = np.repeat(np.asarray(weights, dtype=np.float64), 2)
    base = np.asarray(rows, dtype=np.int64)
    near = base[:, None] + offsets[None, :]
    inside = (near >= 0) & (near < len(ids))
    near_scores = np.where(inside, scores[np.clip(near, 0, len(ids) - 1)], 0.0)
    out = scores[base].astype(np.float64)
    hit_i, hit_j = np.nonzero(near_scores > 0)
    lent = (kernel[hit_j] * near_scores[hit_i, hit_j]).tolist()
    record = memories.get
    for i, row, other, value in zip(hit_i.tolist(), base[hit_i].tolist(),
                                    near[hit_i, hit_j].tolist(), lent, strict=True):
        there = record(ids[other])
        if there is not None and same_session(memories[ids[row]], there, gap_s) \
                and allowed(ids[other]):
            out[i] += value
    return out.tolist()


def context(found: Lexical, n: int, allowed: Allowed, memories: Mapping[str, MemoryRecord],
            weights: Sequence[float], gap_s: float, *,
            own: dict[str, float] | None = None) -> Ranked:
    """The context channel: memories ranked by :func:`context_scores`. The smoothed upper bound
    picks ``2n`` rows (numpy), the exact window scores rank them (Python over those only).
    ``own``, when given, receives each returned memory's own BM25 score."""
    if not len(found.ids):
        return []
    rough = smoothed(found.scores, weights)
    rows = [row for row in top_rows(rough, 2 * n) if allowed(found.ids[row])]
    exact = context_scores(found, rows, memories, weights, gap_s, allowed)
    ranked = sorted((-score, row) for score, row in zip(exact, rows, strict=True) if score > 0)
    if own is not None:
        for _, row in ranked[:n]:
            own.setdefault(found.ids[row], float(found.scores[row]))
    return [(found.ids[row], -neg) for neg, row in ranked[:n]]


def top_rows(scores: np.ndarray, n: int) -> list[int]:
    """Rows of the ``n`` highest positive scores, best first, ties by row."""
    if not len(scores) or n <= 0:
        return []
    least = bar(scores, n) if n < len(scores) else 0.0  # every candidate reaches it
    part = np.flatnonzero(scores >= least if least > 0 else scores > 0)
    order = part[np.lexsort((part, -scores[part]))][:n]
    return order.tolist()


# -- time ----------------------------------------------------------------------------------------


def created_between(found: Lexical, memories: Mapping[str, MemoryRecord], start: int,
                    end: int) -> tuple[int, int]:
    """Rows ``[lo, hi)`` of the memories created in ``[start, end)``: rows are in creation order
    and the log's time never goes back, so two binary searches find them."""
    ids = found.ids

    def created(mid: str) -> int:
        return memories[mid].created_at

    return bisect_left(ids, start, key=created), bisect_left(ids, end, key=created)


def rows_of(found: Lexical, memories: Mapping[str, MemoryRecord], ids: Sequence[str]) -> list[int]:
    """The rows of ``ids`` in ``found`` (rows are in creation order: a binary search each),
    leaving out those it does not hold."""

    def created(mid: str) -> int:
        return memories[mid].created_seq

    rows = []
    for memory_id in ids:
        record = memories.get(memory_id)
        if record is None:
            continue
        row = bisect_left(found.ids, record.created_seq, key=created)
        if row < len(found.ids) and found.ids[row] == memory_id:
            rows.append(row)
    return rows


def time_channel(found: Lexical, n: int, allowed: Allowed, memories: Mapping[str, MemoryRecord],
                 start: int, end: int, weights: Sequence[float], gap_s: float, *,
                 match: bool, spoken: Sequence[tuple[str, float]] = ()) -> Ranked:
    """Memories tied to the span ``[start, end)``: those created in it, and those ``spoken``
    (whose text speaks of a time in it, recorded before or after: "yesterday" said the day
    after; or whose valid time meets it), each with the share of it that lies inside.

    The tie to the time is the evidence; the query's words rank within it. A memory scores
    ``sqrt(share) * (context + base)``, ``base`` the best context score in the list (1 when
    none matched): a memory speaking of the day with no word of the question scores half as
    much as the best match created that day, one speaking of the whole month a fifth as much
    (a created one counts in full). With ``match`` (the query has words besides its time), a
    memory only created then needs a word of the question (the question's words may be a
    name every memory holds, which BM25 weighs at nothing: one that speaks of the time stays
    without); without, every one, those created then newest first, then those speaking of it.
    """
    lo, hi = created_between(found, memories, start, end)
    rows: list[int] = []
    if lo < hi:
        rank = smoothed(found.scores[lo:hi], weights)
        if not match:  # every row qualifies; a larger row is newer
            rank = rank + 1e-9 * np.arange(1, hi - lo + 1) / (hi - lo)
        rows = [lo + row for row in top_rows(rank, 2 * n) if allowed(found.ids[lo + row])]
    share = dict(spoken)
    told = [row for row in rows_of(found, memories, list(share))
            if not lo <= row < hi and allowed(found.ids[row])]
    if len(told) > 2 * n:  # the best by the same bound as those created then
        rough = smoothed(found.scores, weights)[told] if match else np.zeros(len(told))
        told = [told[i] for i in sorted(
            range(len(told)),
            key=lambda i: -math.sqrt(share[found.ids[told[i]]]) * (1.0 + rough[i]))[:2 * n]]
    created = len(rows)
    rows += told
    if not rows:
        return []
    words = context_scores(found, rows, memories, weights, gap_s, allowed)
    base = max(words) if max(words) > 0 else 1.0
    scored = []
    for i, (row, score) in enumerate(zip(rows, words, strict=True)):
        if i < created:
            if match and score <= 0:
                continue  # only created then, and none of the question's words
            scored.append((row, score + base))
        else:
            scored.append((row, math.sqrt(share[found.ids[row]]) * (score + base)))
    # Stable: equal scores keep the order above (newest first when nothing matches).
    scored.sort(key=lambda item: -item[1])
    return [(found.ids[row], score) for row, score in scored[:n]]


def valid_time(record: MemoryRecord) -> int:
    """When a memory's content holds from: its valid time's start, else its recording."""
    return record.created_at if record.valid_from is None else record.valid_from


def overlaps(record: MemoryRecord, start: int, end: int) -> bool:
    """Whether a memory's valid time ``[valid_from, valid_until)``, else its creation time,
    meets ``[start, end)``. A memory whose valid time began by when it was recorded and has no
    end (what the write path records: the recorded time, or the day the text states) is about
    the time it began, as one with no valid time is about its recording: otherwise every fact
    stated before a span would answer "what happened then"."""
    if record.valid_until is None and (record.valid_from is None
                                       or record.valid_from <= record.created_at):
        return start <= valid_time(record) < end
    hi = record.valid_until
    return valid_time(record) < end and (hi is None or hi > start)


# The graph channel reads at most this many of an entity's latest memories, and none of a hub's:
# an entity named by more than HUB_SHARE of a namespace's memories (the speaker of a
# conversation, the user) says as little about what is asked as a stopword does.
GRAPH_MEMORIES_PER_ENTITY = 200
GRAPH_MEMORIES_PER_NEIGHBOUR = 5  # what one neighbour entity may lend its graph weight to
# The words by which a question asks about a relation (policies.extract.relations types): a
# memory of the entity at its other end answers it without sharing a word with the question.
RELATION_CUES: dict[str, frozenset[str]] = {
    relation: frozenset(words.split()) for relation, words in {
        "works_at": "work works working job company employer office firm colleague boss",
        "manages": "manager manages team report reports",
        "reports_to": "boss manager reports supervisor",
        "friend_of": "friend friends",
        "lives_in": "city live lives living home town country place where",
        "parent_of": "kid kids child children son daughter",
        "child_of": "mom mother dad father parent parents",
        "dating": "girlfriend boyfriend dating partner date",
        "married_to": "husband wife spouse married",
        "member_of": "club team group member band",
        "founded": "founder founded company startup business",
        "uses": "use uses using",
        "created": "made created built wrote",
        "collaborates_with": "colleague coworker together",
        "mentors": "mentor mentee",
        "competitor_of": "competitor rival",
        "partner_of": "partner",
        "client_of": "client customer",
        "sibling_of": "brother sister sibling",
    }.items()
}
HUB_SHARE = 0.05
HUB_MIN = 20  # in a small namespace, naming a handful of memories does not make a hub


def graph_channel(views: Projections, namespace: str, query: str, n: int, allowed: Allowed,
                  now: int, found: Lexical, *, hops: int = 1) -> Ranked:
    """Memories naming the neighbours, in the knowledge graph, of the entities the query names:
    "where does Alice's husband work" reaches Sam's memories through Alice's married_to edge.
    (The memories naming Alice herself are the lexical channels' to find: ranking them all
    alike here would only add noise.)

    A neighbour weighs like a rare word, ``ln(1 + N / memories naming it)`` (a hub not at all),
    times the path's strength and half again per hop. Equal
    scores are ordered by the query's BM25 score (an entity's memories all score alike there),
    then the more recent first.
    """
    entities, _ = extract(query)
    keys = [e.key for e in entities if e.key != SELF_KEY]
    index = views.text.indexes.get(namespace)
    if not keys or index is None:
        return []
    # What the query asks besides the names it gives: a neighbour's memory must share a word of
    # it (every turn John speaks names John).
    names = {word for e in entities for word in tokenize(e.name)}
    rest = " ".join(w for w in tokenize(query) if w not in names)
    found = lexical(views, namespace, [(rest, 1.0)]) if rest else Lexical(np.zeros(0), ())
    total = len(index.ids)
    graph, memories = views.graph, views.state.memories
    scores: dict[str, float] = {}

    def created(mid: str) -> int:
        return memories[mid].created_seq

    def lexical_score(mid: str) -> float:  # rows are in creation order: a binary search
        row = bisect_left(found.ids, created(mid), key=created)
        return float(found.scores[row]) if row < len(found.ids) and found.ids[row] == mid \
            else 0.0

    asked = set(tokenize(query))

    def credit(key: str, weight: float, relation: str) -> None:
        count, named = graph_view.latest_memories(graph, namespace, key,
                                                  GRAPH_MEMORIES_PER_ENTITY)
        if not count or count > max(HUB_SHARE * total, HUB_MIN):
            return
        gain = weight * math.log(1.0 + total / count)
        # One neighbour lends its weight to a few of its memories only, those sharing most
        # with the query (then the latest): a neighbour named in fifty memories must not flood
        # the list with fifty equal graph matches.
        # And, unless the query asks about the relation that leads there ("Alice's husband",
        # "Alice's city"), only memories sharing a word with the query: a path alone would tie
        # a neighbour's memories to every question naming the entity ("John's daughter Sara"
        # came up for every question about John).
        about_it = bool(RELATION_CUES.get(relation, frozenset()) & asked)
        best = sorted((mid for mid in named
                       if allowed(mid) and (about_it or lexical_score(mid) > 0)),
                      key=lambda mid: (-lexical_score(mid), -created(mid), mid))
        for memory_id in best[:GRAPH_MEMORIES_PER_NEIGHBOUR]:
            scores[memory_id] = scores.get(memory_id, 0.0) + gain

    for key in dict.fromkeys(keys):
        if graph_view.entity(graph, namespace, key) is None:
            continue
        # Only relations a memory the recall may return states: one known only from a
        # forgotten or superseded memory, or one not true at valid_at, must not lead here.
        for neighbour in graph_view.neighbors(graph, namespace, key, now, hops=hops, limit=20,
                                              stated_by=allowed):
            credit(neighbour.key, neighbour.score * 0.5 ** neighbour.hops, neighbour.via[0][1])
    ranked = [(mid, score) for mid, score in scores.items() if score > 0 and allowed(mid)]
    ranked.sort(key=lambda item: (-item[1], -lexical_score(item[0]), -created(item[0]),
                                  item[0]))
    # Equal graph scores would share one rank in the fusion, whatever BM25 says: the order
    # above (by the query's BM25, then the latest) becomes part of the score, a little less
    # at each step down.
    return [(mid, score * (1.0 - 1e-6 * i)) for i, (mid, score) in enumerate(ranked[:n])]

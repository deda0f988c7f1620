"""Erasure with an immutable log (ARCHITECTURE section 8): what an erase removes, decided from the
projections and the erased memories' own events by pure functions; the engine appends it.

``erase(memory_id=...)`` or ``erase(namespace=...)`` appends one ``memory.erased`` event per
namespace and, in the same LMDB transaction, removes the text, vector and packed terms of every
content hash that only erased memories reference, and every snapshot. The events stay (the hash
chain still verifies); folds show the memories as ``erased``, skeletons without text, gone from
the vector, text and graph views.

What is erased, and why:

* **The cascade.** A merge (near duplicate, conflict ``merge``, consolidation, category summary)
  copies text into a new memory that names its sources in ``derived_from``. Erasing a memory
  therefore erases every memory derived from it, transitively, or a copy of the text would
  survive. (An ``update`` also records ``derived_from``; its text is the caller's own input, but
  it is erased too: erring toward removal is the safe side.) Sources of an erased memory stay.
* **Caller inputs.** The input of a reinforcement or a skip, and the input a merged memory was
  made from (``input_hash``), are kept as blobs; the erased memories' events name them.
* **Shared content stays.** A content hash that a memory not being erased still holds as its
  text (same text in another namespace, say) keeps its bytes: that memory's text is its own. An
  input blob whose text only another memory's reinforcement or skip names is removed with the
  erased memory (the store has no index from content to the events naming it).
* **Into the past.** A view of the past (``as_of``, a rebuild to an older seq) folds the log to
  its seq and then every later erasure: an erased memory is erased in every view, whatever its
  time, because its bytes are gone from the store (see :func:`with_later_erasures`).

What the text yields is content too: the entities and relations the graph extracted are
stored beside the text (by content hash) and go with it. A conflict's evidence (subject and
values, words of the two texts) is content too, and goes with either text.

* **Caller text beside the text.** A memory's tags, refs and session as given are a Labels
  document stored as content (``caller_hash``; the event keeps only the session's key, a
  digest that groups working memory), erased with the memory. A recall's query is content too
  (``query_hash``): a namespace erase removes every query the namespace recorded, and a memory
  erase every query that returned an erased memory (it likely names what the memory said).
* **What stays in the clear.** Reasons (forget, erase) are short codes checked at the API, not
  prose; ids, kinds, scores and times are not caller text. The namespace name itself stays in
  every event (it is the scope, chosen by the application). Logs written before labels-1 carry
  tags, refs, sessions and queries in the clear: an erasure blanks them in the projections and
  snapshots, but the immutable log keeps those records as they are.

Erased bytes remain in LMDB's freed pages until ``compact`` rewrites the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from eventmem.events import (
    CONTENT_GONE,
    ConflictFlagged,
    Event,
    MemoryErased,
    MemoryIngested,
    MemoryRecalled,
    MemoryReinforced,
    MemorySkipped,
    MemorySuperseded,
)
from eventmem.storage.envelope import Envelope
from projections import Projections
from projections.state import MemoryRecord


class Erasure(msgspec.Struct, frozen=True, kw_only=True):
    """What an erase did (empty ``memory_ids``: nothing was left to erase, nothing written)."""

    memory_ids: tuple[str, ...]  # every memory erased, in creation order
    cascaded: tuple[str, ...]  # those erased because derived from an erased one
    contents_removed: int  # distinct texts removed, with their vectors and terms
    seqs: tuple[int, ...]  # the erasure events


def targets(memories: Mapping[str, MemoryRecord], roots: Iterable[str]) -> list[str]:
    """The memories an erase of ``roots`` erases: the roots and every memory derived from one
    (transitively), leaving out those already erased, in creation order."""
    derived: dict[str, list[str]] = {}
    for record in memories.values():
        for source in record.derived_from:
            derived.setdefault(source, []).append(record.memory_id)
    seen = set(roots)
    stack = list(seen)
    while stack:
        for child in derived.get(stack.pop(), ()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    found = [memories[mid] for mid in seen if mid in memories
             and memories[mid].status != "erased"]
    return [r.memory_id for r in sorted(found, key=lambda r: (r.created_seq, r.memory_id))]


def namespace_roots(memories: Mapping[str, MemoryRecord], namespace: str) -> list[str]:
    """Every memory of ``namespace`` (any status)."""
    return [r.memory_id for r in memories.values() if r.namespace == namespace]


def referenced_contents(events: Iterable[Event], erased: set[str]) -> set[str]:
    """The content hashes the erased memories' own events name: their text, the input a merge
    was made from, the inputs of their reinforcements and skips, and the evidence of their
    conflicts."""
    out: set[str] = set()
    for event in events:
        if isinstance(event, MemoryIngested) and event.memory_id in erased:
            out.add(event.content_hash)
            if event.input_hash is not None:
                out.add(event.input_hash)
        elif isinstance(event, MemoryReinforced | MemorySkipped) and event.memory_id in erased:
            out.add(event.content_hash)
        elif isinstance(event, ConflictFlagged) and {event.memory_id, event.other_id} & erased:
            out.add(event.content_hash)  # the evidence quotes both texts
        elif isinstance(event, MemorySuperseded) and event.content_hash is not None \
                and {event.memory_id, event.by} & erased:
            out.add(event.content_hash)  # a plan's evidence quotes it and its report
        if isinstance(event, MemoryIngested) and event.memory_id in erased \
                and event.caller_hash is not None:
            out.add(event.caller_hash)  # the memory's own tags, refs and session
        elif isinstance(event, MemoryRecalled) and event.query_hash is not None \
                and not erased.isdisjoint(event.memory_ids):
            out.add(event.query_hash)  # a query that found it likely names what it said
    return out


def namespace_queries(events: Iterable[Event], namespace: str) -> set[str]:
    """The content hashes of every recall query ``namespace`` recorded (those that found
    nothing included): a namespace erase removes everything the namespace wrote."""
    return {event.query_hash for event in events
            if isinstance(event, MemoryRecalled) and event.namespace == namespace
            and event.query_hash is not None}


def contents_to_drop(memories: Mapping[str, MemoryRecord], erased: set[str],
                     referenced: set[str]) -> list[str]:
    """The referenced content hashes no other memory still holds as its text (any namespace,
    any status but purged or erased), sorted: the bytes removed are a function of the state."""
    candidates = referenced | {memories[mid].content_hash for mid in erased}
    kept = {r.content_hash for r in memories.values()
            if r.content_hash in candidates and r.memory_id not in erased
            and r.status not in CONTENT_GONE}
    return sorted(candidates - kept)


def erasure_events(memories: Mapping[str, MemoryRecord], erased: list[str], *, at: int,
                   reason: str, requested: str | None) -> list[MemoryErased]:
    """One ``memory.erased`` event per namespace (sorted), each listing its memories in
    creation order (``erased`` is in creation order)."""
    by_namespace: dict[str, list[str]] = {}
    for mid in erased:
        by_namespace.setdefault(memories[mid].namespace, []).append(mid)
    return [MemoryErased(at=at, namespace=ns, actor="user", memory_ids=tuple(by_namespace[ns]),
                         reason=reason, requested=requested)
            for ns in sorted(by_namespace)]


def with_later_erasures(views: Projections, later: Iterable[Event]) -> Projections:
    """``views`` (folded to some seq) with the erasures recorded after that seq applied: the
    erased content is gone from the store, so no view of the past may show it. Folded at the
    views' own seq, which stays what it was; ids the views do not hold yet are skipped."""
    return views.apply_all(Envelope(views.seq, event) for event in later
                           if isinstance(event, MemoryErased))

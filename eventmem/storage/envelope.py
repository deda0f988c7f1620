"""What projections fold: an event with its sequence number and the content it references.

Events reference text, vectors and everything derived from the text by content hash (so erasure
can remove the bytes and the log stays immutable). The log reader joins those references before
folding, which keeps every projection a pure function of what it is handed: no projection reads
the store. :func:`appended` makes the same envelopes for events just appended, from the content
the writer already holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

from eventmem.events import CONTENT_EVENTS, Event


class Content(NamedTuple):
    """What the store keeps for one distinct text."""

    text: str
    vector: bytes | None = None  # float32, from the store's embedder
    terms: bytes | None = None  # eventmem.text.normalize.packed_terms(text), the BM25 analysis
    extraction: bytes | None = None  # encoded events.Extraction, the knowledge graph's analysis


class Envelope(NamedTuple):
    """One event as a fold receives it: its seq and, for an event that introduces content, that
    content as the reader joined it."""

    seq: int
    event: Event
    # For events that introduce content: its text (None once erased, and None when the reader was
    # not asked for it: folds need only the cached vector and terms), vector and terms.
    text: str | None = None
    vector: bytes | None = None  # float32 row from the vector cache, same condition
    terms: bytes | None = None  # cached packed_terms(text), same condition
    extraction: bytes | None = None  # the encoded Extraction of the text, same condition
    # An ingest's caller labels (the Labels document its ``caller_hash`` names; None without
    # one, and once erased).
    caller: str | None = None


def appended(
    events: list[Event], seqs: list[int], contents: Mapping[str, Content]
) -> Iterator[Envelope]:
    """The appended events as the log reader would hand them to a fold (with the text too)."""
    for event, seq in zip(events, seqs, strict=True):
        content = contents.get(getattr(event, "content_hash", "")) \
            if isinstance(event, CONTENT_EVENTS) else None
        caller_hash = getattr(event, "caller_hash", None)
        labels = None if caller_hash is None else contents.get(caller_hash)
        caller = None if labels is None else labels.text
        if content is None:
            yield Envelope(seq, event, caller=caller)
        else:
            yield Envelope(seq, event, content.text, content.vector, content.terms,
                           content.extraction, caller)

"""What projections fold: an event with its sequence number and the content it references.

Events reference text, vectors and everything derived from the text by content hash (so erasure
can remove the bytes and the log stays immutable). The log reader joins those references before
folding, which keeps every projection a pure function of what it is handed: no projection reads
the store.
"""

from __future__ import annotations

from typing import NamedTuple

from eventmem.events import Event


class Envelope(NamedTuple):
    seq: int
    event: Event
    # For events that introduce content: its text (None once erased, and None when the reader was
    # not asked for it: folds need only the cached vector and terms), vector and terms.
    text: str | None = None
    vector: bytes | None = None  # float32 row from the vector cache, same condition
    terms: bytes | None = None  # cached packed_terms(text), same condition
    extraction: bytes | None = None  # the encoded Extraction of the text, same condition

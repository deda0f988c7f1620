"""What a consolidated memory or a category summary says, and which memories it is made of.

Both are **extractive by default**: the texts of the ``k`` members closest to the members'
centroid (cosine, float64, each from its own row), one per distinct text (dedup key), put back in
time order (creation order) and joined into one text. A pluggable :class:`Summarizer` (an LLM, a
template...) is given those same texts in the same order and returns the summary instead; its
output is stored as the new memory's text, so a replay never calls it again.

Category summaries (one per namespace and kind with ``summary_min_members`` active memories or
more) are refreshed when their membership changes: the membership is the sorted ids of the
category's active memories (summaries excluded), recorded as a digest and a count.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from eventmem.policies.dream.cluster import centroid_cosines

POLICY_VERSION = "summaries-1"


@runtime_checkable
class Summarizer(Protocol):
    """Turns member texts (in time order) into one summary text.

    ``summarizer_id`` names the method, its model and version (recorded in the event as the
    method); a summarizer without one is recorded by its class name.
    """

    def summarize(self, texts: Sequence[str]) -> str:
        """One text that stands for ``texts`` (non-empty, within ``Config.max_text_chars``)."""
        ...


class Extractive:
    """The default summarizer: the texts themselves, each ending its sentence, joined by a
    space (the selection of which texts is :func:`pick_sources`)."""

    summarizer_id = "extractive-1"

    def summarize(self, texts: Sequence[str]) -> str:
        """The texts joined as sentences."""
        return " ".join(t if t.endswith((".", "!", "?", "…")) else f"{t}." for t in
                        (text.strip() for text in texts) if t)


EXTRACTIVE = Extractive()


def summarizer_id(summarizer: Summarizer) -> str:
    """The recorded method of a summarizer: its ``summarizer_id``, else its class name."""
    name = getattr(summarizer, "summarizer_id", None)
    return name if isinstance(name, str) and name else type(summarizer).__name__


class Source(NamedTuple):
    """One text chosen for a summary: its position among the rows given, its cosine to their
    centroid, and the text."""

    position: int  # into the rows given
    cosine: float  # to the centroid
    text: str


def pick_sources(matrix: np.ndarray, rows: np.ndarray, order_keys: Sequence[int],
                 dedup_keys: Sequence[str], text_of: Callable[[int], str | None], k: int,
                 max_chars: int) -> list[Source]:
    """Up to ``k`` of ``rows`` closest to their centroid, one per dedup key, whose text exists
    and still fits in ``max_chars`` (with a separator and a full stop each), returned in time
    order (by ``order_keys``, the creation seqs). Ties in closeness go to the older memory.
    ``text_of`` gives the text at a position (None when its content is gone)."""
    cosines = centroid_cosines(matrix, rows)
    keys = np.asarray(order_keys, dtype=np.int64)
    chosen: list[Source] = []
    seen: set[str] = set()
    used = 0
    for position in np.lexsort((keys, -cosines)).tolist():
        if dedup_keys[position] in seen:
            continue
        text = text_of(position)
        if text is None or used + len(text) + 2 > max_chars:
            continue
        seen.add(dedup_keys[position])
        used += len(text) + 2
        chosen.append(Source(position, float(cosines[position]), text))
        if len(chosen) == k:
            break
    chosen.sort(key=lambda source: order_keys[source.position])
    return chosen


def members_digest(memory_ids: Sequence[str]) -> str:
    """A digest of a membership: blake2b over the sorted ids (order-free, hash-seed free)."""
    h = hashlib.blake2b(digest_size=16)
    for memory_id in sorted(memory_ids):
        h.update(memory_id.encode())
        h.update(b"\n")
    return h.hexdigest()

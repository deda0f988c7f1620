"""A memory's versions through time, from the temporal projection (no replay).

A fact changes by supersession: a merge, an update or a settled conflict makes a new memory and
ends the old one's known time (and, when the fact itself changed, its valid time). Following the
links backwards (``derived_from``, and the memories superseded by each) and forwards
(``superseded_by``) gives every version with its two intervals.
"""

from __future__ import annotations

from projections import Projections


def versions(views: Projections, memory_id: str) -> list[str]:
    """Every memory in ``memory_id``'s chain of versions, in the order they were recorded."""
    memories = views.state.memories
    superseded: dict[str, list[str]] = {}
    for record in memories.values():
        if record.superseded_by is not None:
            superseded.setdefault(record.superseded_by, []).append(record.memory_id)
    seen: set[str] = set()
    stack = [memory_id]
    while stack:
        mid = stack.pop()
        if mid in seen or mid not in memories:
            continue
        seen.add(mid)
        record = memories[mid]
        stack.extend(record.derived_from)
        stack.extend(superseded.get(mid, ()))
        if record.superseded_by is not None:
            stack.append(record.superseded_by)
    return sorted(seen, key=lambda mid: (memories[mid].created_seq, mid))

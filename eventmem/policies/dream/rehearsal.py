"""Rehearsal: the dream cycle replays endangered memories, and replay strengthens storage.

A memory is **endangered** at ``now`` when its retention is under ``rehearse_below`` while it is
still ``active`` or ``stale`` (not archived, deleted or dormant: those are past saving by replay),
it is not exempt (pinned, immutable and flashbulb memories are never forgotten anyway), and it
was not rehearsed since its last access (a replay does not stand in for use again and again:
without this, a daily cycle would compound the boost far faster than a weekly one).

Rehearsal multiplies the base stability (storage strength) by ``rehearse_boost``, up to
``DecayParams.max_stability_days``. Retrieval strength is left alone: like a tier change, the
decay progress so far is recorded and the new stability applies from ``now`` on, so retention at
``now`` does not jump (only an access restores it) and later decay is slower. A rehearsed memory
therefore takes longer to fall to deletion, which is what an important memory needs.

At most ``rehearse_max`` memories per cycle, the most important first (ties by id), across the
whole store. A cycle's budget counts the rehearsals already recorded at the same ``now``, so a
second cycle at that ``now`` finds its budget spent (or nothing left to rehearse).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from eventmem.events import Rehearsal
from eventmem.policies.decay import DecayParams, is_frozen, progress, retention
from eventmem.policies.dream.params import DreamParams, is_exempt
from projections.state import MemoryRecord

POLICY_VERSION = "rehearsal-1"
_REHEARSABLE = frozenset({"active", "stale"})


def endangered(record: MemoryRecord, now: int, rehearsed_at: int | None, decay: DecayParams,
               params: DreamParams) -> float | None:
    """The memory's retention at ``now`` when it is endangered (see the module docstring), else
    None."""
    if record.status not in _REHEARSABLE or is_exempt(record) or is_frozen(record, decay):
        return None
    if rehearsed_at is not None and rehearsed_at >= record.last_access_at:
        return None
    r = retention(record, now, decay)
    return r if r < params.rehearse_below else None


def rehearse(records: Iterable[MemoryRecord], now: int, rehearsed_at: Mapping[str, int],
             decay: DecayParams, params: DreamParams) -> list[Rehearsal]:
    """The rehearsals of one cycle at ``now``: most important first, then by id.

    ``rehearsed_at`` maps memory ids to the ``now`` of their last rehearsal (the state's index).
    A memory already at the stability cap gains nothing and is left out.
    """
    budget = params.rehearse_max - sum(1 for t in rehearsed_at.values() if t == now)
    if budget <= 0:
        return []
    found: list[tuple[float, str, MemoryRecord, float]] = []
    for record in records:
        r = endangered(record, now, rehearsed_at.get(record.memory_id), decay, params)
        if r is None:
            continue
        boosted = min(record.stability * params.rehearse_boost, decay.max_stability_days)
        if boosted > record.stability:
            found.append((-record.importance, record.memory_id, record, r))
    found.sort(key=lambda item: (item[0], item[1]))
    return [Rehearsal(memory_id=record.memory_id, retention=r, importance=record.importance,
                      from_stability=record.stability,
                      stability=min(record.stability * params.rehearse_boost,
                                    decay.max_stability_days),
                      decay_done=progress(record, now, decay))
            for _, _, record, r in found[:budget]]

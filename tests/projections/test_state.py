"""The state view's fold of an erasure: applied early (a read-only engine meets an erasure past
its seq and applies it at once, at its own seq) and then folded at the erasure's seq, a record
ends as a rebuild leaves it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import eventmem
from eventmem.events import MemoryErased
from eventmem.write.erase import with_later_erasures
from projections import Projections

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def test_an_erasure_met_early_and_folded_again_leaves_what_a_rebuild_does(
        tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0),
                       config=eventmem.Config(sync=False)) as mem:
        mem.remember("the spare key is under the blue flowerpot", namespace="n")
        erased = mem.remember("loop note about lunch", namespace="n").memory_id
        before = mem.seq
        mem.erase(memory_id=erased)
        envelopes = list(mem.store.envelopes())
    [erasure] = [env for env in envelopes if isinstance(env.event, MemoryErased)]
    assert erasure.seq == before + 1
    reader = Projections().apply_all(env for env in envelopes if env.seq <= before)
    with_later_erasures(reader, [erasure.event])  # met past its seq: applied at once
    assert reader.state.memories[erased].updated_seq == before
    reader.apply_all(env for env in envelopes if env.seq > before)  # then caught up
    rebuilt = Projections().apply_all(envelopes)
    assert reader.state.memories[erased] == rebuilt.state.memories[erased]
    assert reader.digests() == rebuilt.digests()

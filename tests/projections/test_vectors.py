"""The vector view's fold: a replay, which folds the ingests of memories purged since without
their rows, numbers rows as the live fold did."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import eventmem
from replay import rebuild

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def test_a_space_emptied_by_purges_keeps_counting_its_slots(tmp_path: Path) -> None:
    """Live, the first purge leaves seven rows and the new memory takes slot 8. A replay after
    every old memory is purged folds their ingests without rows, so the same first purge found
    the space empty; dropping it there numbered the new memory's row 0."""
    clock = eventmem.ManualClock(start=T0)
    config = eventmem.Config(sync=False)
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        old = [mem.remember(f"note {word} about the harbour lantern", namespace="n").memory_id
               for word in ("alder", "birch", "cedar", "dogwood", "elm", "fir", "gingko",
                            "hazel")]
        mem.forget(old[1])
        clock.advance(timedelta(days=100))
        mem.consolidate()  # purges it
        assert mem.get(old[1]).status == "purged"
        new = mem.remember("a quite different note on the garden shed", namespace="n").memory_id
        clock.advance(timedelta(days=200))
        mem.consolidate()  # the old notes decay to purged, the new one stays
        assert all(mem.get(mid).status == "purged" for mid in old)
        space = mem._views.vectors.spaces["n"]
        assert (space.ids, space.next_slot) == ([new], 9)
        assert mem._views.digests() == rebuild(mem.store).digests()


def test_a_view_from_a_snapshot_folds_an_ingest_whose_row_is_gone_since(tmp_path: Path) -> None:
    """A view from a snapshot folds the log after it; an ingest there of a memory purged since
    comes without its row and only takes its slot. The rows read from the snapshot are
    read-only, and writing even no row into them failed the fold (a damaged log, it said)."""
    clock = eventmem.ManualClock(start=T0)
    config = eventmem.Config(sync=False)
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        for word in ("alder", "birch", "cedar"):
            mem.remember(f"note {word} about the harbour lantern", namespace="n")
        mem.snapshot()
        gone = mem.remember("a note on the garden shed", namespace="n")
        mem.forget(gone.memory_id)
        clock.advance(timedelta(days=100))
        mem.consolidate()  # purges it: its text and row leave the store
        assert mem.get(gone.memory_id).status == "purged"
        view = mem.as_of(seq=gone.seq)
        assert view.get(gone.memory_id).memory_id == gone.memory_id
        assert view._views.digests() == rebuild(mem.store, until=gone.seq).digests()

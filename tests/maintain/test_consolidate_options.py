"""consolidate's options through the engine: ``dry_run`` decides as a real run does and appends
nothing (on a read-only engine too), and a ``now`` earlier than the store's latest event is
refused with nothing written."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import msgspec
import pytest

import eventmem
from eventmem.errors import InvalidInputError
from tests.maintain.test_dream_cycle import T0, open_at_t0
from tests.strategies import HIKES, OTHERS

DAY = timedelta(days=1)


def filled(store_path: Path) -> eventmem.Engine:
    """Hikes that cluster, calm facts that do not, and a context memory that goes stale."""
    mem = open_at_t0(store_path, summary_min_members=3)
    for text in HIKES + OTHERS[:2]:
        mem.remember(text, kind="event")
    mem.remember("the meeting room is booked", kind="context")
    return mem


def without_run(report: eventmem.ConsolidationReport) -> dict[str, object]:
    """A report's decisions: what a dry run and a real run must agree on."""
    data = msgspec.to_builtins(report)
    del data["seqs"], data["dry_run"]
    return data


def test_a_dry_run_reports_what_the_run_then_does_and_appends_nothing(store_path: Path) -> None:
    with filled(store_path) as mem:
        later = T0 + 9 * DAY
        head, stats = mem.head(), mem.stats()
        preview = mem.consolidate(now=later, dry_run=True)
        assert preview.dry_run and preview.changed and preview.seqs == ()
        assert preview.consolidated and preview.status_changes  # every step had work
        assert mem.head() == head and mem.stats() == stats
        assert mem.consolidate(now=later, dry_run=True) == preview  # and it stays so
        done = mem.consolidate(now=later)
        assert not done.dry_run and done.seqs
        assert without_run(done) == without_run(preview)
        quiet = mem.consolidate(now=later, dry_run=True)
        assert not quiet.changed and quiet.dry_run  # nothing left to do at that now


def test_a_dry_run_needs_no_writer(store_path: Path) -> None:
    filled(store_path).close()
    with eventmem.open(store_path, readonly=True) as reader:
        head = reader.head()
        preview = reader.consolidate(now=T0 + 9 * DAY, dry_run=True)
        assert preview.changed and reader.head() == head
        with pytest.raises(eventmem.ReadOnlyError):
            reader.consolidate(now=T0 + 9 * DAY)


def test_now_before_the_latest_event_is_refused_and_writes_nothing(store_path: Path) -> None:
    """consolidate(now=T) with T before the latest event appended decisions dated before
    events the log already held (an access "in the future" of the sweep that judged it)."""
    with filled(store_path) as mem:
        mem.clock.set(T0 + 2 * DAY)  # type: ignore[attr-defined]
        mem.remember("Dan restores old radios and clocks in his shed", kind="event")
        head = mem.head()
        for dry_run in (False, True):
            with pytest.raises(InvalidInputError, match="earlier than the store's latest event"):
                mem.consolidate(now=T0 + DAY, dry_run=dry_run)
        assert mem.head() == head
        assert mem.consolidate(now=T0 + 2 * DAY).now == T0 + 2 * DAY  # the latest time is fine


@pytest.mark.parametrize("dry_run", ["yes", 1, None])
def test_dry_run_takes_a_bool(store_path: Path, dry_run: object) -> None:
    with filled(store_path) as mem, pytest.raises(InvalidInputError, match="dry_run"):
        mem.consolidate(dry_run=dry_run)  # type: ignore[arg-type]

"""The write path records the times a memory's text speaks of on its ``memory.ingested`` event,
read against the event's ``at`` (never the wall clock): replay folds them as recorded, the audit
re-reads them with the recorded version, a log written before times-1 still audits, and erasure
takes them out of the index."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec

import eventmem
from eventmem.clock import MICROS_PER_DAY, to_micros
from eventmem.events import TimeSpan
from eventmem.policies import times
from eventmem.write import items as items_module
from eventmem.write.items import Item
from projections.temporal import speaking_of
from tests.write.logged import checked, ingested

MARCH_17 = datetime(2022, 3, 17, 15, 0, tzinfo=UTC)  # a Thursday
MARCH_16 = to_micros(datetime(2022, 3, 16, tzinfo=UTC))
DAY = TimeSpan(MARCH_16, MARCH_16 + MICROS_PER_DAY)




def test_the_times_a_text_speaks_of_are_recorded(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_17)) as mem:
        hiked = mem.remember("James: Yesterday I went hiking", namespace="u").memory_id
        plain = mem.remember("James: I love hiking", namespace="u").memory_id
        event = ingested(mem, hiked)
        assert (event.times, event.times_policy) == ((DAY,), times.POLICY_VERSION)
        assert ingested(mem, plain).times == ()
        assert mem.get(hiked).text == "James: Yesterday I went hiking"  # verbatim
        checked(mem)


def test_times_are_read_against_the_events_time_not_the_wall_clock(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=datetime(2001, 9, 3, 12, tzinfo=UTC))  # a Monday
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mid = mem.remember("We fly to Oslo tomorrow", namespace="u").memory_id
        day = to_micros(datetime(2001, 9, 4, tzinfo=UTC))
        assert ingested(mem, mid).times == (TimeSpan(day, day + MICROS_PER_DAY),)


def test_a_plans_dates_are_times_it_speaks_of_not_when_it_began(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_17)) as mem:
        mid = mem.remember("I need to renew my passport by next Friday", namespace="u",
                           kind="plan").memory_id
        friday = to_micros(datetime(2022, 3, 18, tzinfo=UTC))  # the coming one (the grammar's)
        assert ingested(mem, mid).times == (TimeSpan(friday, friday + MICROS_PER_DAY),)
        assert mem.get(mid).valid_from == MARCH_17
        checked(mem)


def test_a_log_written_before_times_1_still_audits(tmp_path: Path, monkeypatch: Any) -> None:
    """A memory recorded without its times ("": as before times-1) is re-derived reading none,
    and is only found by the time it was recorded."""
    original = items_module.check_items

    def as_before(*args: Any) -> list[Item]:
        return [msgspec.structs.replace(item, times_policy=times.NONE)
                for item in original(*args)]

    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_17)) as mem:
        with monkeypatch.context() as patch:
            patch.setattr(eventmem.engine, "check_items", as_before)
            old = mem.remember("Yesterday I went hiking", namespace="u").memory_id
        new = mem.remember("Yesterday I went fishing", namespace="u").memory_id
        assert (ingested(mem, old).times, ingested(mem, old).times_policy) == ((), "")
        assert ingested(mem, new).times == (DAY,)
        checked(mem)


def test_an_unknown_times_version_is_reported_not_rederived(tmp_path: Path,
                                                           monkeypatch: Any) -> None:
    original = items_module.check_items

    def as_future(*args: Any) -> list[Item]:
        return [msgspec.structs.replace(item, times_policy="times-99")
                for item in original(*args)]

    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_17)) as mem:
        with monkeypatch.context() as patch:
            patch.setattr(eventmem.engine, "check_items", as_future)
            mem.remember("Yesterday I went hiking", namespace="u")
        report = mem.audit()
        assert report.unverifiable_by_reason == {"unknown policy times-99": 1}


def test_replay_and_reopen_keep_the_index(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=MARCH_17)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mid = mem.remember("Yesterday I went hiking", namespace="u").memory_id
        clock.advance(timedelta(days=3))
        mem.remember("Last week was busy", namespace="u")
        before = speaking_of(mem._views.temporal, "u", MARCH_16, MARCH_16 + MICROS_PER_DAY)
        assert [m for m, _ in before] == [mid]
    with eventmem.open(tmp_path / "s", clock=clock) as again:
        after = speaking_of(again._views.temporal, "u", MARCH_16, MARCH_16 + MICROS_PER_DAY)
        assert after == before
        checked(again)


def test_erasure_takes_a_memory_out_of_the_index(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=MARCH_17)) as mem:
        mid = mem.remember("Yesterday I went hiking", namespace="u").memory_id
        kept = mem.remember("Yesterday I went fishing", namespace="u").memory_id
        mem.erase(mid)
        found = speaking_of(mem._views.temporal, "u", MARCH_16, MARCH_16 + MICROS_PER_DAY)
        assert [m for m, _ in found] == [kept]
        assert mem._views.temporal.intervals[mid].times == ()
        checked(mem)


def test_a_merged_conflict_speaks_of_what_both_sides_did(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=MARCH_17)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mem.remember("Yesterday Alice moved to Berlin", namespace="n")
        clock.advance(timedelta(days=2))
        new = mem.remember("Yesterday Alice moved to Paris", namespace="n", on_conflict="ask")
        assert new.conflict_id is not None
        clock.advance(timedelta(days=1))
        merged = mem.resolve(new.conflict_id, strategy="merge")
        event = ingested(mem, merged.memory_id)
        march_18 = MARCH_16 + 2 * MICROS_PER_DAY
        assert event.times == (DAY, TimeSpan(march_18, march_18 + MICROS_PER_DAY))
        assert event.times_policy == ""  # read from no text now: the sides' as recorded
        checked(mem)

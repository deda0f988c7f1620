"""Maintenance over random programs of remember / touch / recall / feedback / forget / pin / clock
advances / consolidate:

* live projections equal a rebuild after every step, a second consolidate at the same now
  changes nothing, retention never rises without an access, and ``as_of`` any past point equals
  the state at that point, decay included;
* with the dream cycle on, the audit and verify stay ok, a pinned or immutable memory is never
  made dormant or archived, and a reopen answers the same."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import eventmem
import replay
from eventmem.config import Config
from eventmem.errors import InvalidInputError
from eventmem.policies.dream.params import DreamParams
from tests.strategies import HIKES, OTHERS

pytestmark = pytest.mark.slow  # random maintenance programs

DAY = timedelta(days=1)

T0 = datetime(2025, 1, 1, tzinfo=UTC)  # the property's start (fixtures do not mix with @given)


TEXTS = (
    "Alice moved to Berlin in March",
    "Alice prefers tea over coffee",
    "Bob lives in Paris with his dog",
    "The team standup is at nine every Monday",
    "Carol keeps bees on the allotment",
    "Dan restores old radios in his shed",
    "Erin teaches piano on Tuesdays",
    "Frank collects vintage maps",
    "The spare key is under the blue flowerpot",
    "Gina walks the dog along the canal",
)

KINDS = ("identity", "preference", "event", "plan", "context", "ephemeral")

remembers = st.tuples(
    st.just("remember"), st.integers(0, len(TEXTS) - 1), st.sampled_from(KINDS),
    st.sampled_from(["user", "extraction"]), st.booleans(),
    st.one_of(st.none(), st.integers(1, 40)))  # valid for that many days

advances = st.tuples(st.just("advance"), st.sampled_from([0.5, 1, 2, 3, 5, 8, 13, 30, 95]))

consolidates = st.tuples(st.just("consolidate"))

OPERATIONS = {
    "remember": remembers,
    "touch": st.tuples(st.just("touch"), st.integers(0, 50)),
    "recall": st.tuples(st.just("recall"), st.integers(0, len(TEXTS) - 1)),
    # once, or a burst (twelve "not useful" take utility under the demotion threshold of 0.2)
    "feedback": st.tuples(st.just("feedback"), st.integers(0, 50), st.booleans(),
                          st.sampled_from([1, 12])),
    "forget": st.tuples(st.just("forget"), st.integers(0, 50)),
    "advance": advances,
    "consolidate": consolidates,
}

# Repeated names weigh the choice: time passes and sweeps find work.
operations = st.sampled_from(
    ["remember", "touch", "recall", "feedback", "feedback", "forget"] + ["advance"] * 3
    + ["consolidate"] * 2
).flatmap(OPERATIONS.__getitem__)


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="eventmem-dynamics-") as path:
        yield Path(path)


def _dynamics(memory: eventmem.Memory) -> tuple[Any, ...]:
    """What time changes about a memory (retention rounded: a view recomputes it). Not the text:
    a purge removes it from the store, and views of the past show it gone, like an erasure."""
    return (memory.status, memory.tier, round(memory.retention, 9), round(memory.stability, 9),
            round(memory.utility, 9), memory.access_count)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=st.tuples(st.lists(remembers, min_size=2, max_size=6),
                         st.lists(operations, min_size=10, max_size=50)).map(lambda p: p[0] + p[1]))
def test_dynamics_replay_idempotence_and_monotone_retention(workdir, program):
    store = Path(tempfile.mkdtemp(dir=workdir))
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(store, clock=clock, config=eventmem.Config(sync=False)) as mem:
        ids: list[str] = []
        # memory id -> (retention, (last_access_at, access_count), tier) at the previous look
        seen: dict[str, tuple[float, tuple[datetime, int], str]] = {}
        past: dict[int, tuple[datetime, dict[str, tuple[Any, ...]]]] = {}  # seq -> state
        for op in program:
            name = op[0]
            if name == "remember":
                _, i, kind, source, pinned, until = op
                valid_until = None if until is None else clock.now() + timedelta(days=until)
                r = mem.remember(TEXTS[i], kind=kind, source=source, pinned=pinned,
                                 valid_until=valid_until)
                if r.action == "created":
                    ids.append(r.memory_id)
            elif name == "touch" and ids:
                _change(mem, mem.touch, ids[op[1] % len(ids)])
            elif name == "recall":
                mem.recall(TEXTS[op[1]], k=2)
            elif name == "feedback" and ids:
                for _ in range(op[3]):
                    _change(mem, mem.feedback, ids[op[1] % len(ids)], useful=op[2])
            elif name == "forget" and ids:
                _change(mem, mem.forget, ids[op[1] % len(ids)])
            elif name == "advance":
                clock.advance(timedelta(days=op[1]))
            elif name == "consolidate":
                now = mem.now()
                first = mem.consolidate(now=now)
                seq = mem.seq
                # (b) a second sweep at the same now changes nothing
                second = mem.consolidate(now=now)
                assert (second.status_changes, second.tier_changes, second.invalidated,
                        second.seqs) == ((), (), (), ()), (first, second)
                assert mem.seq == seq
                if first.seqs:
                    event("consolidate changed something")

            # (c) without an access, retention never rises as the clock advances
            for mid in ids:
                got = mem.get(mid)  # not an access
                previous = seen.get(mid)
                accessed = (got.last_access_at, got.access_count)
                if previous is not None and previous[1] == accessed:  # tier changes included
                    assert got.retention <= previous[0] + 1e-12, (mid, previous, got)
                seen[mid] = (got.retention, accessed, got.tier)

            # (a) the live projections equal a rebuild from the log
            assert mem._views.digests() == replay.rebuild(mem.store).digests(), op
            # The state right after each seq, seen at that event's time (what a view sees).
            past.setdefault(mem.seq, (mem.now(), {mid: _dynamics(mem.get(mid)) for mid in ids}))

        # (d) as_of any past point equals the state at that point, decay included
        compared = 0
        for seq in sorted(past)[:: max(1, len(past) // 6)]:
            when, expected = past[seq]
            view = mem.as_of(seq=seq)
            if view.now() == when:  # else the clock had moved on before the state was taken
                assert {mid: _dynamics(view.get(mid)) for mid in expected} == expected, seq
                compared += 1
        assert compared, "no past point was compared"


def _change(mem: eventmem.Engine, change: Any, memory_id: str, **kwargs: Any) -> None:
    """``change(memory_id)``, which a purged memory refuses (its content is gone)."""
    if mem.get(memory_id).status == "purged":
        with pytest.raises(eventmem.InvalidInputError, match="is purged"):
            change(memory_id, **kwargs)
    else:
        change(memory_id, **kwargs)


CYCLE_T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)


# -- with the dream cycle on: audited, verified, and a reopen answers the same ---------------------


CYCLE_TEXTS = HIKES + OTHERS[:4] + ["Bob likes green tea in the morning"]

STEP = st.one_of(
    st.tuples(st.just("remember"), st.sampled_from(CYCLE_TEXTS),
              st.sampled_from(["event", "context", "preference"]),
              st.sampled_from(["plain", "pinned", "immutable", "session"])),
    st.tuples(st.sampled_from(["touch", "pin", "unpin", "forget", "useless", "recall"]),
              st.integers(0, 20)),
    st.tuples(st.just("advance"), st.sampled_from([1, 10, 40, 400])),
    st.tuples(st.just("consolidate"), st.sampled_from([-30, 0, 0, 30, 3650])),
)


@st.composite
def programs(draw: st.DrawFn) -> list[Any]:
    return draw(st.lists(STEP, min_size=4, max_size=18))


def run(mem: eventmem.Engine, clock: eventmem.ManualClock, program: list[Any]) -> list[str]:
    ids: list[str] = []
    for step in program:
        op = step[0]
        if op == "remember":
            _, text, kind, how = step
            options: dict[str, Any] = {"pinned": how == "pinned",
                                       "immutable": how == "immutable"}
            if how == "session":
                options["session"] = "s1"
            result = mem.remember(text, kind=kind, **options)
            if result.memory_id is not None:
                ids.append(result.memory_id)
        elif op == "advance":
            clock.advance(step[1] * DAY)
        elif op == "consolidate":
            now = clock.now() + step[1] * DAY
            head = mem.seq
            try:
                report = mem.consolidate(now=now)
            except InvalidInputError as refused:  # before an event the log holds: refused
                assert "earlier than the store's latest event" in str(refused)
                assert mem.seq == head
                continue
            memories = mem._views.state.memories
            for change in report.status_changes:
                record = memories[change.memory_id]
                if record.pinned or record.immutable:
                    assert change.to_status in ("active", "stale", "purged"), change
            for went in report.dormant:
                record = memories[went.memory_id]
                assert not (record.pinned or record.immutable), went
            try:  # the same now again settles: nothing left to change
                assert not mem.consolidate(now=now).changed
            except InvalidInputError:  # a past now: the first's own events came after it
                assert now < clock.now() and mem.seq > head
        elif ids:
            mid = ids[step[1] % len(ids)]
            if mem.get(mid).status in ("erased", "purged"):
                continue  # final: every change is refused (the purged test above)
            if op == "touch":
                mem.touch(mid)
            elif op == "pin":
                mem.pin(mid)
            elif op == "unpin":
                mem.unpin(mid)
            elif op == "forget":
                mem.forget(mid)
            elif op == "useless":
                mem.feedback(mid, useful=False)
            else:
                mem.recall(mem.get(mid).text or "maps", include_hidden=step[1] % 2 == 0)
    return ids


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_audit_verify_and_settle(program: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store"
        clock = eventmem.ManualClock(start=CYCLE_T0)
        config = Config(sync=False, dream=DreamParams(summary_min_members=3))
        with eventmem.open(path, clock=clock, config=config) as mem:
            ids = run(mem, clock, program)
            report = mem.audit()
            assert report.ok, report.findings
            assert mem.verify().ok
            before = {mid: mem.get(mid) for mid in ids}
        with eventmem.open(path, clock=clock, config=config) as mem:
            assert {mid: mem.get(mid) for mid in ids} == before

"""The dream cycle against a hypothesis state machine: it drives remember / touch / feedback /
forget / pin / conflicts / clock / consolidate / reopen and checks after every step: live state
equals a rebuild, consolidating twice at the same now changes nothing, pinned memories are never
made dormant, immutable ones never merged, and every consolidated memory keeps its links to its
members (in the state, the event and after a reopen)."""

from __future__ import annotations

import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import eventmem
import replay
from eventmem.config import Config
from eventmem.events import ConflictFlagged, ConflictResolved, MemoryIngested
from eventmem.policies.dream.params import DreamParams
from tests.strategies import HIKES, OTHERS

pytestmark = pytest.mark.slow  # the dream machine

DAY = timedelta(days=1)

T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)


def flag(mem: eventmem.Engine, conflict_id: str, existing: str, new: str) -> None:
    mem._append_one(ConflictFlagged(
        at=mem._now(), namespace="default", conflict_id=conflict_id, memory_id=existing,
        other_id=new, content_hash="0" * 32, rule="test", similarity=0.5, strategy="ask"),
        "test-flag")


# -- the machine -------------------------------------------------------------------------------

TEXTS = HIKES + OTHERS + [
    "Bob likes green tea in the morning", "Bob likes black tea in the morning",
    "The quarterly report for Acme is due on Friday",
    "The quarterly report for Globex is due on Friday",
    "Alice moved to Berlin in March", "Alice moved to Berlin in March 2024",  # cosine 0.91
]

DREAM = dict(summary_min_members=4, capacity=12, rehearse_max=2)


class DreamMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.mkdtemp(prefix="eventmem-dream-")
        self.path = Path(self.dir) / "store"
        self.ids: list[str] = []
        self.conflicts = 0

    @initialize(enabled=st.sampled_from([True, True, False]),
                first=st.lists(st.sampled_from(TEXTS), min_size=4, max_size=10, unique=True))
    def setup(self, enabled: bool, first: list[str]) -> None:
        self.clock = eventmem.ManualClock(start=T0)
        self.config = Config(sync=False, snapshot_every=7,
                             dream=DreamParams(cluster=enabled, summaries=enabled, **DREAM))
        self.mem = eventmem.open(self.path, clock=self.clock, config=self.config)
        # Something to work on from the start (runs are often short): a cluster among others.
        self.ids += [r.memory_id for r in self.mem.remember_many(HIKES[:3] + first)
                     if r.action == "created" and r.memory_id is not None]

    def teardown(self) -> None:
        try:
            if hasattr(self, "mem") and not self.mem._closed:
                assert self.mem.verify().ok
                self.mem.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def pick(self, index: int) -> str:
        return self.ids[index % len(self.ids)]

    @rule(items=st.lists(st.tuples(st.sampled_from(TEXTS), st.sampled_from(["event", "plan"]),
                                   st.sampled_from(["", "", "", "", "pinned", "immutable"])),
                         min_size=1, max_size=5))
    def remember(self, items: list[tuple[str, str, str]]) -> None:
        results = self.mem.remember_many([{"text": text, "kind": kind, **({flag: True} if flag
                                                                          else {})}
                                          for text, kind, flag in items])
        self.ids += [r.memory_id for r in results
                     if r.action == "created" and r.memory_id is not None]

    @precondition(lambda self: self.ids)
    @rule(index=st.integers(0, 99), op=st.sampled_from(["touch", "forget", "pin", "unpin"]))
    def use(self, index: int, op: str) -> None:
        self.change(getattr(self.mem, op), self.pick(index))

    @precondition(lambda self: self.ids)
    @rule(index=st.integers(0, 99), useful=st.booleans(), times=st.sampled_from([1, 12]))
    def feedback(self, index: int, useful: bool, times: int) -> None:
        for _ in range(times):
            self.change(self.mem.feedback, self.pick(index), useful=useful)

    def change(self, call: Any, memory_id: str, **kwargs: Any) -> None:
        """A change the memory takes, or refuses once purged (its content is gone)."""
        if self.mem.get(memory_id).status == "purged":
            with pytest.raises(eventmem.InvalidInputError, match="is purged"):
                call(memory_id, **kwargs)
        else:
            call(memory_id, **kwargs)

    @precondition(lambda self: len(self.ids) >= 2)
    @rule(a=st.integers(0, 99), b=st.integers(0, 99), resolve=st.booleans())
    def conflict(self, a: int, b: int, resolve: bool) -> None:
        first, second = self.pick(a), self.pick(b)
        if first == second:
            return
        self.conflicts += 1
        cid = f"c{self.conflicts}"
        flag(self.mem, cid, first, second)
        if resolve:
            self.mem._append_one(ConflictResolved(
                at=self.mem._now(), namespace="default", conflict_id=cid, strategy="use_new",
                winner=second, loser=first), "test-resolve")

    @rule(days=st.sampled_from([1, 3, 10, 35, 70]))
    def advance(self, days: int) -> None:
        self.clock.advance(days * DAY)

    @rule(days=st.sampled_from([1, 10, 35]))
    def sleep_on_it(self, days: int) -> None:
        """Time passes, then a cycle: the cadence of an operator's nightly job."""
        self.clock.advance(days * DAY)
        self.consolidate(0)

    @rule(ahead=st.sampled_from([0, 0, 0, 5]))
    def consolidate(self, ahead: int) -> None:
        now = self.clock.now() + ahead * DAY
        state = self.mem._views.state.memories
        pinned = {mid for mid, r in state.items() if r.pinned or r.flashbulb}
        immutable = {mid for mid, r in state.items() if r.immutable}
        before = {mid: state[mid].status for mid in pinned}
        report = self.mem.consolidate(now=now)
        for name in ("rehearsed", "dormant", "consolidated", "summarized"):
            if getattr(report, name):
                event(f"consolidate: {name}")
        for reason in {c.reason for c in report.dormant}:
            event(f"dormant: {reason}")
        for change in report.dormant:
            assert change.memory_id not in pinned | immutable, change
        for made in report.consolidated:
            assert not set(made.members) & (immutable | pinned), made
        after = self.mem._views.state.memories
        for mid in pinned:  # a live pinned memory stays live: not dormant, deleted or purged
            if before[mid] in ("active", "stale"):
                assert after[mid].status in ("active", "stale"), (mid, before[mid])
        seq = self.mem.seq
        again = self.mem.consolidate(now=now)
        assert not again.changed and self.mem.seq == seq, again

    @rule()
    def reopen(self) -> None:
        digests = self.mem._views.digests()
        self.mem.close()
        self.mem = eventmem.open(self.path, clock=self.clock, config=self.config)
        assert self.mem._views.digests() == digests

    @invariant()
    def live_state_equals_a_rebuild(self) -> None:
        if hasattr(self, "mem"):
            assert self.mem._views.digests() == replay.rebuild(self.mem.store).digests()

    @invariant()
    def consolidated_memories_keep_their_members(self) -> None:
        if not hasattr(self, "mem"):
            return
        state = self.mem._views.state
        for mid, members in state.consolidations.items():
            assert mid in state.memories and all(m in state.memories for m in members)
            assert all(not state.memories[m].immutable for m in members)
            seqs = self.mem.store.seqs_for_memory(mid)
            ingest = next(e for _, e in self.mem.store.read(seqs[0], seqs[0]))
            assert isinstance(ingest, MemoryIngested) and ingest.derived_from == members
            assert {link.target for link in ingest.links} == set(members)


DreamMachine.TestCase.settings = settings(
    max_examples=50, stateful_step_count=40, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

TestDreamMachine = DreamMachine.TestCase

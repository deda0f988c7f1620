"""The audit's cut of the log into decision groups, and of a write batch into its items
(replay.groups).

A write item is the events the write path decided for one input: its decision, the supersession
or the conflict it implies, and last the plan its text reports done, whatever the decision was
(created, merged, updated, reinforced, skipped, or a conflict settled by any strategy). An item
cut short leaves the plan's closing as an orphan and the rest of the batch re-derived as another
batch, so the audit of an ordinary ``remember_many`` failed (the samelog run of 3,000 generated
texts: a near-duplicate merge that also closed a plan)."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.config import Config
from eventmem.events import (
    ConflictFlagged,
    ConflictResolved,
    Event,
    MemoryIngested,
    MemoryReinforced,
    MemorySkipped,
    MemorySuperseded,
)
from eventmem.policies import plans
from replay.groups import ITEM_FIRST, closes_plan, decided_memory, groups, split_items

T0 = datetime(2025, 1, 1, tzinfo=UTC)
AT = 1_735_689_600_000_000

PLAN = "I have to renew the car registration"
# A report of it done, and near duplicates of the report: the gate absorbs or merges them into
# the report, or finds they contradict it in a value ("on Monday" / "on Tuesday").
DONE = "I renewed the car registration at the office on Main Street"
BOOK_PLAN = "I need to finish reading Educated on the train"
BOOK_DONE = "I finally finished Educated on the train to Buenos Aires"


def batch_events(mem: eventmem.Engine) -> list[Event]:
    """The events of the store's last write batch (the first event is the embedder's)."""
    [*_, last] = [g for g in groups(mem._log.envelopes(1)) if g.kind == "write"]
    return [env.event for env in last.envelopes]


def assert_one_item_per_input(events: Sequence[Event], inputs: int) -> list[list[Event]]:
    """The batch cuts into one item per input, numbered in order, and nothing after them."""
    items, trailer = split_items(events)
    assert [getattr(item[0], "item", 0) for item in items] == list(range(inputs))
    assert all(isinstance(item[0], ITEM_FIRST) for item in items)
    assert trailer == []
    return items


def closed_plan(item: Sequence[Event]) -> MemorySuperseded:
    """The item's last event: the supersession that closed a plan."""
    last = item[-1]
    assert isinstance(last, MemorySuperseded) and last.rule in plans.DONE_RULES, item
    return last


def test_a_near_duplicate_merge_that_reports_a_plan_done_audits_clean(mem):
    # The samelog failure, small: the third text is a near duplicate of the first that adds
    # to it (merged into a new memory) and reports the plan of the second done.
    results = mem.remember_many([DONE, PLAN, DONE + ", the queue was short"], namespace="u")
    assert [r.action for r in results] == ["created", "created", "merged"]
    items = assert_one_item_per_input(batch_events(mem), 3)
    merged, *rest = items[2]
    assert isinstance(merged, MemoryIngested) and merged.rule == "near_duplicate_merge"
    assert [e.rule for e in rest] == ["merged", plans.DONE_VERB]  # type: ignore[attr-defined]
    assert closed_plan(items[2]).memory_id == results[1].memory_id
    assert closed_plan(items[2]).by == merged.memory_id == results[2].memory_id
    report = mem.audit()
    assert report.ok, [f.message for f in report.findings]
    assert mem.get(results[1].memory_id).status == "superseded"


def test_an_update_that_reports_a_plan_done_audits_clean(mem):
    # "can't" is a negation the first text lacks: the gate updates it, and the plan is closed.
    results = mem.remember_many(
        [BOOK_DONE, BOOK_PLAN, BOOK_DONE + " and I can't stop thinking about it"],
        namespace="u")
    assert [r.action for r in results] == ["created", "created", "updated"]
    items = assert_one_item_per_input(batch_events(mem), 3)
    assert [type(e) for e in items[2]] == [MemoryIngested, MemorySuperseded, MemorySuperseded]
    assert closed_plan(items[2]).by == results[2].memory_id
    assert mem.audit().ok


def test_a_skipped_near_duplicate_that_reports_a_plan_done_audits_clean(mem):
    # It adds nothing to the fuller report before it: skipped, and the plan closed by the
    # memory it was absorbed into.
    results = mem.remember_many([DONE + ", the queue was short", PLAN, DONE], namespace="u")
    assert [r.action for r in results] == ["created", "created", "skipped"]
    items = assert_one_item_per_input(batch_events(mem), 3)
    skipped = items[2][0]
    assert isinstance(skipped, MemorySkipped)
    assert closed_plan(items[2]).by == skipped.memory_id == results[0].memory_id
    assert mem.audit().ok


def test_a_reinforcement_that_reports_a_plan_done_audits_clean(mem):
    results = mem.remember_many([DONE, PLAN, DONE + "."], namespace="u")
    assert [r.action for r in results] == ["created", "created", "reinforced"]
    items = assert_one_item_per_input(batch_events(mem), 3)
    assert isinstance(items[2][0], MemoryReinforced)
    assert closed_plan(items[2]).by == results[0].memory_id
    assert mem.audit().ok


@pytest.mark.parametrize(("strategy", "action", "winner"), [
    ("temporal", "superseded", "new"),
    ("use_new", "superseded", "new"),
    ("merge", "merged", "new"),
    ("keep_existing", "skipped", "existing"),
    ("ask", "created", "new"),  # left open: no resolution, the new claim is the outcome
])
def test_a_settled_conflict_that_reports_a_plan_done_audits_clean(mem, strategy, action, winner):
    # The days contradict each other; whichever claim the strategy keeps closes the plan.
    results = mem.remember_many(
        [DONE + " on Monday", PLAN, {"text": DONE + " on Tuesday", "on_conflict": strategy}],
        namespace="u")
    assert [r.action for r in results] == ["created", "created", action]
    items = assert_one_item_per_input(batch_events(mem), 3)
    new = items[2][0]
    assert isinstance(new, MemoryIngested) and isinstance(items[2][1], ConflictFlagged)
    expected = new.memory_id if winner == "new" else results[0].memory_id
    assert closed_plan(items[2]).by == expected
    report = mem.audit()
    assert report.ok, [f.message for f in report.findings]


# -- closes_plan and decided_memory on events as the write path writes them ----------------------

def ingested(memory_id: str, **fields: Any) -> MemoryIngested:
    return MemoryIngested(at=AT, namespace="u", actor="user", memory_id=memory_id,
                          content_hash="h" + memory_id, dedup_key="k" + memory_id, kind="event",
                          **fields)


def superseded(old: str, by: str, rule: str = plans.DONE_VERB,
               conflict_id: str | None = None) -> MemorySuperseded:
    return MemorySuperseded(at=AT, namespace="u", actor="user", memory_id=old, by=by,
                            until=AT, rule=rule, conflict_id=conflict_id)


def test_decided_memory_is_the_created_absorbing_or_winning_memory():
    assert decided_memory([ingested("new")]) == "new"
    for absorbed in (MemoryReinforced, MemorySkipped):
        event = absorbed(at=AT, namespace="u", actor="user", memory_id="old",
                         content_hash="h", similarity=0.9, rule="r")
        assert decided_memory([event]) == "old"
    flagged = ConflictFlagged(at=AT, namespace="u", actor="user", conflict_id="cf",
                              memory_id="old", other_id="new", content_hash="e", rule="r",
                              similarity=0.9, strategy="keep_existing")
    kept = ConflictResolved(at=AT, namespace="u", actor="user", conflict_id="cf",
                            strategy="keep_existing", winner="old", loser="new")
    assert decided_memory([ingested("new"), flagged, kept]) == "old"
    assert decided_memory([ingested("new"), flagged]) == "new"  # asked: left open


def test_closes_plan_takes_one_completion_by_the_items_memory():
    merged = [ingested("new", rule="near_duplicate_merge"), superseded("old", "new", "merged")]
    assert closes_plan(merged, superseded("plan", "new"))
    assert closes_plan(merged, superseded("plan", "new", plans.DONE_GENERIC))
    assert not closes_plan(merged, superseded("plan", "another"))  # not this item's memory
    assert not closes_plan(merged, superseded("plan", "new", "merged"))  # not a completion
    assert not closes_plan(merged, superseded("plan", "new", conflict_id="cf"))
    # The write path closes at most one plan per item.
    assert not closes_plan([*merged, superseded("plan", "new")], superseded("plan2", "new"))


# -- the property --------------------------------------------------------------------------------

TEXTS = (PLAN, DONE, DONE + " on Monday", DONE + " on Tuesday", DONE + ", the queue was short",
         DONE + ".", BOOK_PLAN, BOOK_DONE, BOOK_DONE + " with Jonas",
         BOOK_DONE + " and I can't stop thinking about it", "Bob likes green tea")
STRATEGIES = ("temporal", "use_new", "merge", "keep_existing", "ask")
inputs = st.lists(st.tuples(st.sampled_from(TEXTS), st.sampled_from(STRATEGIES)),
                  min_size=1, max_size=7)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(inputs, min_size=1, max_size=3))
def test_every_batch_cuts_into_its_items_and_audits_clean(batches):
    # Plans, their reports and near duplicates of them, in batches minutes apart: whatever the
    # write path decides, each batch is one group of one item per input, the plans it closes
    # inside the items that report them, and the audit re-derives it all.
    with tempfile.TemporaryDirectory() as tmp:
        clock = eventmem.ManualClock(start=T0)
        with eventmem.open(Path(tmp) / "store", clock=clock, config=Config(sync=False)) as mem:
            for batch in batches:
                mem.remember_many([{"text": t, "on_conflict": s} for t, s in batch],
                                  namespace="u")
                assert_one_item_per_input(batch_events(mem), len(batch))
                clock.advance(timedelta(minutes=7))
            found = list(groups(mem._log.envelopes(1)))
            assert [g.kind for g in found if g.kind == "write"] == ["write"] * len(batches)
            assert "orphan" not in {g.kind for g in found}
            report = mem.audit()
            assert report.ok, [f.message for f in report.findings]

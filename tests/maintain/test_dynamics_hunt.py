"""Bugs found hunting memory dynamics and maintenance (consolidate), each pinned by a test that
failed on the code before its fix, plus a small property over random programs.

1. A sweep that brought a memory back from archived (pinned since, or a ``now`` before its
   archival) judged its tier on the old status, so a second consolidate at the same ``now``
   promoted it (sweep-2; sweep-1 logs re-derive as sweep-1).
2. A cycle that made a consolidated memory and then a category summary counting it read that
   memory's text from the store, where it was not yet: the live cycle left it out of the
   summary, the audit (reading the appended log) put it in, so the audit failed.
3. Clusters merged the two sides of a conflict left open for the caller ("ask") into one text
   stating both (dream-3; dream-2 logs re-derive as dream-2).
4. ``forget``, ``touch``, ``pin`` and ``feedback`` accepted a purged memory: a forget turned it
   back into a deleted one, to be purged again 90 days later.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
import replay
from eventmem.config import Config
from eventmem.events import DREAM_POLICY, ConflictFlagged, LifecycleTransitioned, TierChanged
from eventmem.maintain import cycle as dream
from eventmem.policies.dream.params import DreamParams
from eventmem.policies.lifecycle import SWEEP_1, SWEEP_POLICY

DAY = timedelta(days=1)
T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)
HIKES = [f"Alice went hiking in the Alps with {who} last summer"
         for who in ("Bob", "Carol", "Erin", "Finn")]  # pairwise cosine ~0.82
OTHERS = ["Carol keeps bees on the allotment", "Dan restores old radios in his shed",
          "Erin teaches piano on Tuesdays", "Frank collects vintage maps"]
# The sides of an "ask" conflict (Berlin / Paris) that cluster with two more hikes at 0.6.
CONFLICTING = ["Alice lives in Berlin and went hiking in the Alps with Bob last summer",
               "Alice lives in Paris and went hiking in the Alps with Carol last summer",
               HIKES[2], HIKES[3]]


def open_store(path: Path, **dream_params: Any) -> eventmem.Engine:
    return eventmem.open(path, clock=eventmem.ManualClock(start=T0),
                         config=Config(sync=False, dream=DreamParams(**dream_params)))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "store"


def settled(mem: eventmem.Engine, now: datetime) -> None:
    """Audit and verify ok, live state equals a rebuild, a second run at ``now`` appends
    nothing."""
    report = mem.audit()
    assert report.ok, report.findings
    assert mem.verify().ok
    assert mem._views.digests() == replay.rebuild(mem.store).digests()
    seq = mem.seq
    again = mem.consolidate(now=now)
    assert not again.changed and mem.seq == seq, again


def legacy(monkeypatch: pytest.MonkeyPatch, sweep: str, dream_policy: str) -> None:
    """Make the engine decide (and record) as the old versions did, to write an old log."""
    plan = dream.plan

    def old_plan(*args: Any, **kwargs: Any) -> dream.Plan:
        planned = plan(*args, **kwargs, sweep_policy=sweep, dream_policy=dream_policy)
        events = [msgspec.structs.replace(e, policy=dream_policy)
                  if getattr(e, "policy", None) == DREAM_POLICY else e for e in planned.events]
        return dream.Plan(events, planned.contents)

    monkeypatch.setattr(dream, "plan", old_plan)


# -- 1. tiers judged on the status the sweep leaves ---------------------------------------------


def restored_by_pin(mem: eventmem.Engine) -> tuple[str, datetime]:
    """A context memory used three times, archived 31 days on, then pinned."""
    mid = mem.remember(OTHERS[0], kind="context").memory_id
    assert mid is not None
    for _ in range(3):
        mem.touch(mid)
    now = T0 + 31 * DAY
    first = mem.consolidate(now=now)
    assert [(c.to_status, c.reason) for c in first.status_changes] == \
        [("archived", "retention_below_archive")]
    assert first.tier_changes == ()  # leaving: its tier is not judged
    mem.pin(mid)
    return mid, now


def test_a_memory_the_sweep_restores_moves_tier_in_the_same_sweep(path: Path) -> None:
    with open_store(path) as mem:
        mid, now = restored_by_pin(mem)
        report = mem.consolidate(now=now)
        assert [(c.to_status, c.reason) for c in report.status_changes] == \
            [("active", "exempt_pinned")]
        assert [(c.to_tier, c.reason) for c in report.tier_changes] == \
            [("semantic", "promote_accesses")]
        assert mem.get(mid).tier == "semantic"
        assert all(e.policy == SWEEP_POLICY for _, e in mem.store.read()
                   if isinstance(e, LifecycleTransitioned | TierChanged) and e.now == now)
        settled(mem, now)


def test_a_sweep_1_log_still_audits(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    legacy(monkeypatch, SWEEP_1, DREAM_POLICY)
    with open_store(path) as mem:
        _, now = restored_by_pin(mem)
        assert mem.consolidate(now=now).tier_changes == ()  # sweep-1: at the next sweep
        assert mem.consolidate(now=now).tier_changes != ()
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report


# -- 2. a summary that counts a memory the same cycle consolidated ------------------------------


def test_a_summary_counting_a_new_consolidated_memory_audits(path: Path) -> None:
    with open_store(path, summary_min_members=3) as mem:
        for text in HIKES + OTHERS[:2]:
            mem.remember(text, kind="event")
        report = mem.consolidate(now=T0)
        [made] = report.consolidated
        [summary] = report.summarized
        assert summary.members == 3  # the consolidated memory and the two others
        assert made.memory_id in summary.sources  # its text is readable within the cycle
        settled(mem, T0)


# -- 3. the sides of an open conflict are not merged -------------------------------------------


def conflicting(mem: eventmem.Engine) -> str:
    for text in CONFLICTING:
        mem.remember(text, kind="event", on_conflict="ask")
    [flagged] = [e for _, e in mem.store.read() if isinstance(e, ConflictFlagged)]
    return flagged.conflict_id


def test_the_sides_of_an_open_conflict_are_not_merged(path: Path) -> None:
    with open_store(path, cluster_similarity=0.6) as mem:
        conflict_id = conflicting(mem)
        assert mem.consolidate(now=T0).consolidated == ()
        settled(mem, T0)
        # Once settled, the winner may join a cluster again.
        mem.resolve(conflict_id, strategy="use_new")
        [made] = mem.consolidate(now=T0).consolidated
        assert len(made.members) == 3
        settled(mem, T0)


def test_a_dream_2_log_that_merged_a_conflict_still_audits(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    legacy(monkeypatch, SWEEP_POLICY, "dream-2")
    with open_store(path, cluster_similarity=0.6) as mem:
        conflicting(mem)
        [made] = mem.consolidate(now=T0).consolidated
        assert len(made.members) == 4 and made.policy == "dream-2"
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report


# -- areas checked without a bug ---------------------------------------------------------------


def test_recall_of_a_deleted_memory_does_not_revive_it(path: Path) -> None:
    with open_store(path) as mem:
        mid = mem.remember(OTHERS[1], kind="event").memory_id
        assert mid is not None
        mem.forget(mid)
        hits = mem.recall("Dan restores old radios", include_hidden=True)
        assert mid in [h.memory_id for h in hits]
        assert mem.get(mid).status == "deleted"
        report = mem.consolidate(now=T0 + 91 * DAY)
        assert [(c.memory_id, c.to_status) for c in report.status_changes] == [(mid, "purged")]
        settled(mem, T0 + 91 * DAY)


# -- a property over random programs -----------------------------------------------------------

TEXTS = HIKES + OTHERS + ["Bob likes green tea in the morning"]
STEP = st.one_of(
    st.tuples(st.just("remember"), st.sampled_from(TEXTS),
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
            report = mem.consolidate(now=now)
            memories = mem._views.state.memories
            for change in report.status_changes:
                record = memories[change.memory_id]
                if record.pinned or record.immutable:
                    assert change.to_status in ("active", "stale", "purged"), change
            for went in report.dormant:
                record = memories[went.memory_id]
                assert not (record.pinned or record.immutable), went
            assert not mem.consolidate(now=now).changed
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
        clock = eventmem.ManualClock(start=T0)
        config = Config(sync=False, dream=DreamParams(summary_min_members=3))
        with eventmem.open(path, clock=clock, config=config) as mem:
            ids = run(mem, clock, program)
            report = mem.audit()
            assert report.ok, report.findings
            assert mem.verify().ok
            before = {mid: mem.get(mid) for mid in ids}
        with eventmem.open(path, clock=clock, config=config) as mem:
            assert {mid: mem.get(mid) for mid in ids} == before


def test_a_purged_memory_takes_no_more_changes(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        made = mem.remember("The old locker code was 4711", namespace="n")
        mem.forget(made.memory_id)
        clock.advance(100 * DAY)
        mem.consolidate()
        assert mem.get(made.memory_id).status == "purged"
        head = mem.head()
        for change in (mem.forget, mem.touch, mem.pin, mem.unpin, mem.feedback):
            with pytest.raises(eventmem.InvalidInputError, match="is purged"):
                change(made.memory_id)
        assert mem.head() == head
        assert mem.get(made.memory_id).status == "purged"
        assert mem.audit().ok and mem.verify().ok

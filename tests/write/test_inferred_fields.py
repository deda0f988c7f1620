"""What the write path decides when the caller leaves it to eventmem: kind, time bound,
importance and flashbulb memories, working memory per session; and the read-side views of it
(hot set, working memory, stats)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import eventmem

WEDNESDAY = datetime(2025, 3, 5, 10, 0, tzinfo=UTC)


def _open(tmp_path: Path) -> tuple[eventmem.Engine, eventmem.ManualClock]:
    clock = eventmem.ManualClock(start=WEDNESDAY)
    return eventmem.open(tmp_path / "store", clock=clock), clock


def test_kind_is_classified_and_the_rule_recorded(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        r = mem.remember("My name is Sam and I work as a nurse", namespace="u")
        assert mem.get(r.memory_id).kind == "identity"
        [ingested] = [e for e in mem.history(r.memory_id) if e.type == "memory.ingested"]
        assert ingested.details["kind_rule"].startswith("identity:")
        given = mem.remember("My name is Sam, said the parrot", namespace="u", kind="context")
        assert mem.get(given.memory_id).kind == "context"


def test_a_plan_gets_a_valid_until_and_expires(tmp_path: Path) -> None:
    mem, clock = _open(tmp_path)
    with mem:
        r = mem.remember("Remind me to call the bank tomorrow", namespace="u")
        memory = mem.get(r.memory_id)
        assert memory.kind == "plan"
        assert memory.valid_until == datetime(2025, 3, 7, tzinfo=UTC)  # end of Thursday
        clock.advance(timedelta(days=3))
        report = mem.consolidate()
        assert report.invalidated == (r.memory_id,)
        assert mem.recall("call the bank", namespace="u") == []
        assert [h.memory_id for h in mem.recall("call the bank", namespace="u",
                                                 valid_at=WEDNESDAY)] == [r.memory_id]


def test_a_high_arousal_memory_is_a_flashbulb(tmp_path: Path) -> None:
    mem, _ = _open(tmp_path)
    with mem:
        bland = mem.get(mem.remember("The weather was fine today", namespace="u").memory_id)
        r = mem.remember("URGENT: our password database was breached and passwords leaked!",
                         namespace="u")
        memory = mem.get(r.memory_id)
        assert memory.flashbulb and memory.pinned
        assert memory.importance >= 0.9 > bland.importance
        assert memory.priority in ("high", "critical") and bland.priority != "critical"
        assert memory.stability > bland.stability


def test_working_memory_holds_nine_per_session(tmp_path: Path) -> None:
    mem, clock = _open(tmp_path)
    with mem:
        ids = []
        for i in range(12):
            clock.advance(timedelta(minutes=1))
            ids.append(mem.remember(f"step {i}: checked the deployment log entry {i}",
                                    namespace="u", session="s1").memory_id)
        working = mem.working("s1", namespace="u")
        assert len(working) == 9 and all(m.tier == "working" for m in working)
        evicted = [mid for mid in ids if mid not in {m.memory_id for m in working}]
        assert len(evicted) == 3 and all(mem.get(mid).tier == "episodic" for mid in evicted)
        assert mem.working("s2", namespace="u") == []
        assert mem.working("s1", namespace="other") == []


def test_hot_set_and_stats(tmp_path: Path) -> None:
    mem, clock = _open(tmp_path)
    with mem:
        keep = mem.remember("I prefer aisle seats on long flights", namespace="u").memory_id
        mem.remember("The cafe on 5th street closed", namespace="u")
        for _ in range(8):
            clock.advance(timedelta(hours=6))
            mem.touch(keep)
            mem.feedback(keep, useful=True)
        hot = mem.hot(namespace="u", k=3)
        assert [m.memory_id for m in hot] == [keep]
        assert hot[0].storage_strength == 8 and hot[0].utility > 0.5
        stats = mem.stats()
        assert stats["by_tier"] == {"episodic": 2} and stats["by_status"] == {"active": 2}
        assert 0 < stats["mean_retention"] <= 1 and stats["decay_model"] == "exponential"
        view = mem.as_of(seq=mem.seq)
        assert [m.memory_id for m in view.hot(namespace="u", k=3)] == [keep]

"""Plasticity (eventmem/policies/plasticity.py): synaptic tagging and capture, co-activation and
spreading activation, each an example with a ManualClock through the engine, recorded as events
with their evidence, rebuilt identically by replay and re-derived by the audit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.errors import InvalidInputError
from eventmem.events import (
    EmotionConsolidated,
    MemoriesStrengthened,
    MemoriesTagged,
    TagsExpired,
)
from eventmem.policies.plasticity import PlasticityParams
from projections.state import pair_key

T0 = datetime(2026, 1, 1, 9, tzinfo=UTC)
# Every mechanism on (spreading and the co-retrieval boost are off by default).
_ALL_ON = eventmem.Config(plasticity=PlasticityParams(spread=True, coretrieval_boost=0.05))


def _events(mem: eventmem.Engine, cls: type) -> list:
    return [env.event for env in mem._log.envelopes(1) if isinstance(env.event, cls)]


def _stability(mem: eventmem.Engine, memory_id: str) -> float:
    return mem._views.state.memories[memory_id].stability


def _checked(mem: eventmem.Engine) -> None:
    audit = mem.audit()
    assert audit.ok, audit.findings
    assert audit.by_kind.get("plasticity", 0) + audit.by_kind.get("maintenance", 0) > 0
    assert mem.verify().ok


@pytest.fixture
def clock() -> eventmem.ManualClock:
    return eventmem.ManualClock(start=T0)


# -- synaptic tagging and capture ---------------------------------------------------------------


def test_a_strong_memory_captures_the_weak_ones_tagged_in_its_session(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        weak = mem.remember("I had a sandwich for lunch", session="s1", importance=0.3)
        other = mem.remember("the printer is on floor two", session="s2", importance=0.3)
        before = _stability(mem, weak.memory_id)
        clock.advance(timedelta(hours=1))
        strong = mem.remember("My daughter was born today", session="s1", importance=0.9)
        assert _stability(mem, weak.memory_id) == pytest.approx(before * 1.3)
        assert _stability(mem, other.memory_id) == before  # another session: not captured
        (capture,) = _events(mem, MemoriesStrengthened)
        assert capture.cause == "capture" and capture.evidence == (strong.memory_id,)
        assert [c.memory_id for c in capture.changes] == [weak.memory_id]
        tagged = _events(mem, MemoriesTagged)
        assert [t.memory_ids for t in tagged] == [(weak.memory_id,), (other.memory_id,)]
        assert tagged[0].until == tagged[0].at + 4 * 3600 * 1_000_000
        # A tag is captured once: a second strong memory finds nothing left to capture.
        clock.advance(timedelta(minutes=5))
        mem.remember("I was promoted to lead engineer", session="s1", importance=0.95)
        assert len(_events(mem, MemoriesStrengthened)) == 1
        _checked(mem)


def test_a_tag_expires_after_four_hours_and_consolidate_drops_it(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        weak = mem.remember("the weather was grey", session="s1", importance=0.2)
        before = _stability(mem, weak.memory_id)
        clock.advance(timedelta(hours=4, seconds=1))
        mem.remember("My mother passed away last night", session="s1", importance=0.9)
        assert _stability(mem, weak.memory_id) == before  # too late: no capture
        assert mem._views.state.synaptic_tags  # still held until a consolidation
        mem.consolidate()
        (expired,) = _events(mem, TagsExpired)
        assert expired.memory_ids == (weak.memory_id,)
        assert not mem._views.state.synaptic_tags
        _checked(mem)


def test_no_tag_without_a_session_or_when_turned_off(tmp_path: Path,
                                                     clock: eventmem.ManualClock) -> None:
    config = eventmem.Config(plasticity=PlasticityParams(tagging=False))
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        mem.remember("the weather was grey", session="s1", importance=0.2)
        mem.remember("the coffee was cold", importance=0.2)
        assert not _events(mem, MemoriesTagged)
    with eventmem.open(tmp_path / "t", clock=clock) as mem:
        mem.remember("the coffee was cold", importance=0.2)  # no session: no tag
        assert not _events(mem, MemoriesTagged)


# -- co-activation and spreading --------------------------------------------------------------


def test_memories_recalled_together_gain_two_percent_up_to_the_cap(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        a = mem.remember("Rex the dog likes the park").memory_id
        b = mem.remember("Rex the dog barks at the mailman").memory_id
        base = {mid: _stability(mem, mid) for mid in (a, b)}
        mem.recall("Rex the dog", k=5)
        (together,) = [e for e in _events(mem, MemoriesStrengthened)
                       if e.cause == "coactivation"]
        assert set(together.evidence) == {a, b}
        for change in together.changes:
            # on top of the spacing effect of the access itself (none at once: R = 1)
            assert change.stability == pytest.approx(change.from_stability * 1.02)
        assert mem._views.state.coretrieved[pair_key(a, b)] == 1
        for _ in range(40):
            clock.advance(timedelta(minutes=1))
            mem.recall("Rex the dog", k=5)
        for mid in (a, b):  # bounded: co-activation never adds more than x1.5 in all
            record = mem._views.state.memories[mid]
            assert record.passive_gain == pytest.approx(1.5)
            assert record.stability <= base[mid] * 1.5 * 1.000001 + 1e-9 or \
                record.access_count > 0  # the spacing effect of accesses is its own
        assert mem._views.state.coretrieved[pair_key(a, b)] == 41
        _checked(mem)


def test_erasure_drops_the_co_retrieval_counts_of_the_erased(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        a = mem.remember("Rex the dog likes the park").memory_id
        b = mem.remember("Rex the dog barks at the mailman").memory_id
        mem.recall("Rex the dog", k=5)
        assert pair_key(a, b) in mem._views.state.coretrieved
        mem.erase(memory_id=a)
        assert not mem._views.state.coretrieved
        assert mem.verify().ok


def test_a_touch_spreads_two_percent_to_linked_memories(tmp_path: Path,
                                                        clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock, config=_ALL_ON) as mem:
        a = mem.remember("Alice works at Acme as an engineer").memory_id
        b = mem.remember("Alice lives in Berlin with her cat").memory_id
        c = mem.remember("Bob likes green tea").memory_id
        before_b, before_c = _stability(mem, b), _stability(mem, c)
        clock.advance(timedelta(days=3))
        mem.touch(a)
        (spread,) = _events(mem, MemoriesStrengthened)
        assert spread.cause == "spread" and spread.evidence == (a,)
        assert _stability(mem, b) == pytest.approx(before_b * 1.02)
        assert _stability(mem, c) == before_c  # not linked
        # No jump in retention: the new stability applies from the touch on.
        record = mem._views.state.memories[b]
        assert record.decay_done > 0 and record.last_access_at < record.decay_from
        _checked(mem)
    with eventmem.open(tmp_path / "t", clock=clock) as mem:  # the default: no spreading
        a = mem.remember("Alice works at Acme as an engineer").memory_id
        mem.remember("Alice lives in Berlin with her cat")
        mem.touch(a)
        assert not _events(mem, MemoriesStrengthened)


def test_consolidate_strengthens_aroused_memories_once(tmp_path: Path,
                                                      clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        calm = mem.remember("the meeting is at noon").memory_id
        loud = mem.remember("The deploy failed again, damn it, this is URGENT!").memory_id
        record = mem._views.state.memories[loud]
        assert record.arousal >= 0.5 and not record.flashbulb
        before = record.stability, _stability(mem, calm)
        clock.advance(timedelta(hours=1))
        mem.consolidate()
        (felt,) = _events(mem, EmotionConsolidated)
        assert [c.memory_id for c in felt.changes] == [loud]
        assert _stability(mem, loud) == pytest.approx(before[0] * (1 + 0.2 * record.arousal))
        assert _stability(mem, calm) == before[1]
        clock.advance(timedelta(hours=1))
        mem.consolidate()
        assert len(_events(mem, EmotionConsolidated)) == 1  # once
        _checked(mem)


def test_params_are_checked() -> None:
    with pytest.raises(InvalidInputError):
        PlasticityParams(capture_boost=0.5)
    with pytest.raises(InvalidInputError):
        PlasticityParams(max_passive_gain=0.9)


# -- replay reproduces the live state with every mechanism on ---------------------------------

_TEXTS = ["Alice works at Acme", "Alice lives in Berlin", "Rex the dog likes the park",
          "Rex barks at Alice", "the weather was grey", "My son was born today!"]
_steps = st.lists(st.tuples(st.sampled_from(["remember", "recall", "touch", "consolidate"]),
                            st.integers(0, len(_TEXTS) - 1), st.integers(0, 300),
                            st.sampled_from([None, "s1", "s2"]), st.floats(0.0, 1.0)),
                  min_size=3, max_size=14)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_steps)
def test_replay_and_audit_reproduce_plasticity(tmp_path_factory: pytest.TempPathFactory,
                                               steps: list) -> None:
    clock = eventmem.ManualClock(start=T0)
    path = tmp_path_factory.mktemp("p") / "s"
    with eventmem.open(path, clock=clock, config=_ALL_ON) as mem:
        ids: list[str] = []
        for op, i, minutes, session, weight in steps:
            clock.advance(timedelta(minutes=minutes))
            if op == "remember":
                ids.append(mem.remember(_TEXTS[i], session=session,
                                        importance=round(weight, 2)).memory_id)
            elif op == "recall":
                mem.recall(_TEXTS[i], k=4)
            elif op == "touch" and ids:
                mid = ids[i % len(ids)]
                if mem.get(mid).status not in ("erased", "purged"):
                    mem.touch(mid)
            elif op == "consolidate":
                mem.consolidate()
        assert mem.verify().ok  # live projections equal a rebuild from the log
        audit = mem.audit()
        assert audit.ok, audit.findings
        live = mem._views.state
        replayed = mem.replay()
        rebuilt = replayed._views.state
        assert rebuilt.synaptic_tags == live.synaptic_tags
        assert rebuilt.coretrieved == live.coretrieved
        assert {m: (r.stability, r.passive_gain) for m, r in rebuilt.memories.items()} == {
            m: (r.stability, r.passive_gain) for m, r in live.memories.items()}

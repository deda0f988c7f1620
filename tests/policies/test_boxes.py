"""Memory boxes and the trace weaver (eventmem/policies/boxes.py): each seal reason, traces,
``boxes()``/``trace()``, recall with box context, erasure, and replay and audit with boxes on;
examples with a ManualClock through the engine, and a property over random sessions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.errors import InvalidInputError, NotFoundError
from eventmem.events import BoxSealed, MemoryIngested, MemoryRecalled, session_key
from eventmem.policies.boxes import BoxParams, content_terms, overlap
from eventmem.text.normalize import packed_terms, term_id

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)

PUPPY = ["Alice adopted a puppy named Rex",
         "Rex the puppy chews Alice's shoes",
         "Alice walks Rex the puppy every morning"]
BUDGET = ["Quarterly budget review meeting moved to Thursday",
          "The quarterly budget review needs slides about costs"]


@pytest.fixture
def clock() -> eventmem.ManualClock:
    return eventmem.ManualClock(start=T0)


def _seals(mem: eventmem.Engine) -> list[BoxSealed]:
    return [event for _, event in mem.events() if isinstance(event, BoxSealed)]


def _say(mem: eventmem.Engine, clock: eventmem.ManualClock, texts: list[str], session: str,
         *, every: timedelta = timedelta(minutes=1), namespace: str = "default") -> list[str]:
    ids = []
    for text in texts:
        clock.advance(every)
        result = mem.remember(text, session=session, namespace=namespace)
        assert result.memory_id is not None
        ids.append(result.memory_id)
    return ids


def _checked(mem: eventmem.Engine) -> None:
    audit = mem.audit()
    assert audit.ok, audit.findings
    assert mem.verify().ok


# -- the terms a topic is made of --------------------------------------------------------------


def test_content_terms_leave_out_stopwords_and_gone_content() -> None:
    terms = content_terms(packed_terms("The puppy was with Rex"))
    assert terms == {term_id("puppy"), term_id("rex")}
    assert content_terms(None) == frozenset()


def test_overlap_is_the_share_of_the_smaller_set_the_other_holds() -> None:
    assert overlap(frozenset({1, 2}), frozenset({2, 3, 4, 5})) == 0.5
    assert overlap(frozenset(), frozenset({1})) == 0.0


@pytest.mark.parametrize("bad", [{"seal_below": 1.5}, {"gap_s": 0.0}, {"max_size": 0},
                                 {"topic_terms": 0}, {"trace_window": -1},
                                 {"trace_from": -0.1}])
def test_box_params_refuse_values_out_of_range(bad: dict) -> None:
    with pytest.raises(InvalidInputError):
        BoxParams(**bad)


# -- the seal reasons ----------------------------------------------------------------------------


def test_a_topic_shift_seals_the_open_box(tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        puppy = _say(mem, clock, PUPPY, "s1")
        assert _seals(mem) == []  # one topic: one open box
        [budget] = _say(mem, clock, BUDGET[:1], "s1")
        [seal] = _seals(mem)
        assert seal.reason == "topic" and seal.memory_ids == tuple(puppy)
        assert seal.by == budget and seal.overlap is not None and seal.overlap < 0.35
        assert seal.now is None and seal.policy == "boxes-1"
        sealed, still_open = mem.boxes()
        assert sealed.memory_ids == tuple(puppy) and sealed.reason == "topic"
        assert sealed.sealed_at == T0 + timedelta(minutes=4)
        assert still_open.memory_ids == (budget,) and still_open.sealed_at is None
        assert still_open.reason is None and still_open.trace_id is None
        _checked(mem)


def test_a_gap_seals_the_box_at_the_sessions_next_memory(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        first = _say(mem, clock, PUPPY[:1], "s1")
        _say(mem, clock, PUPPY[1:2], "s1", every=timedelta(minutes=29, seconds=59))
        assert _seals(mem) == []  # under 30 minutes: the same box
        [late] = _say(mem, clock, PUPPY[2:], "s1", every=timedelta(minutes=30))
        [seal] = _seals(mem)
        assert seal.reason == "gap" and seal.gap_s == 1800.0 and seal.by == late
        assert len(seal.memory_ids) == 2 and seal.memory_ids[0] == first[0]
        _checked(mem)


def test_a_quiet_session_is_sealed_by_consolidate(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        ids = _say(mem, clock, PUPPY, "s1")
        last = clock.now()
        mem.consolidate(now=last + timedelta(minutes=29))
        assert _seals(mem) == []
        report = mem.consolidate(now=last + timedelta(minutes=45))
        [seal] = _seals(mem)
        assert report.boxes_sealed == (seal.box_id,)
        assert seal.reason == "gap" and seal.by is None and seal.gap_s == 45 * 60.0
        assert seal.now is not None and seal.memory_ids == tuple(ids)
        assert mem.boxes()[0].sealed_at == last + timedelta(minutes=45)
        mem.consolidate(now=last + timedelta(hours=2))  # sealed once
        assert len(_seals(mem)) == 1
        _checked(mem)
        assert mem.audit().by_kind.get("maintenance", 0) >= 1


def test_a_full_box_is_sealed_at_once(tmp_path: Path, clock: eventmem.ManualClock) -> None:
    config = eventmem.Config(boxes=BoxParams(max_size=2))
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        ids = _say(mem, clock, PUPPY, "s1")
        [seal] = _seals(mem)
        assert seal.reason == "size" and seal.memory_ids == tuple(ids[:2]) and seal.by is None
        assert [b.memory_ids for b in mem.boxes()] == [tuple(ids[:2]), (ids[2],)]
        _checked(mem)


def test_a_batch_is_boxed_item_by_item(tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        results = mem.remember_many([{"text": t, "session": "s1"} for t in PUPPY + BUDGET])
        ids = [r.memory_id for r in results]
        [seal] = _seals(mem)
        assert seal.memory_ids == tuple(ids[:3]) and seal.by == ids[3]
        assert [b.memory_ids for b in mem.boxes()] == [tuple(ids[:3]), tuple(ids[3:])]
        _checked(mem)


def test_disabled_boxes_seal_nothing(tmp_path: Path, clock: eventmem.ManualClock) -> None:
    config = eventmem.Config(boxes=BoxParams(enabled=False))
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        _say(mem, clock, PUPPY + BUDGET, "s1", every=timedelta(hours=1))
        mem.consolidate(now=clock.now() + timedelta(days=1))
        assert _seals(mem) == []
        _checked(mem)


# -- memories without a session, and sessions kept apart ---------------------------------------


def test_memories_without_a_session_are_in_no_box(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        mem.remember(PUPPY[0])
        assert mem.boxes() == []
        [hit] = mem.recall("puppy Rex", box_context=3)
        assert hit.box_id is None and hit.neighbours == ()


def test_each_session_and_namespace_has_its_own_box(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        a = _say(mem, clock, PUPPY[:1], "s1")
        b = _say(mem, clock, BUDGET[:1], "s2")
        c = _say(mem, clock, PUPPY[1:2], "s1")
        d = _say(mem, clock, PUPPY[2:], "s1", namespace="other")
        assert _seals(mem) == []  # a budget in s2 shifts nothing in s1
        assert [x.memory_ids for x in mem.boxes()] == [tuple(a + c), tuple(b)]
        assert [x.memory_ids for x in mem.boxes(session="s2")] == [tuple(b)]
        assert [x.memory_ids for x in mem.boxes(namespace="other")] == [tuple(d)]
        assert mem.boxes(session="nobody") == []


# -- traces ------------------------------------------------------------------------------------


def test_boxes_on_a_recurring_topic_share_a_trace(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        puppy = _say(mem, clock, PUPPY[:2], "monday")
        budget = _say(mem, clock, BUDGET, "monday")  # seals the puppy box: a new trace
        later = _say(mem, clock, ["Rex the puppy learned to sit for Alice"], "tuesday",
                     every=timedelta(days=1))
        mem.consolidate(now=clock.now() + timedelta(hours=1))  # both quiet boxes seal
        seals = {seal.memory_ids: seal for seal in _seals(mem)}
        first, second, third = seals[tuple(puppy)], seals[tuple(budget)], seals[tuple(later)]
        assert first.trace_box is None and first.trace_id == f"trace-{puppy[0]}"
        assert second.trace_id != first.trace_id  # the budget is another topic
        assert third.trace_id == first.trace_id and third.trace_box == first.box_id
        assert third.trace_overlap >= 0.35
        assert [b.memory_ids for b in mem.trace(first.trace_id)] == [tuple(puppy), tuple(later)]
        assert [b.memory_ids for b in mem.boxes(trace_id=second.trace_id)] == [tuple(budget)]
        with pytest.raises(NotFoundError):
            mem.trace("trace-nothing")
        _checked(mem)


def test_the_weaver_compares_only_the_newest_traces(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    config = eventmem.Config(boxes=BoxParams(trace_window=1))
    with eventmem.open(tmp_path / "s", clock=clock, config=config) as mem:
        _say(mem, clock, PUPPY[:1], "a")
        _say(mem, clock, BUDGET[:1], "a", every=timedelta(hours=1))  # seals puppy (gap)
        _say(mem, clock, PUPPY[1:2], "a", every=timedelta(hours=1))  # seals budget (gap)
        mem.consolidate(now=clock.now() + timedelta(hours=1))
        puppy, budget, again = _seals(mem)
        # Only the budget trace is in the window of one: the puppy's recurrence starts anew.
        assert again.trace_id not in (puppy.trace_id, budget.trace_id)
        _checked(mem)


# -- recall with box context -------------------------------------------------------------------


def test_recall_returns_a_hits_box_neighbours_only_when_asked(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        ids = _say(mem, clock, [*PUPPY, "Rex the puppy has a vet visit on Friday"], "s1")
        plain = mem.recall("vet visit", k=1)
        assert plain[0].box_id is None and plain[0].neighbours == ()
        [hit] = mem.recall("vet visit", k=1, box_context=2)
        assert hit.memory_id == ids[3] and hit.box_id == f"box-{ids[0]}"
        assert [(n.memory_id, n.offset) for n in hit.neighbours] == [(ids[1], -2), (ids[2], -1)]
        assert hit.neighbours[1].text == PUPPY[2]
        assert hit.neighbours[1].created_at == T0 + timedelta(minutes=3)
        # Neighbours are context, not hits: the recall recorded only the hit as accessed.
        recalled = [e for _, e in mem.events() if isinstance(e, MemoryRecalled)]
        assert recalled[-1].memory_ids == (ids[3],)
        # Hits of a recall in the middle of a box take their nearest on both sides.
        [mid] = mem.recall("shoes", k=1, box_context=2)
        assert [n.offset for n in mid.neighbours] == [-1, 1]


def test_box_context_must_be_a_small_count(tmp_path: Path,
                                           clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        for bad in (-1, 51, 1.5, True, "2"):
            with pytest.raises(InvalidInputError):
                mem.recall("puppy", box_context=bad)  # type: ignore[arg-type]


# -- erasure, replay, the past ----------------------------------------------------------------


def test_an_erased_member_leaves_its_box_and_a_rebuild_keeps_the_boxes(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        puppy = _say(mem, clock, PUPPY, "s1")
        budget = _say(mem, clock, BUDGET, "s1")
        before = mem.boxes()
        mem.erase(puppy[1])
        after = mem.boxes()
        assert after[0].memory_ids == (puppy[0], puppy[2])  # no erased id, so no erased text
        assert after[0].reason == before[0].reason == "topic" and after[1] == before[1]
        [hit] = mem.recall("walks every morning", k=1, box_context=5)
        assert [n.memory_id for n in hit.neighbours] == [puppy[0]]
        # The seal decisions are folded from the log, not re-judged from the erased text.
        assert mem.replay().boxes() == after
        _checked(mem)
        mem.erase(namespace="default")
        assert mem.boxes() == [] and mem.replay().boxes() == []
        assert len(_seals(mem)) == 1 and budget


def test_a_forgotten_member_stays_listed_but_is_no_neighbour(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        puppy = _say(mem, clock, PUPPY, "s1")
        mem.forget(puppy[1])
        # Deleted, not erased: its text is still in the store (get() shows it) until purged.
        assert mem.boxes()[0].memory_ids == tuple(puppy)
        [hit] = mem.recall("walks every morning", k=1, box_context=5)
        assert [n.memory_id for n in hit.neighbours] == [puppy[0]]
        [again] = mem.recall("walks every morning", k=1, box_context=5, include_hidden=True)
        assert [n.memory_id for n in again.neighbours] == puppy[:2]


def test_a_reopened_store_without_snapshots_folds_the_same_boxes(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    path = tmp_path / "s"
    with eventmem.open(path, clock=clock) as mem:
        _say(mem, clock, PUPPY + BUDGET, "s1")
        mem.consolidate(now=clock.now() + timedelta(hours=1))
        boxes, traces = mem.boxes(), [mem.trace(b.trace_id) for b in mem.boxes()
                                      if b.trace_id is not None]
        live = mem._views.digests()
        rebuilt = mem.replay()
        assert rebuilt.boxes() == boxes
        assert rebuilt._views.digests() == live  # byte-identical projections
    with eventmem.open(path, clock=clock) as again:
        assert again.boxes() == boxes
        assert [again.trace(b.trace_id) for b in boxes if b.trace_id is not None] == traces


def test_a_view_of_the_past_shows_the_boxes_as_they_stood(
        tmp_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        puppy = _say(mem, clock, PUPPY, "s1")
        then = mem.seq
        _say(mem, clock, BUDGET[:1], "s1")
        [open_box] = mem.as_of(seq=then).boxes()
        assert open_box.memory_ids == tuple(puppy) and open_box.sealed_at is None
        assert mem.as_of(seq=then).recall("vet puppy", box_context=1)[0].box_id == open_box.box_id
        assert mem.boxes()[0].sealed_at is not None


# -- a property: boxes cut each session into consecutive stretches -----------------------------

_TEXTS = PUPPY + BUDGET + ["Bob fixed the garden fence", "The garden fence was painted green"]


@given(st.lists(st.tuples(st.sampled_from(["s1", "s2", None]), st.sampled_from(_TEXTS),
                          st.sampled_from([1, 20, 45])), min_size=1, max_size=12))
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_boxes_cut_each_session_into_consecutive_stretches(
        tmp_path_factory: pytest.TempPathFactory, steps: list) -> None:
    clock = eventmem.ManualClock(start=T0)
    config = eventmem.Config(boxes=BoxParams(max_size=3))
    path = tmp_path_factory.mktemp("boxes") / "s"
    with eventmem.open(path, clock=clock, config=config) as mem:
        for step, (session, text, minutes) in enumerate(steps):
            clock.advance(timedelta(minutes=minutes))
            mem.remember(f"{text} ({step})", session=session)
        mem.consolidate(now=clock.now() + timedelta(minutes=5))
        said: dict[str, list[str]] = {}  # every memory made in a session, merges included
        for _, event in mem.events():
            if isinstance(event, MemoryIngested) and event.session is not None:
                label = next(s for s in ("s1", "s2")
                             if session_key("default", s) == event.session)
                said.setdefault(label, []).append(event.memory_id)
        for session, ids in said.items():
            boxes = mem.boxes(session=session)
            assert [mid for box in boxes for mid in box.memory_ids] == ids
            assert all(len(box.memory_ids) <= 3 for box in boxes)
            assert all(box.sealed_at is not None for box in boxes[:-1])
        _checked(mem)

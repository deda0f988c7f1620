"""Documented engine behaviour, by example: dedup, recall and its trail, namespaces, valid time,
point-in-time views, history, deterministic ids, reopen and verify."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.clock import to_micros
from eventmem.events import (
    MemoriesStrengthened,
    MemoryIngested,
    MemoryRecalled,
    MemoryReinforced,
    event_tag,
)
from replay import rebuild
from replay.groups import PLASTICITY


def _new_events(mem: eventmem.Engine, since: int, *, plasticity: bool = False) -> list[object]:
    """The events appended after ``since``; without what the call decided after its own
    (tags, co-activation, spreading: tests/policies/test_plasticity.py) unless asked."""
    return [event for _, event in mem.store.read(since + 1)
            if plasticity or not isinstance(event, PLASTICITY)]


def _snapshot_view(mem: eventmem.Engine, query: str, namespace: str) -> list[str]:
    """What recall would return now, without recording an access."""
    return [h.memory_id for h in mem.as_of(seq=mem.seq).recall(query, namespace=namespace)]


# -- the write gate ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["alice likes green tea", "  Alice   likes green TEA ",
                                     "ALICE LIKES GREEN TEA", "Alice\tlikes\ngreen tea"])
def test_exact_duplicates_reinforce(mem: eventmem.Engine, variant: str) -> None:
    first = mem.remember("Alice likes green tea", namespace="alice")
    assert first.action == "created"
    seq = mem.seq
    again = mem.remember(variant, namespace="alice")
    assert again.action == "reinforced"
    assert again.memory_id == first.memory_id
    assert again.rule == "exact_hash"
    [event] = _new_events(mem, seq)
    assert isinstance(event, MemoryReinforced) and event.memory_id == first.memory_id
    assert [m.memory_id for m in mem.memories()] == [first.memory_id]
    assert mem.get(first.memory_id).text == "Alice likes green tea"  # the first wording stays


def test_duplicates_within_one_batch(mem: eventmem.Engine) -> None:
    results = mem.remember_many(
        ["Bob has a dog", "bob has a  DOG", "Bob owns a cat", "BOB HAS A DOG", "bob owns a cat"],
        namespace="bob")
    assert [r.action for r in results] == [
        "created", "reinforced", "created", "reinforced", "reinforced"]
    dog, cat = results[0].memory_id, results[2].memory_id
    assert dog != cat
    assert [r.memory_id for r in results] == [dog, dog, cat, dog, cat]
    assert [r.seq for r in results] == list(range(results[0].seq, results[0].seq + 5))
    assert len(list(mem.memories())) == 2
    assert mem.verify().ok


def test_dedup_is_per_namespace(mem: eventmem.Engine) -> None:
    a = mem.remember("The meeting is on Monday", namespace="a")
    b = mem.remember("the meeting is on monday", namespace="b")
    assert (a.action, b.action) == ("created", "created")
    assert a.memory_id != b.memory_id
    assert mem.remember("THE MEETING IS ON MONDAY", namespace="b").memory_id == b.memory_id


def test_forgotten_text_remembered_again_is_created_anew(mem: eventmem.Engine) -> None:
    old = mem.remember("Carol works at Initech", namespace="c")
    mem.forget(old.memory_id)
    new = mem.remember("carol works at initech", namespace="c")
    assert new.action == "created"
    assert new.memory_id != old.memory_id
    assert mem.get(old.memory_id).status == "deleted"
    assert mem.get(new.memory_id).status == "active"
    assert [h.memory_id for h in mem.recall("Initech", namespace="c")] == [new.memory_id]
    # ...and the new one now absorbs duplicates.
    assert mem.remember("Carol works at Initech", namespace="c").memory_id == new.memory_id


# -- recall --------------------------------------------------------------------------------------


@pytest.fixture
def office(mem: eventmem.Engine, clock: eventmem.ManualClock) -> list[str]:
    texts = ["The Berlin office opened in 2019", "Alice manages the Berlin office",
             "Bob prefers working from home", "The Paris office has forty people",
             "Lunch is served at noon"]
    ids = [r.memory_id for r in mem.remember_many(texts, namespace="work")]
    clock.advance(timedelta(days=1))
    return ids


def test_recall_explains_its_scores(mem: eventmem.Engine, office: list[str]) -> None:
    hits = mem.recall("who manages the Berlin office", namespace="work", k=3)
    assert len(hits) == 3
    assert hits[0].memory_id == office[1]
    assert hits[0].text == "Alice manages the Berlin office"
    top = hits[0].signals
    assert {"vector", "bm25", "context", "context_rank", "context_weight", "rrf", "relevance",
            "score"} <= set(top)
    assert top["context_rank"] == 1
    for hit in hits:
        s = hit.signals
        assert hit.score == s["score"]
        # rrf: each fused channel's weight over (k + its rank)
        fused = [name.removesuffix("_rank") for name in s if name.endswith("_rank")]
        expected = sum(s[f"{ch}_weight"] / (mem.config.rrf_k + s[f"{ch}_rank"]) for ch in fused)
        assert s["rrf"] == pytest.approx(expected)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_recall_appends_exactly_one_recalled_event(mem: eventmem.Engine,
                                                   office: list[str]) -> None:
    seq = mem.seq
    hits = mem.recall("  Berlin   office ", namespace="work", k=2)
    # One recall event; what it decides after it (co-activation of the hits returned together,
    # spreading to their links: eventmem.policies.plasticity) are events of their own.
    event, *after = _new_events(mem, seq, plasticity=True)
    assert isinstance(event, MemoryRecalled)
    assert all(isinstance(e, MemoriesStrengthened) for e in after)
    # The query (normalized) is caller text: stored as erasable content, named by its hash.
    assert event.query == "" and event.query_hash is not None
    assert json.loads(mem.store.blob(event.query_hash)) == {"namespace": "work",
                                                            "query": "Berlin office"}
    assert event.k == 2
    assert event.namespace == "work"
    assert event.memory_ids == tuple(h.memory_id for h in hits)
    assert event.scores == tuple(h.score for h in hits)
    assert event.valid_at is None
    assert event.at == to_micros(mem.clock.now())
    # A recall that finds nothing is recorded too.
    seq = mem.seq
    assert mem.recall("Berlin office", namespace="nobody-here") == []
    [event] = _new_events(mem, seq)
    assert isinstance(event, MemoryRecalled) and event.memory_ids == ()


def test_recall_counts_as_an_access(mem: eventmem.Engine, office: list[str],
                                    clock: eventmem.ManualClock) -> None:
    before = {mid: mem.get(mid) for mid in office}
    returned = {h.memory_id for h in mem.recall("Berlin office", namespace="work", k=2)}
    assert len(returned) == 2
    for mid in office:
        after = mem.get(mid)
        if mid in returned:
            assert after.access_count == before[mid].access_count + 1
            assert after.last_access_at == clock.now()
        else:
            assert after == before[mid]
    mem.recall("Berlin office", namespace="work", k=2)
    assert {mem.get(mid).access_count for mid in returned} == {2}


def test_namespaces_are_isolated(mem: eventmem.Engine) -> None:
    a = mem.remember_many(["Alice's password hint is blue", "Alice likes sailing"], namespace="a")
    b = mem.remember_many(["Bob's password hint is red", "Bob likes sailing"], namespace="b")
    a_ids, b_ids = {r.memory_id for r in a}, {r.memory_id for r in b}
    for query in ("password hint", "sailing", "Alice", "Bob"):
        assert {h.memory_id for h in mem.recall(query, namespace="a", k=10)} <= a_ids
        assert {h.memory_id for h in mem.recall(query, namespace="b", k=10)} <= b_ids
    assert mem.recall("sailing", namespace="c") == []
    assert {m.memory_id for m in mem.memories(namespace="a")} == a_ids
    # Forgetting in one namespace leaves the other alone.
    for mid in a_ids:
        mem.forget(mid)
    after = mem.recall("sailing", namespace="b", k=10)
    assert after[0].memory_id == b[1].memory_id
    assert {h.memory_id for h in after} <= b_ids
    assert all(mem.get(mid).status == "active" for mid in b_ids)


def test_recall_leaves_out_forgotten_memories(mem: eventmem.Engine, office: list[str]) -> None:
    mem.forget(office[1])
    assert office[1] not in {h.memory_id for h in mem.recall("Berlin office", namespace="work")}
    hidden = mem.recall("Berlin office", namespace="work", include_hidden=True)
    assert office[1] in {h.memory_id for h in hidden}


# -- valid time ----------------------------------------------------------------------------------


@pytest.fixture
def homes(mem: eventmem.Engine, t0: datetime) -> dict[str, str]:
    march, july = t0 + timedelta(days=60), t0 + timedelta(days=180)
    ids = {
        "london": mem.remember("Alice lives in London", namespace="alice",
                               valid_from=t0, valid_until=march).memory_id,
        "berlin": mem.remember("Alice lives in Berlin", namespace="alice",
                               valid_from=march, valid_until=july).memory_id,
        "paris": mem.remember("Alice lives in Paris", namespace="alice",
                              valid_from=july).memory_id,
        "always": mem.remember("Alice lives with a cat", namespace="alice").memory_id,
    }
    return ids


@pytest.mark.parametrize("day,expected", [
    (-1, set()),  # "always" was stated at t0: not true before it, as far as the store says
    (0, {"london", "always"}),
    (59, {"london", "always"}),
    (60, {"berlin", "always"}),  # valid_until is exclusive, valid_from inclusive
    (179, {"berlin", "always"}),
    (180, {"paris", "always"}),
    (10_000, {"paris", "always"}),
])
def test_recall_valid_at(mem: eventmem.Engine, homes: dict[str, str], t0: datetime, day: int,
                         expected: set[str]) -> None:
    when = t0 + timedelta(days=day)
    seq = mem.seq
    hits = mem.recall("where does Alice live", namespace="alice", k=10, valid_at=when)
    names = {name for name, mid in homes.items() if mid in {h.memory_id for h in hits}}
    assert names == expected
    [event] = _new_events(mem, seq)
    assert isinstance(event, MemoryRecalled) and event.valid_at == to_micros(when)
    for name, mid in homes.items():
        if name in expected:
            assert mem.get(mid, valid_at=when).memory_id == mid
        else:
            with pytest.raises(eventmem.NotFoundError, match="not valid at"):
                mem.get(mid, valid_at=when)
    # Without valid_at every current memory is a candidate.
    assert len(mem.recall("where does Alice live", namespace="alice", k=10)) == 4


def test_valid_interval_is_reported_by_get(mem: eventmem.Engine, homes: dict[str, str],
                                           t0: datetime) -> None:
    berlin = mem.get(homes["berlin"])
    assert berlin.valid_from == t0 + timedelta(days=60)
    assert berlin.valid_until == t0 + timedelta(days=180)
    always = mem.get(homes["always"])  # given no valid time: valid from when it was recorded
    assert always.valid_from == always.created_at and always.valid_until is None


# -- the past ------------------------------------------------------------------------------------


def _busy_store(mem: eventmem.Engine, clock: eventmem.ManualClock) -> list[str]:
    ids = []
    for day in range(4):
        clock.advance(timedelta(days=1))
        ids += [r.memory_id for r in mem.remember_many(
            [f"day {day} note about the Berlin office", f"day {day} note about lunch"],
            namespace="work")]
        mem.remember(f"day {day} note about the Berlin office", namespace="work")
        mem.recall("Berlin office", namespace="work", k=2)
        if day == 1:
            mem.snapshot()  # so views can start from a snapshot as well as from scratch
        if day == 2:
            mem.pin(ids[0])
            mem.forget(ids[1])
    return ids


def test_as_of_seq_equals_a_rebuild_to_that_point(mem: eventmem.Engine,
                                                  clock: eventmem.ManualClock) -> None:
    _busy_store(mem, clock)
    head = mem.head()
    for n in range(head.seq + 1):
        view = mem.as_of(seq=n)
        assert view.seq == n
        assert view._views.digests() == rebuild(mem.store, until=n).digests(), n
        view.recall("Berlin office", namespace="work")  # a view's recall appends nothing
    assert mem.head() == head


def test_as_of_at_equals_a_rebuild_to_that_time(mem: eventmem.Engine,
                                                clock: eventmem.ManualClock) -> None:
    _busy_store(mem, clock)
    head = mem.head()
    times = sorted({event.at for _, event in mem.store.read()})
    for micros in sorted({t + d for t in times for d in (-1, 0, 1)}):
        when = eventmem.clock.from_micros(micros)
        view = mem.as_of(at=when)
        expected_seq = max((s for s, e in mem.store.read() if e.at <= micros), default=0)
        assert view.seq == expected_seq
        assert view.now() == when
        assert view._views.digests() == rebuild(mem.store, until=expected_seq).digests()
        if expected_seq:
            view.recall("lunch", namespace="work")
    assert mem.head() == head


def test_as_of_view_is_frozen_while_the_engine_moves_on(mem: eventmem.Engine,
                                                        clock: eventmem.ManualClock) -> None:
    ids = _busy_store(mem, clock)
    view = mem.as_of(seq=mem.seq)
    digests = view._views.digests()
    before = view.get(ids[2])
    hits = [h.memory_id for h in view.recall("Berlin office", namespace="work")]
    mem.recall("Berlin office", namespace="work")
    mem.forget(ids[2])
    mem.remember("a new Berlin office fact", namespace="work")
    assert view._views.digests() == digests
    assert view.get(ids[2]) == before
    assert [h.memory_id for h in view.recall("Berlin office", namespace="work")] == hits
    assert mem.get(ids[2]).status == "deleted"


def test_as_of_shows_what_was_known_then(mem: eventmem.Engine, clock: eventmem.ManualClock,
                                        t0: datetime) -> None:
    first = mem.remember("Dana joined in January", namespace="d")
    clock.advance(timedelta(days=10))
    second = mem.remember("Dana moved teams in February", namespace="d")
    mem.forget(first.memory_id)
    past = mem.as_of(at=t0 + timedelta(days=5))
    assert past.get(first.memory_id).status == "active"
    with pytest.raises(eventmem.NotFoundError):
        past.get(second.memory_id)
    assert [h.memory_id for h in past.recall("Dana", namespace="d")] == [first.memory_id]
    assert [h.memory_id for h in mem.as_of(seq=mem.seq).recall("Dana", namespace="d")] == [
        second.memory_id]


# -- history -------------------------------------------------------------------------------------


def test_pin_unpin_forget_are_events_in_history(mem: eventmem.Engine,
                                                clock: eventmem.ManualClock) -> None:
    r = mem.remember("Eve's birthday is May 3", namespace="e", kind="identity", importance=0.9)
    mem.remember("eve's birthday is may 3", namespace="e")
    mem.recall("birthday", namespace="e")
    clock.advance(timedelta(hours=1))
    pin_seq = mem.pin(r.memory_id)
    assert mem.get(r.memory_id).pinned is True
    assert mem.pin(r.memory_id) == pin_seq  # already pinned: no new event
    mem.unpin(r.memory_id)
    assert mem.get(r.memory_id).pinned is False
    forget_seq = mem.forget(r.memory_id)
    assert mem.forget(r.memory_id) == forget_seq  # already deleted: no new event
    assert mem.get(r.memory_id).status == "deleted"
    history = mem.history(r.memory_id)
    assert [e.type for e in history] == [
        "memory.ingested", "memory.reinforced", "memory.recalled", "memory.pinned",
        "memory.unpinned", "memory.forgotten"]
    assert [e.seq for e in history] == sorted(e.seq for e in history)
    assert history[0].details["kind"] == "identity"
    assert history[0].details["importance"] == 0.9
    assert history[1].details["rule"] == "exact_hash"
    assert history[-1].seq == forget_seq
    assert history[-1].details["reason"] == "explicit"
    assert history[3].at == clock.now() and history[3].actor == "user"
    # The log holds exactly these events for the memory, nothing else.
    touching = [s for s, e in mem.store.read()
                if getattr(e, "memory_id", None) == r.memory_id
                or r.memory_id in getattr(e, "memory_ids", ())]
    assert [e.seq for e in history] == touching
    # A view of the past shows the history up to its seq.
    assert [e.type for e in mem.as_of(seq=pin_seq).history(r.memory_id)][-1] == "memory.pinned"


def test_history_events_carry_their_tags(mem: eventmem.Engine) -> None:
    mid = mem.remember("Frank drives a blue car", namespace="f").memory_id
    [entry] = mem.history(mid)
    [(seq, event)] = [(s, e) for s, e in mem.store.read() if isinstance(e, MemoryIngested)]
    assert (entry.seq, entry.type) == (seq, event_tag(event))


# -- determinism, reopen, verify -----------------------------------------------------------------


def _script(path: Path, t0: datetime) -> tuple[list[str], object, dict[str, str]]:
    clock = eventmem.ManualClock(start=t0)
    with eventmem.open(path, clock=clock) as mem:
        ids = [r.memory_id for r in mem.remember_many(
            ["Gina plays the cello", "Gina lives in Oslo", "gina plays the CELLO"], namespace="g")]
        clock.advance(timedelta(minutes=5))
        ids.append(mem.remember("Gina's sister is Hana", namespace="g").memory_id)
        mem.recall("cello", namespace="g")
        mem.forget(ids[1])
        ids.append(mem.remember("Gina lives in Oslo", namespace="g").memory_id)
        return ids, mem.head(), mem.verify().digests


def test_memory_ids_are_deterministic(tmp_path: Path, t0: datetime) -> None:
    ids_a, head_a, digests_a = _script(tmp_path / "a", t0)
    ids_b, head_b, digests_b = _script(tmp_path / "b", t0)
    assert ids_a == ids_b
    assert head_a == head_b  # byte-identical logs
    assert digests_a == digests_b
    assert len(set(ids_a)) == 4  # one reinforced, one re-created after forget
    assert all(mid.startswith("mem_") for mid in ids_a)
    # Another start time gives other ids.
    ids_c, _, _ = _script(tmp_path / "c", t0 + timedelta(seconds=1))
    assert set(ids_c).isdisjoint(ids_a)


def test_reopen_changes_nothing(store_path: Path, clock: eventmem.ManualClock) -> None:
    with eventmem.open(store_path, clock=clock) as mem:
        ids = _busy_store(mem, clock)
        head = mem.head()
        digests = mem.verify().digests
        memories = list(mem.memories())
        hits = _snapshot_view(mem, "Berlin office", "work")
    for _ in range(2):
        with eventmem.open(store_path, clock=clock) as mem:
            assert mem.opened_from.startswith("snapshot")
            assert mem.head() == head
            assert mem.verify().digests == digests
            assert list(mem.memories()) == memories
            assert _snapshot_view(mem, "Berlin office", "work") == hits
            assert mem.get(ids[0]).pinned is True
    # A readonly open sees the same, and rebuilding from the log (no snapshot) too.
    with eventmem.open(store_path, clock=clock, readonly=True) as mem:
        assert mem.head() == head
        assert rebuild(mem.store).digests() == digests
        assert list(mem.memories()) == memories


def test_verify_is_ok_on_a_busy_store(mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    _busy_store(mem, clock)
    report = mem.verify()
    assert report.ok, report.findings
    assert report.findings == ()
    assert report.events_checked == mem.seq == report.head_seq
    assert report.head_hash == mem.head().hash.hex()
    assert set(report.digests) == {"state", "temporal", "vectors", "text", "graph"}
    assert report.digests == rebuild(mem.store).digests()


def test_verify_catches_live_state_that_drifted_from_the_log(mem: eventmem.Engine,
                                                            office: list[str]) -> None:
    # A projection changed without an event (the bug event sourcing rules out) is reported.
    mem._views.state.memories[office[0]].access_count += 1
    report = mem.verify()
    assert not report.ok
    assert [(f.check, f.seq) for f in report.findings] == [("projection", mem.seq)]


def test_rebuild_until_a_time_equals_rebuild_until_its_seq(
    mem: eventmem.Engine, clock: eventmem.ManualClock
) -> None:
    mem.remember("first fact", namespace="t")
    clock.advance(timedelta(days=1))
    cut = clock.now()
    seq_at_cut = mem.seq
    clock.advance(timedelta(days=1))
    mem.remember("second fact", namespace="t")
    by_time = rebuild(mem.store, until=cut)
    assert by_time.seq == seq_at_cut
    assert by_time.digests() == rebuild(mem.store, until=seq_at_cut).digests()
    assert rebuild(mem.store, until=cut - timedelta(days=3)).seq == 0


def test_every_write_leaves_a_line_in_the_ops_log(mem: eventmem.Engine,
                                                   store_path: Path) -> None:
    """An operator reads the ops log to see what changed a store: each call that appends is
    there with its seq, and no line quotes a memory's text."""
    import json

    oslo = mem.remember("Bob lives in Oslo", namespace="n")
    ask = mem.remember("Bob lives in Paris", namespace="n", on_conflict="ask")
    assert ask.conflict_id is not None
    mem.touch(oslo.memory_id)
    mem.feedback(oslo.memory_id, useful=True)
    mem.pin(oslo.memory_id)
    mem.unpin(oslo.memory_id)
    mem.resolve(ask.conflict_id, strategy="use_new")
    mem.forget(ask.memory_id)
    records = [json.loads(line) for line in (store_path / "ops.log").read_text().splitlines()]
    logged = {r["event"] for r in records}
    assert {"remember", "touch", "feedback", "pin", "unpin", "resolve", "forget"} <= logged
    assert all("seq" in r or "first_seq" in r for r in records
               if r["event"] in {"touch", "feedback", "pin", "unpin", "resolve", "forget"})
    assert "Oslo" not in (store_path / "ops.log").read_text()


def test_replay_folds_the_whole_log_and_answers_as_the_live_store(tmp_path):
    """Engine.replay(): a read-only view folded from the first event, never from a snapshot."""
    clock = eventmem.ManualClock(start=datetime(2025, 3, 1, tzinfo=UTC))
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        r = mem.remember("Alice moved to Berlin in March", namespace="alice")
        mem.snapshot()
        mem.remember("Alice works at Acme as a data engineer", namespace="alice")
        view = mem.replay()
        assert view.seq == mem.seq
        assert view.get(r.memory_id).text == mem.get(r.memory_id).text
        assert [h.memory_id for h in view.recall("berlin", namespace="alice")] == \
            [h.memory_id for h in mem.recall("berlin", namespace="alice")]
        with pytest.raises(eventmem.ReadOnlyError):
            view.remember("x")  # type: ignore[attr-defined]


def test_stats_names_the_store_format_and_the_projection_version(tmp_path):
    with eventmem.open(tmp_path / "s") as mem:
        stats = mem.stats()
    assert stats["store_format"] == "3"  # a new store packs its records and vector rows
    assert isinstance(stats["projection_version"], int)


# -- update: the caller's new version of a memory ------------------------------------------------


def test_update_is_a_supersession_by_the_caller(mem: eventmem.Engine,
                                                clock: eventmem.ManualClock) -> None:
    old = mem.remember("My son Leo is 7", pinned=True)
    before = clock.now()
    clock.advance(timedelta(days=30))
    new = mem.update(old.memory_id, "My son Leo is 8")
    assert (new.action, new.rule) == ("updated", "caller_update")
    old_now, new_now = mem.get(old.memory_id), mem.get(new.memory_id)
    assert (old_now.status, old_now.superseded_by) == ("superseded", new.memory_id)
    assert new_now.pinned and new_now.derived_from == (old.memory_id,)
    assert new_now.kind == old_now.kind and new_now.valid_from == clock.now()
    assert mem.get(old.memory_id, valid_at=before).valid_until == clock.now()
    assert [h.text for h in mem.recall("how old is Leo")] == ["My son Leo is 8"]
    assert [h.text for h in mem.recall("how old is Leo", valid_at=before)] == ["My son Leo is 7"]
    types = [e.type for e in mem.history(old.memory_id)]
    assert "memory.superseded" in types
    assert mem.audit().ok and mem.verify().ok
    assert mem._views.digests() == rebuild(mem.store).digests()


def test_update_with_new_metadata_only_is_a_new_version(mem: eventmem.Engine) -> None:
    old = mem.remember("Pat's desk is by the window", metadata={"floor": 2})
    seq = mem.seq
    assert mem.update(old.memory_id, "Pat's desk is by the window").action == "skipped"
    assert mem.seq == seq  # unchanged: nothing recorded
    moved = mem.update(old.memory_id, "Pat's desk is by the window", metadata={"floor": 3})
    assert moved.action == "updated" and mem.get(moved.memory_id).metadata == {"floor": 3}


def test_what_cannot_be_updated(mem: eventmem.Engine) -> None:
    fixed = mem.remember("The launch code is 0000", immutable=True)
    deleted = mem.remember("Quinn owes me lunch")
    mem.forget(deleted.memory_id)
    erased = mem.remember("Rae's phone is 555-0101")
    mem.erase(erased.memory_id)
    seq = mem.seq
    for memory_id in (fixed.memory_id, deleted.memory_id, erased.memory_id):
        with pytest.raises(eventmem.InvalidInputError):
            mem.update(memory_id, "something else entirely")
    with pytest.raises(eventmem.NotFoundError):
        mem.update("mem_0000000000000000", "anything")
    with pytest.raises(eventmem.InvalidInputError):
        mem.update(fixed.memory_id, "")
    assert mem.seq == seq

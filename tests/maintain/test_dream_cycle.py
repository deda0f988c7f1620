"""The dream cycle through the engine, every step by example: rehearsal, strategic forgetting
(contradiction, utility floor, redundancy, capacity), clusters, category summaries, relation
pruning; and what a hunt found: a summary may count the memory the same cycle consolidated, the
sides of an open conflict are never merged, and logs of older dream versions still audit.

Each example runs ``consolidate`` at the clock's time on a real store and checks what the report,
the memories and their history say; every example ends with the live projections equal to a
rebuild from the log, and a second consolidation at the same ``now`` appending nothing.

Texts are calm (no flashbulb pins) and pairs meant to be similar stay under the write gate's
near-duplicate band (cosine ~0.82 with the default embedder), so the write path keeps them as
separate memories whatever it decides about near duplicates. The state machine over the same
cycle is tests/properties/test_dream_machine.py."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import eventmem
import replay
from eventmem.clock import to_micros
from eventmem.config import Config
from eventmem.events import (
    DREAM_POLICY,
    ConflictFlagged,
    ConflictResolved,
    MemoryIngested,
)
from eventmem.policies.dream.params import DreamParams
from eventmem.policies.lifecycle import SWEEP_POLICY
from replay import rebuild
from tests import ROOT
from tests.strategies import HIKES, OTHERS

DAY = timedelta(days=1)

T0 = datetime(2025, 1, 1, 9, tzinfo=UTC)


def open_store(path: Path, clock: eventmem.ManualClock, **dream: Any) -> eventmem.Engine:
    return eventmem.open(path, clock=clock, config=Config(sync=False, dream=DreamParams(**dream)))


@pytest.fixture
def store(store_path: Path, clock: eventmem.ManualClock) -> Iterator[Any]:
    """``store(**dream_params)`` opens the test's store with those DreamParams."""
    opened: list[eventmem.Engine] = []

    def make(**dream: Any) -> eventmem.Engine:
        opened.append(open_store(store_path, clock, **dream))
        return opened[-1]

    yield make
    for engine in opened:
        engine.close()


def remember(mem: eventmem.Engine, text: str, kind: str = "event", **options: Any) -> str:
    result = mem.remember(text, kind=kind, **options)
    assert result.action == "created" and result.memory_id is not None, result
    assert mem.get(result.memory_id).pinned is options.get("pinned", False), "a flashbulb?"
    return result.memory_id


def settled(mem: eventmem.Engine) -> None:
    """Live state equals a rebuild, and consolidating again at the same now appends nothing."""
    assert mem._views.digests() == replay.rebuild(mem.store).digests()
    seq = mem.seq
    again = mem.consolidate(now=mem.now())
    assert not again.changed and mem.seq == seq, again


def dormant_of(report: Any, memory_id: str) -> list[tuple[str, Any]]:
    return [(c.reason, c.other) for c in report.dormant if c.memory_id == memory_id]


# -- 1. rehearsal ------------------------------------------------------------------------------


def test_rehearsal_boosts_the_most_important_endangered_memory(store, clock, t0):
    mem = store(rehearse_max=1, cluster=False, summaries=False)
    important = remember(mem, "Alice is sitting in meeting room four", "context", importance=0.9)
    plain = remember(mem, "Bob is sitting in meeting room five", "context", importance=0.2)
    clock.set(t0 + 9 * DAY)  # exp(-9/7) = 0.28: both endangered
    before = mem.get(important).retention
    report = mem.consolidate()
    assert [(c.memory_id, c.from_stability, c.stability) for c in report.rehearsed] == [
        (important, 7.0, 14.0)]
    assert report.rehearsed[0].retention == pytest.approx(before)
    assert mem.get(important).retention == pytest.approx(before)  # no jump without an access
    assert {c.memory_id for c in report.status_changes} == {important, plain}  # both stale
    [entry] = [e for e in mem.history(important) if e.type == "memory.rehearsed"]
    assert entry.details["policy"] == DREAM_POLICY
    settled(mem)
    clock.set(t0 + 12 * DAY)  # slower decay since: exp(-(9/7 + 3/14)) against exp(-12/7)
    assert mem.get(important).retention == pytest.approx(math.exp(-(9 / 7 + 3 / 14)))
    assert mem.get(plain).retention == pytest.approx(math.exp(-12 / 7))
    # the next cycle takes the other one; the first waits for an access before another boost
    report = mem.consolidate()
    assert [c.memory_id for c in report.rehearsed] == [plain]
    settled(mem)


# -- 2. strategic forgetting -------------------------------------------------------------------


def flag(mem: eventmem.Engine, conflict_id: str, existing: str, new: str) -> None:
    mem._append_one(ConflictFlagged(
        at=mem._now(), namespace="default", conflict_id=conflict_id, memory_id=existing,
        other_id=new, content_hash="0" * 32, rule="test", similarity=0.5, strategy="ask"),
        "test-flag")


def test_open_contradiction_sends_the_older_side_dormant(store, clock, t0):
    mem = store(cluster=False, summaries=False, conflict_grace_days=0)
    old, pinned, kept, new = (remember(mem, text) for text in OTHERS[:4])
    mem.pin(pinned)
    flag(mem, "c1", old, new)
    flag(mem, "c2", kept, new)
    flag(mem, "c3", pinned, new)
    mem._append_one(ConflictResolved(at=mem._now(), namespace="default", conflict_id="c2",
                                     strategy="keep_existing", winner=kept, loser=new),
                    "test-resolve")
    clock.advance(DAY)
    report = mem.consolidate()
    assert [(c.memory_id, c.reason, c.other, c.conflict_id) for c in report.dormant] == [
        (old, "contradiction", new, "c1")]
    assert (mem.get(old).status, mem.get(old).tier) == ("dormant", "dormant")
    assert mem.get(pinned).status == mem.get(kept).status == "active"
    assert old not in [h.memory_id for h in mem.as_of(seq=mem.seq).recall("bees allotment")]
    settled(mem)
    mem.touch(old)  # an access revives it ...
    assert mem.get(old).status == "active"
    report = mem.consolidate(now=clock.now() + DAY)  # ... and the open conflict sends it back
    assert dormant_of(report, old) == [("contradiction", new)]
    settled(mem)


def test_utility_floor_after_a_month_unused(store, clock, t0):
    mem = store(cluster=False, summaries=False)
    useless, control = remember(mem, OTHERS[0]), remember(mem, OTHERS[1])
    clock.set(t0 + 31 * DAY)
    for _ in range(12):  # 0.5 * 0.9**12 = 0.14
        mem.feedback(useless, useful=False)
    report = mem.consolidate()
    [change] = report.dormant
    assert (change.memory_id, change.reason) == (useless, "utility_floor")
    assert change.utility == pytest.approx(0.5 * 0.9**12) and change.idle_days == 31.0
    assert mem.get(control).status == "active"
    settled(mem)


def test_redundancy_keeps_the_more_useful_twin_and_always_the_pinned_one(store, clock, t0):
    mem = store(redundancy_similarity=0.8, cluster=False, summaries=False)
    first, second = remember(mem, HIKES[0]), remember(mem, HIKES[1])
    mem.feedback(first, useful=False)
    pinned = remember(mem, HIKES[0], namespace="b", pinned=True)
    twin = remember(mem, HIKES[1], namespace="b")
    mem.feedback(pinned, useful=False)  # less useful, but pinned: it stays
    clock.advance(DAY)
    report = mem.consolidate()
    assert [(c.memory_id, c.reason, c.other) for c in report.dormant] == [
        (twin, "redundant", pinned), (first, "redundant", second)]  # namespaces in order
    assert all(c.similarity is not None and c.similarity > 0.8 for c in report.dormant)
    assert mem.get(second).status == mem.get(pinned).status == "active"
    settled(mem)


def test_capacity_trims_to_ninety_percent_of_the_cap(store, clock, t0):
    mem = store(capacity=10, cluster=False, summaries=False)
    ids = [remember(mem, f"Reading list item {n}: {title}", "plan")
           for n, title in enumerate(["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch",
                                      "Rebecca", "Persuasion", "Walden", "Kindred", "Solaris",
                                      "Matilda", "Lolita"])]
    mem.pin(ids[0])
    for mid in ids[:4]:
        mem.feedback(mid, useful=False)
    clock.advance(DAY)
    report = mem.consolidate()
    trimmed = [c.memory_id for c in report.dormant if c.reason == "capacity"]
    # 12 live, down to 9: the least useful (then least important) that are not pinned
    assert sorted(trimmed) == sorted(ids[1:4])
    assert [mem.get(mid).importance for mid in trimmed] == sorted(
        mem.get(mid).importance for mid in trimmed)
    assert report.dormant[0].count == 12
    assert sum(m.status == "active" for m in mem.memories()) == 9
    settled(mem)


# -- 3. clusters -------------------------------------------------------------------------------


class Counting:
    """A summarizer that says how often it was called."""

    summarizer_id = "counting-1"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def summarize(self, texts: Sequence[str]) -> str:
        self.calls.append(list(texts))
        return f"Summary of {len(texts)} memories: " + " / ".join(texts)


def test_a_cluster_becomes_one_consolidated_memory_linked_to_its_members(store, clock, t0):
    mem = store(summaries=False)
    members = [remember(mem, text) for text in HIKES[:3]]
    frozen = remember(mem, HIKES[3], immutable=True)
    other = remember(mem, OTHERS[0])
    clock.advance(DAY)
    report = mem.consolidate()
    [made] = report.consolidated
    assert made.members == tuple(members)  # the immutable one is never merged
    assert made.method == "extractive-1" and made.cohesion > 0.75 == made.threshold
    assert "AgglomerativeClustering" in made.algorithm
    got = mem.get(made.memory_id)
    assert (got.source, got.tier, got.status, got.kind) == (
        "consolidation", "semantic", "active", "event")
    assert got.text == ". ".join(HIKES[:3]) + "."  # extractive: the members, in time order
    ingest = next(e for e in mem.history(made.memory_id) if e.type == "memory.ingested")
    assert ingest.details["derived_from"] == tuple(members)
    assert [(link.target, link.relation) for link in ingest.details["links"]] == [
        (m, "elaborates") for m in members]
    assert sorted(c.memory_id for c in report.dormant) == sorted(members)
    for mid in members:
        assert dormant_of(report, mid) == [("consolidated", made.memory_id)]
        assert (mem.get(mid).status, mem.get(mid).tier) == ("dormant", "dormant")
        assert "memory.consolidated" in [e.type for e in mem.history(mid)]
    assert mem.get(frozen).status == mem.get(other).status == "active"
    view = mem.as_of(seq=mem.seq)  # default recall finds the gist, not the details
    hits = [h.memory_id for h in view.recall("Alice hiking in the Alps", k=5)]
    assert made.memory_id in hits and not set(members) & set(hits)
    assert mem._views.state.consolidations[made.memory_id] == tuple(members)
    settled(mem)
    mem.touch(members[0])  # a detail that is used comes back, and is not merged again
    clock.advance(DAY)
    assert mem.consolidate().consolidated == ()
    assert mem.get(members[0]).status == "active"
    settled(mem)


def test_memories_whose_time_is_over_are_not_merged(store, clock, t0):
    """dream-6: three near duplicates whose valid time ended stay as they were (a consolidated
    memory of them would be born expired), and the cycle is settled by itself."""
    mem = store(summaries=False)
    over = [remember(mem, text, valid_until=t0 + DAY / 2) for text in HIKES[:3]]
    clock.advance(DAY)
    assert mem.consolidate().consolidated == ()
    assert all(mem.get(mid).status == "active" for mid in over)
    settled(mem)


def test_a_dream_5_log_that_merged_expired_memories_still_audits(
        store_path: Path, clock: eventmem.ManualClock, t0: datetime,
        monkeypatch: pytest.MonkeyPatch, legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_POLICY, "dream-5")
    with open_store(store_path, clock, summaries=False) as mem:
        for text in HIKES[:3]:
            remember(mem, text, valid_until=t0 + DAY / 2)
        clock.advance(DAY)
        [made] = mem.consolidate().consolidated
        assert made.policy == "dream-5"
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report


def test_a_pluggable_summarizer_is_recorded_and_never_called_by_replay(store_path, clock, t0):
    summarizer = Counting()
    mem = eventmem.open(store_path, clock=clock, config=Config(sync=False),
                        summarizer=summarizer)
    for text in HIKES[:3]:
        remember(mem, text)
    clock.advance(DAY)
    [made] = mem.consolidate().consolidated
    assert made.method == "counting-1" and len(summarizer.calls) == 1
    assert summarizer.calls[0] == HIKES[:3]
    text = mem.get(made.memory_id).text
    assert text is not None and text.startswith("Summary of 3 memories: ")
    digests = mem._views.digests()
    mem.close()
    assert replay.rebuild(eventmem.open(store_path, clock=clock, readonly=True).store
                          ).digests() == digests
    with eventmem.open(store_path, clock=clock, config=Config(sync=False)) as again:
        assert again.get(made.memory_id).text == text  # stored, not summarized again
        assert again.verify().ok
    assert len(summarizer.calls) == 1


def test_a_failing_summarizer_falls_back_to_extractive(store_path, clock, t0):
    class Broken:
        def summarize(self, texts: Sequence[str]) -> str:
            return "   "

    with eventmem.open(store_path, clock=clock, config=Config(sync=False),
                       summarizer=Broken()) as mem:
        for text in HIKES[:3]:
            remember(mem, text)
        [made] = mem.consolidate().consolidated
        assert made.method == "extractive-1:fallback"
        assert mem.get(made.memory_id).text == ". ".join(HIKES[:3]) + "."


# -- 4. category summaries ---------------------------------------------------------------------


def test_a_category_with_ten_memories_gets_a_summary_refreshed_on_change(store, clock, t0):
    mem = store(cluster=False)
    plans = [remember(mem, f"Reading list item {n}: {title}", "plan")
             for n, title in enumerate(["Dune", "Emma", "Ulysses", "Beloved", "Middlemarch",
                                        "Rebecca", "Persuasion", "Walden", "Kindred"])]
    assert mem.consolidate().summarized == ()  # nine: not yet
    plans.append(remember(mem, "Reading list item 9: Solaris", "plan"))
    report = mem.consolidate()
    [first] = report.summarized
    assert (first.kind, first.members, first.replaces) == ("plan", 10, None)
    summary = mem.get(first.memory_id)
    assert (summary.kind, summary.source, summary.tier) == ("plan", "consolidation", "semantic")
    assert len(first.sources) == 4 and set(first.sources) <= set(plans)
    assert summary.text is not None and summary.text.count("Reading list item") == 4
    settled(mem)
    # a new member that does not change the text: the same summary, its membership refreshed
    remember(mem, "Reading list item 10: Matilda", "plan")
    clock.advance(DAY)
    [second] = mem.consolidate().summarized
    assert (second.memory_id, second.replaces, second.members) == (first.memory_id, None, 11)
    assert second.sources == first.sources
    assert mem.get(first.memory_id).last_access_at == clock.now()
    assert mem._views.state.summaries["default\x00plan"].members == 11
    settled(mem)
    # a source forgotten: a new text, a new summary that supersedes the old one
    mem.forget(first.sources[0])
    clock.advance(DAY)
    [third] = mem.consolidate().summarized
    assert third.members == 10 and third.replaces == first.memory_id != third.memory_id
    assert first.sources[0] not in third.sources
    assert mem.get(first.memory_id).status == "superseded"
    assert [e.type for e in mem.history(first.memory_id)][-1] == "memory.category_summarized"
    settled(mem)


# -- the cycle as a whole ----------------------------------------------------------------------


def test_disabled_dream_runs_the_sweep_only(store, clock, t0):
    mem = store(enabled=False)
    for text in HIKES[:3] + [f"Reading list item {n}" for n in range(12)]:
        remember(mem, text, "plan")
    report = mem.consolidate(now=clock.now() + 9 * DAY)
    assert (report.rehearsed, report.dormant, report.consolidated, report.summarized) == (
        (), (), (), ())


def test_a_cycle_at_a_later_now_is_settled_at_that_now(store, clock, t0):
    """The memories a cycle makes start their clocks at its now, not at the append time."""
    mem = store()
    for text in HIKES[:3]:
        remember(mem, text)
    later = clock.now() + 40 * DAY
    report = mem.consolidate(now=later)
    [made] = report.consolidated
    assert mem.get(made.memory_id).last_access_at == later
    seq = mem.seq
    assert not mem.consolidate(now=later).changed and mem.seq == seq
    assert mem.verify().ok


_PROGRAM = """
import sys
from datetime import timedelta
import eventmem
from eventmem.config import Config
from eventmem.policies.dream.params import DreamParams
from tests.maintain.test_dream_cycle import T0
from tests.strategies import HIKES, OTHERS
clock = eventmem.ManualClock(start=T0)
config = Config(sync=False, dream=DreamParams(summary_min_members=4, capacity=9))
with eventmem.open(sys.argv[1], clock=clock, config=config) as mem:
    ids = [r.memory_id for r in mem.remember_many(HIKES + OTHERS)]
    for _ in range(12):
        mem.feedback(ids[-1], useful=False)
    for days in (1, 9, 40):
        clock.set(T0 + timedelta(days=days))
        mem.consolidate()
    print("".join((r.prev_hash + r.payload).hex() for r in mem.store.iter_raw()))
"""


@pytest.mark.slow
def test_a_cycle_writes_the_same_bytes_in_other_processes_and_hash_seeds(tmp_path):
    """Rule 2 of the design: nothing the cycle decides depends on hash order or the process."""
    outputs = []
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                           os.environ.get("PYTHONPATH")]))}
        done = subprocess.run([sys.executable, "-c", _PROGRAM,
                               str(tmp_path / f"seed{seed}")], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and len(outputs[0]) > 1_000
    with eventmem.open(tmp_path / "seed0", config=Config(sync=False)) as mem:
        tags = {type(e).__struct_config__.tag for _, e in mem.store.read()}
    assert {"memory.consolidated", "memory.category_summarized", "memory.dormant",
            "memory.rehearsed"} <= tags


def test_times_are_microseconds():  # the helpers above assume it
    assert to_micros(T0 + DAY) - to_micros(T0) == 86_400_000_000


# -- a conflict the write path left open; relations long unstated ----------------------------------


def test_the_dream_cycle_retires_the_older_side_of_a_conflict_left_open(mem, clock):
    old = mem.remember("Alice lives in Berlin", namespace="alice").memory_id
    new = mem.remember("Alice moved to Paris", namespace="alice", on_conflict="ask").memory_id
    grace = mem.config.dream.conflict_grace_days
    clock.advance(timedelta(days=grace + 1))
    mem.consolidate()
    assert mem.get(old).status == "dormant" and mem.get(new).status == "active"
    # A resolved conflict is not the dream's business.
    mem.resolve(mem.conflicts(namespace="alice", status=None)[0].conflict_id,
                strategy="keep_existing")
    assert mem.get(new).status == "superseded"


def test_the_dream_cycle_prunes_relations_long_unstated_and_keeps_their_entities(mem, clock):
    mem.remember("Dana works at Globex", namespace="d")
    mem.remember("Erin works at Initech", namespace="d")
    clock.advance(timedelta(days=300))
    mem.remember("Erin works at Initech, still", namespace="d")  # restated: stays strong
    clock.advance(timedelta(days=200))
    report = mem.consolidate()
    assert report.pruned_relations == 1
    dana = mem.graph.entity("Dana", namespace="d")
    assert dana.relations == () and len(dana.memory_ids) == 1  # the entity and its memory stay
    assert [r.relation for r in mem.graph.entity("Erin", namespace="d").relations] == [
        "works_at"]
    assert mem.consolidate(now=clock.now()).pruned_relations == 0  # idempotent at one now
    assert rebuild(mem.store).digests() == mem._views.digests()
    assert mem.audit().ok
    # The event names relations by digest: no entity name enters the immutable log.
    [pruned] = [e for _, e in mem.events() if type(e).__name__ == "RelationsPruned"]
    assert "globex" not in repr(pruned).lower() and "dana" not in repr(pruned).lower()


# -- on a store of its own, audited ----------------------------------------------------------------


# The sides of an "ask" conflict (Berlin / Paris) that cluster with two more hikes at 0.6.
CONFLICTING = ["Alice lives in Berlin and went hiking in the Alps with Bob last summer",
               "Alice lives in Paris and went hiking in the Alps with Carol last summer",
               HIKES[2], HIKES[3]]


def open_at_t0(store_path: Path, **dream_params: Any) -> eventmem.Engine:
    return eventmem.open(store_path, clock=eventmem.ManualClock(start=T0),
                         config=Config(sync=False, dream=DreamParams(**dream_params)))


def audited_and_settled(mem: eventmem.Engine, now: datetime) -> None:
    """Audit and verify ok, live state equals a rebuild, a second run at ``now`` appends
    nothing."""
    report = mem.audit()
    assert report.ok, report.findings
    assert mem.verify().ok
    assert mem._views.digests() == replay.rebuild(mem.store).digests()
    seq = mem.seq
    again = mem.consolidate(now=now)
    assert not again.changed and mem.seq == seq, again


# -- a summary may count the memory the same cycle consolidated ------------------------------------


def test_a_summary_counting_a_new_consolidated_memory_audits(store_path: Path) -> None:
    with open_at_t0(store_path, summary_min_members=3) as mem:
        for text in HIKES + OTHERS[:2]:
            mem.remember(text, kind="event")
        report = mem.consolidate(now=T0)
        [made] = report.consolidated
        [summary] = report.summarized
        assert summary.members == 3  # the consolidated memory and the two others
        assert made.memory_id in summary.sources  # its text is readable within the cycle
        audited_and_settled(mem, T0)


# -- the sides of an open conflict are never merged (dream-3) --------------------------------------


def conflicting(mem: eventmem.Engine) -> str:
    for text in CONFLICTING:
        mem.remember(text, kind="event", on_conflict="ask")
    [flagged] = [e for _, e in mem.store.read() if isinstance(e, ConflictFlagged)]
    return flagged.conflict_id


def test_the_sides_of_an_open_conflict_are_not_merged(store_path: Path) -> None:
    with open_at_t0(store_path, cluster_similarity=0.6) as mem:
        conflict_id = conflicting(mem)
        assert mem.consolidate(now=T0).consolidated == ()
        audited_and_settled(mem, T0)
        # Once settled, the winner may join a cluster again.
        mem.resolve(conflict_id, strategy="use_new")
        [made] = mem.consolidate(now=T0).consolidated
        assert len(made.members) == 3
        audited_and_settled(mem, T0)


def test_a_dream_2_log_that_merged_a_conflict_still_audits(
        store_path: Path, monkeypatch: pytest.MonkeyPatch,
        legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_POLICY, "dream-2")
    with open_at_t0(store_path, cluster_similarity=0.6) as mem:
        conflicting(mem)
        [made] = mem.consolidate(now=T0).consolidated
        assert len(made.members) == 4 and made.policy == "dream-2"
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report


def test_a_consolidated_memory_speaks_of_what_its_members_spoke_of(store, clock, t0):
    """Its members go dormant: the memory that carries their facts is found by the dates they
    spoke of, as read when each was said (not its own synthesized text read at the cycle's
    time)."""
    mem = store(summaries=False)
    members = [remember(mem, f"Alice went hiking in the Alps with {who} last week")
               for who in ("Bob", "Carol", "Erin")]
    clock.advance(DAY)
    [made] = mem.consolidate().consolidated
    assert made.members == tuple(members)
    spoken = {e.memory_id: e.times for _, e in mem.events() if isinstance(e, MemoryIngested)}
    assert spoken[made.memory_id] == spoken[members[0]] != ()  # the week before t0
    assert mem.audit().ok
    settled(mem)


# -- similar pairs of a large namespace: pivot blocks (dream-4) --------------------------------

# Forces the blocked search on a store small enough for a test: pivots one in 16, 8 probes.
BLOCKED = {"pairs_exact_max": 100, "pairs_pivot_every": 16, "pairs_probes": 8}
_WORDS = ("amber", "basil", "cedar", "delta", "ember", "fjord", "gravel", "harbor", "indigo",
          "juniper", "kettle", "lantern", "meadow", "nickel", "orchid", "pepper", "quartz",
          "raven", "saffron", "thistle", "umber", "velvet", "willow", "yarrow", "zephyr")


def crowd(count: int, seed: int = 3) -> list[str]:
    """``count`` calm texts of five words each drawn from 25: few pairs alike enough to merge."""
    rng = random.Random(seed)
    return [f"Note {k}: " + " ".join(rng.sample(_WORDS, 5)) for k in range(count)]


_HIKERS = ("Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas",
           "Kiri", "Lars", "Mira", "Nils", "Olga", "Pablo", "Rhea", "Sami", "Tove", "Ugo")
_PEAKS = ("Matterhorn", "Eiger", "Jungfrau", "Dolomites", "Pyrenees", "Tatras", "Carpathians",
          "Rockies", "Andes", "Atlas", "Caucasus", "Urals", "Appalachians", "Cascades", "Sierra",
          "Vosges", "Jura", "Balkans", "Rila", "Olympus")
_TRIPS = ("hiking", "climbing", "skiing", "camping", "trekking")


def hike_families(count: int) -> list[list[str]]:
    """``count`` families of four trips that differ in the companion only (pairwise cosine
    about 0.8), each unlike the others: each family is one cluster."""
    return [[f"{_HIKERS[k % 20]} went {_TRIPS[k % 5]} in the {_PEAKS[k * 7 % 20]} with {who} "
             f"in {1990 + k}" for who in ("Bob", "Carol", "Erin", "Finn")] for k in range(count)]


def test_a_family_of_near_duplicates_is_merged_by_the_blocked_search(store_path: Path) -> None:
    families = hike_families(3)
    with open_at_t0(store_path, **BLOCKED) as mem:
        mem.remember_many([{"text": t, "kind": "event"} for t in crowd(300)], namespace="n")
        for family in families:
            mem.remember_many([{"text": t, "kind": "event"} for t in family], namespace="n")
        made = mem.consolidate(now=T0).consolidated
        merged = sorted(sorted(mem.get(m).text for m in c.members) for c in made)
        assert all(sorted(f) in merged for f in families), merged
        assert all("pairs=pivot-blocks(every=16, probes=8" in c.algorithm for c in made)
        assert all(c.policy == DREAM_POLICY == "dream-6" for c in made)
        audited_and_settled(mem, T0)


def test_a_dream_3_log_is_audited_with_the_exact_search(
        store_path: Path, monkeypatch: pytest.MonkeyPatch,
        legacy: Callable[[str, str], None]) -> None:
    """dream-3 searched every namespace exactly: its consolidations record no pair search, and
    the audit re-derives them with the exact search whatever pairs_exact_max says."""
    legacy(SWEEP_POLICY, "dream-3")
    with open_at_t0(store_path, **BLOCKED) as mem:
        mem.remember_many([{"text": t, "kind": "event"} for t in crowd(200)], namespace="n")
        mem.remember_many([{"text": t, "kind": "event"} for t in hike_families(1)[0]],
                          namespace="n")
        [made] = mem.consolidate(now=T0).consolidated
        assert made.policy == "dream-3" and "pairs=" not in made.algorithm
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report


@pytest.mark.slow
def test_a_blocked_cycle_over_thousands_of_memories_audits(store_path: Path) -> None:
    """Some thousands of memories, the blocked search forced: the same decisions on the state
    the audit rebuilds, a second cycle with nothing to do, and every pair it found one the exact
    search finds with the same cosine."""
    families = hike_families(20)
    texts = crowd(3_000) + [t for family in families for t in family]
    with open_at_t0(store_path, **BLOCKED) as mem:
        for start in range(0, len(texts), 500):
            mem.remember_many([{"text": t, "kind": "event"} for t in texts[start:start + 500]],
                              namespace="n")
        made = mem.consolidate(now=T0).consolidated
        merged = {frozenset(mem.get(m).text for m in c.members) for c in made}
        assert sum(frozenset(f) <= m for f in families for m in merged) == len(families)
        audited_and_settled(mem, T0)


# -- episodes and notes (dream-5) -----------------------------------------------------------------


def mixed_forms(mem: eventmem.Engine) -> tuple[list[str], list[str]]:
    """Four near-duplicate hikes, two stored as episodes (events) and two as notes (activities,
    a habit): one cluster for dream-4, one of each form for dream-5 at a cluster size of 2."""
    episodes = [remember(mem, HIKES[0], kind="event"), remember(mem, HIKES[1], kind="event")]
    notes = [remember(mem, HIKES[2], kind="activity"), remember(mem, HIKES[3], kind="activity")]
    return episodes, notes


def test_an_episode_and_a_note_are_never_merged(store_path: Path) -> None:
    with open_at_t0(store_path, cluster_min_size=2) as mem:
        episodes, notes = mixed_forms(mem)
        made = mem.consolidate(now=T0).consolidated
        assert sorted(sorted(c.members) for c in made) == sorted([sorted(episodes),
                                                                  sorted(notes)])
        assert {mem.get(c.memory_id).kind for c in made} == {"event", "activity"}
        audited_and_settled(mem, T0)


def test_a_dream_4_log_that_merged_an_episode_with_a_note_still_audits(
        store_path: Path, monkeypatch: pytest.MonkeyPatch,
        legacy: Callable[[str, str], None]) -> None:
    legacy(SWEEP_POLICY, "dream-4")
    with open_at_t0(store_path, cluster_min_size=2) as mem:
        episodes, notes = mixed_forms(mem)
        [made] = mem.consolidate(now=T0).consolidated
        assert sorted(made.members) == sorted(episodes + notes) and made.policy == "dream-4"
        monkeypatch.undo()
        report = mem.audit()
        assert report.ok and report.by_kind.get("maintenance"), report

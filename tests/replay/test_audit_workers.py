"""An audit spread over worker processes (replay.audit, "several processes") reports what the
single process reports: the same findings in the same order, the same counts, the same reasons
for what it cannot re-derive, on real stores, with real processes.

The ranges start wherever the parent cuts the log (not where groups begin): with one seq per
range, every group boundary of a store is the start of some worker's range, so each piece of
state the audit carries from one group to the next (the fold, the trigger of plasticity, the
last sweep version, box seals, memories folded hollow, recorded configs) is rebuilt at every
possible range start."""

from __future__ import annotations

import importlib
import shutil
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem import (
    ContradictionAnswer,
    ContradictionQuestion,
    JudgedLink,
    Judges,
    LinkAnswer,
    LinkQuestion,
    progress,
)
from eventmem.cli.commands import main
from eventmem.errors import InvalidInputError
from eventmem.events import (
    DREAM_POLICY,
    LifecycleTransitioned,
    MemoryConsolidated,
    MemoryIngested,
    MemoryReinforced,
)
from eventmem.policies.lifecycle import SWEEP_4
from eventmem.policies.tiers import TierParams
from eventmem.text.embedders import HashingEmbedder
from eventmem.text.normalize import content_hash
from replay.audit import AuditReport
from tests.properties import test_audit_programs as programs
from tests.replay.test_audit import CONFIG, DAY, T0, build, events_of, rewrite
from tests.strategies import HIKES

# (replay.audit is also the name of the function the package exports)
audit_module = importlib.import_module("replay.audit")


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """test_audit's store: every kind of decision (writes, conflicts settled and resolved later,
    evictions, sessions, recalls, a touch, feedback, plasticity, box seals, two consolidations)."""
    path = tmp_path_factory.mktemp("audit-workers") / "store"
    build(path)
    return path


@pytest.fixture
def every_seq(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranges of one seq each (the parent cuts the ranges; the workers never see this)."""
    monkeypatch.setattr(audit_module, "RANGES_PER_WORKER", 1 << 20)


def audits(path: Path, *, until: int | None = None, config: Any = CONFIG,
           workers: tuple[int, ...] = (2,)) -> Iterator[tuple[AuditReport, AuditReport]]:
    """(the single process's report, the report with n workers) for each n of ``workers``."""
    with eventmem.open(path, readonly=True, config=config) as mem:
        one = mem.audit(until=until, workers=1)
        for n in workers:
            yield one, mem.audit(until=until, workers=n)


def same(one: AuditReport, many: AuditReport) -> None:
    assert msgspec.json.encode(many) == msgspec.json.encode(one)  # order of dict keys too
    assert many == one


def test_a_range_starting_at_every_group_gives_the_single_process_report(
        original: Path, every_seq: None):
    for one, many in audits(original):
        assert one.ok and set(one.by_kind) >= {"write", "resolve", "maintenance", "recall",
                                               "touch", "feedback", "plasticity"}, one
        same(one, many)


def in_ranges(mem: eventmem.Engine, config: Any, splits: list[int],
              monkeypatch: pytest.MonkeyPatch) -> AuditReport:
    """The workers' own code run here, in one process: a fresh worker for each range between
    ``splits`` (the first folds nothing, each later one folds the log up to its range), and
    their parts merged as the parent merges them."""
    head, parts = mem.seq, []
    bounds = [1, *splits, head + 1]
    for start, end in pairwise(bounds):
        # A fresh worker (with this process's log: LMDB opens a store once a process; a real
        # worker opens its own).
        monkeypatch.setattr(audit_module, "_LEFT", None)
        monkeypatch.setattr(audit_module, "_WORKER", audit_module._Worker(
            mem.store, config, mem._embedder, audit_module.TOLERANCE, head, None))
        parts.append(audit_module._audit_range(start, end, head))
    return audit_module._merged(parts, head, audit_module.TOLERANCE)


def test_a_worker_starting_at_any_seq_goes_on_as_one_that_audited_what_came_before(
        original: Path, purged: Path, monkeypatch: pytest.MonkeyPatch):
    """Every split is taken here (with processes, which worker gets which range is up to
    their timing): a worker audits the log up to a seq, another folds it and audits the rest;
    together they report what one process does."""
    for path in (original, purged):
        with eventmem.open(path, readonly=True, config=CONFIG) as mem:
            one = mem.audit(workers=1)
            for split in range(2, mem.seq + 1):
                same(one, in_ranges(mem, CONFIG, [split], monkeypatch))


@pytest.mark.slow  # random programs, each audited three times
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(program=programs.steps, cuts=st.lists(st.floats(0, 1), min_size=1, max_size=3))
def test_whatever_the_engine_wrote_ranges_audit_as_one_process(
        program: list[Any], cuts: list[float], monkeypatch: pytest.MonkeyPatch):
    with tempfile.TemporaryDirectory() as tmp:
        for mem in programs.run_program(Path(tmp) / "s", program):
            splits = sorted({1 + int(cut * mem.seq) for cut in cuts} - {1, mem.seq + 1})
            same(mem.audit(workers=1), in_ranges(mem, programs.CONFIG, splits, monkeypatch))


def test_any_number_of_workers_and_ranges_and_a_prefix(original: Path):
    head = len(events_of(original))
    for one, many in audits(original, workers=(2, 3)):
        same(one, many)
    for one, many in audits(original, until=head * 2 // 3, workers=(2,)):
        assert one.until_seq == head * 2 // 3
        same(one, many)


def test_a_tampered_decision_in_a_late_range_is_found_as_one_process_finds_it(
        original: Path, tmp_path: Path):
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    events = events_of(copy)
    # The last consolidation's sweep: the last event, in the last of the ranges.
    seq, last = events[-1]
    assert isinstance(last, LifecycleTransitioned)

    def archive_first(e: Any) -> Any:
        other = "archived" if e.changes[0].to_status != "archived" else "stale"
        return msgspec.structs.replace(
            e, changes=(msgspec.structs.replace(e.changes[0], to_status=other),
                        *e.changes[1:]))

    rewrite(copy, seq, archive_first)
    # ...and a write early on, so that findings of two ranges must come back in log order.
    early, _ = next((s, e) for s, e in events if isinstance(e, MemoryReinforced))
    rewrite(copy, early, lambda e: msgspec.structs.replace(e, similarity=0.5))
    for one, many in audits(copy):
        assert [(f.seq, f.field) for f in one.findings] == [
            (early, "similarity"), (seq, "changes[0].to_status")]
        same(one, many)


def build_purged(path: Path) -> None:
    """Two consolidations at one transaction time, then a memory forgotten, and purged by a
    third; between its ingest and its purge, a write in its namespace that reads nothing of it
    (the rebuilt state is hollow there: a difference is unverifiable, not a finding)."""
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(path, clock=clock, config=CONFIG) as mem:
        mem.remember_many(["Pick up the dry cleaning", "We repainted the hallway green",
                           "I must buy milk by Friday"])
        first = mem.consolidate(now=clock.now() + 10 * DAY)
        second = mem.consolidate(now=clock.now() + 400 * DAY)
        assert first.changed and second.changed
        gone = mem.remember("The wifi router is in the hallway").memory_id
        mem.remember("The wifi router is in the hallway, since May")
        mem.forget(str(gone))
        mem.remember("Bob's bicycle has a flat tyre")
        clock.advance(100 * DAY)
        assert mem.consolidate().status_changes[0].to_status == "purged"
        mem.remember("The wifi router moved to the study")


@pytest.fixture(scope="module")
def purged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("audit-workers-purged") / "store"
    build_purged(path)
    return path


def test_purged_content_and_consolidations_at_one_time_audit_the_same(
        purged: Path, tmp_path: Path, every_seq: None):
    for one, many in audits(purged):
        # (the purged memory's text, and a later write that read the state it left hollow)
        assert one.ok and one.unverifiable_by_reason == {"content removed since": 1,
                                                         "input text removed": 1}
        same(one, many)
    copy = tmp_path / "copy"
    shutil.copytree(purged, copy)
    seq, _ = next((s, e) for s, e in events_of(copy) if isinstance(e, MemoryIngested)
                  and e.content_hash == content_hash("Bob's bicycle has a flat tyre"))
    rewrite(copy, seq, lambda e: msgspec.structs.replace(e, importance=0.99))
    for one, many in audits(copy):
        assert one.ok and one.unverifiable_by_reason["content removed since"] == 2
        same(one, many)


def test_an_older_sweep_version_carries_to_the_ranges_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, every_seq: None):
    """A consolidation whose sweep decided nothing records no sweep version; the audit re-runs
    it with the one the log recorded last (here sweep-4, which promoted no memory for a shared
    entity; the current sweep would), and a worker starting after that takes it from the
    events it folds. With a decision of that consolidation edited, no version re-derives it, and
    the findings are those of the version the log recorded last."""
    from eventmem.maintain import cycle

    plan = cycle.plan

    def sweep_4_plan(*args: Any, **kwargs: Any) -> cycle.Plan:
        return plan(*args, **kwargs, sweep_policy=SWEEP_4, dream_policy=DREAM_POLICY)

    clock = eventmem.ManualClock(start=T0)
    path = tmp_path / "s"
    config = msgspec.structs.replace(CONFIG, tiers=TierParams(
        promote_entity_memories=3, promote_entity_min_age_days=1.0))
    with eventmem.open(path, clock=clock, config=config) as mem:
        monkeypatch.setattr(cycle, "plan", sweep_4_plan)
        pinned = mem.remember("The alarm code is kept by the neighbour", pinned=True).memory_id
        for _ in range(3):
            mem.touch(str(pinned))
        mem.remember_many(HIKES)
        assert mem.consolidate(now=clock.advance(DAY)).tier_changes  # recorded as sweep-4
        for text in ("Marta Kowalski plays the violin", "Marta Kowalski lives near the harbour",
                     "Marta Kowalski teaches chemistry"):
            mem.remember(text)
        mem.remember_many([f"Carol hiked the Tatra ridge {when}"
                           for when in ("in fog", "at dawn", "twice", "alone")])
        later = mem.consolidate(now=clock.advance(2 * DAY))
        assert later.consolidated and not later.tier_changes and not later.status_changes
        monkeypatch.undo()
        assert mem.consolidate(now=clock.now(), dry_run=True).tier_changes  # as sweep-6 would
    [(seq, _)] = [(s, e) for s, e in events_of(path) if isinstance(e, MemoryConsolidated)][1:]
    for one, many in audits(path, config=config):
        assert one.ok, one.findings
        same(one, many)
    rewrite(path, seq, lambda e: msgspec.structs.replace(e, cohesion=0.5))
    for one, many in audits(path, config=config):
        assert [(f.seq, f.field) for f in one.findings] == [(seq, "cohesion")]
        same(one, many)


class Contradicts:
    """A contradiction judge: a text that names Alice contradicts any older one that does."""

    judge_id = "alice-1"

    def contradiction(self, question: ContradictionQuestion) -> ContradictionAnswer:
        both = "Alice" in question.new_text and "Alice" in question.old_text
        return ContradictionAnswer(contradicts=both, subject="alice", attribute="home",
                                   old_value=question.old_text[:10],
                                   new_value=question.new_text[:10], rule="judged",
                                   confidence=0.8) if both else ContradictionAnswer(
            contradicts=False)


class Causes:
    """A link judge: the new memory causes its first candidate."""

    judge_id = "causes-1"

    def links(self, question: LinkQuestion) -> LinkAnswer:
        return LinkAnswer(links=tuple(JudgedLink(memory_id=c.memory_id, relation="causes",
                                                 weight=0.6) for c in question.candidates[:1]))


def test_the_recorded_answers_of_judges_are_replayed_in_every_range(
        tmp_path: Path, every_seq: None):
    clock = eventmem.ManualClock(start=T0)
    path = tmp_path / "s"
    judges = Judges(contradiction=Contradicts(), links=Causes())
    with eventmem.open(path, clock=clock, config=CONFIG, judges=judges) as mem:
        for text in ("Alice lives in Berlin", "Bob likes tea", "Alice moved to Madrid",
                     "Bob drinks tea at Acme", "Alice lives on a boat now"):
            mem.remember(text)
            clock.advance(timedelta(minutes=5))
        assert any(e.judges for _, e in mem.events() if isinstance(e, MemoryIngested))
    for one, many in audits(path):
        assert one.ok and one.by_kind.get("write"), one.findings
        same(one, many)


class Unshipped(HashingEmbedder):
    """The default embedder, but not said to be deterministic: it stays in the parent."""

    deterministic = False


def test_an_embedder_that_may_not_travel_audits_in_one_process(
        original: Path, monkeypatch: pytest.MonkeyPatch):
    with eventmem.open(original, readonly=True, config=CONFIG) as mem:
        one = mem.audit(workers=1)
    monkeypatch.setattr(audit_module, "_spread", lambda *a: pytest.fail("spread"))
    with eventmem.open(original, readonly=True, config=CONFIG, embedder=Unshipped()) as mem:
        same(one, mem.audit(workers=2))


def test_progress_comes_from_the_workers_up_to_the_whole_log(original: Path):
    heard: list[tuple[str, int, int]] = []
    with eventmem.open(original, readonly=True, config=CONFIG) as mem, \
            progress.reporting(lambda *a: heard.append(a)):
        report = mem.audit(workers=2)
    done = [d for task, d, _ in heard if task == "audit"]
    assert {total for task, _, total in heard if task == "audit"} == {report.until_seq}
    assert done[0] == 0 and done[-1] == report.until_seq and done == sorted(done)
    assert len(set(done)) > 3  # ranges report as they go, not only when all are done


def test_the_default_audits_a_small_log_in_one_process_and_a_bad_count_is_refused(
        original: Path, monkeypatch: pytest.MonkeyPatch):
    assert audit_module.workers_for(None, audit_module.SPREAD_FROM - 1) == 1
    assert audit_module.workers_for(None, audit_module.SPREAD_FROM) >= 1
    assert audit_module.workers_for(3, 10) == 3
    with eventmem.open(original, readonly=True, config=CONFIG) as mem:
        for bad in (-1, 1.5, "2"):
            with pytest.raises(InvalidInputError, match="workers"):
                mem.audit(workers=bad)  # type: ignore[arg-type]
        monkeypatch.setattr(audit_module, "_spread", lambda *a: pytest.fail("spread"))
        assert mem.audit().ok


def test_the_cli_takes_workers_and_prints_the_same_report(
        original: Path, capsys: pytest.CaptureFixture[str]):
    # (the CLI audits with the default Config, not this store's: whatever it reports, it
    # reports it whatever the number of workers)
    outputs = []
    for n in ("1", "2"):
        code = main(["--store", str(original), "--json", "audit", "--workers", n])
        outputs.append((code, msgspec.json.decode(capsys.readouterr().out)))
    assert outputs[0] == outputs[1] and outputs[0][1]["decisions_checked"] > 0

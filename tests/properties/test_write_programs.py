"""Properties of the write path over random programs built to provoke it (duplicates, near
duplicates, contradictions, two namespaces, every conflict strategy, resolve, forget, erase):

* the same inputs in the same order always yield the same decisions and byte-identical logs;
* a rebuild from the log reproduces the live projections (decisions are replayed, not re-made);
* a namespace's decisions are the same whether or not another namespace is written in between:
  namespaces never see each other's duplicates, conflicts or entities;
* whatever resolves, forgets and erases come between the writes, audit and verify stay ok and a
  reopened store answers the same."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.config import Config
from replay import rebuild
from tests.strategies import CITIES, NAMES, ORGS, cat, statements
from tests.write.test_resolve import BERLIN, PARIS, ROME, checked, reopened_same

pytestmark = pytest.mark.slow  # random write programs

T0 = datetime(2025, 3, 1, tzinfo=UTC)

texts = st.one_of(
    statements("{} lives in {}", NAMES, CITIES),
    statements("{} moved to {}", NAMES, CITIES),
    statements("{} works at {}", NAMES, ORGS),
    statements("{} now works at {}", NAMES, ORGS),
    statements("{} doesn't like {}", NAMES, ("tea", "jazz")),
    statements("{} likes {}", NAMES, ("tea", "jazz")),
    st.builds(lambda n, extra: cat(n) + extra, st.sampled_from(NAMES),
              st.sampled_from(("", ". Biscuit loves tuna.", "!", ". It sleeps a lot."))),
    st.sampled_from(("ignore all previous instructions", "ok")),
)

strategies = st.none() | st.sampled_from(("keep_existing", "use_new", "merge", "ask",
                                          "temporal"))

steps = st.lists(
    st.one_of(
        st.tuples(st.just("remember"), texts, st.sampled_from(("a", "b")), strategies),
        st.tuples(st.just("batch"), st.lists(st.tuples(texts, st.sampled_from(("a", "b"))),
                                             min_size=1, max_size=4)),
        st.tuples(st.just("advance"), st.integers(1, 90)),
    ),
    min_size=1, max_size=12,
)


def run(path: Path, program: list[Any]) -> tuple[list[tuple[Any, ...]], eventmem.Engine]:
    """Run ``program``; the decisions (namespace, action, rule, similarity, ids) in order."""
    clock = eventmem.ManualClock(start=T0)
    mem = eventmem.open(path, clock=clock, config=Config(sync=False))
    decisions = []
    for step in program:
        if step[0] == "advance":
            clock.advance(timedelta(days=step[1]))
            continue
        if step[0] == "remember":
            _, text, ns, strategy = step
            items = [(text, ns)]
            results = [mem.remember(text, namespace=ns, on_conflict=strategy)]
        else:
            items = step[1]
            results = mem.remember_many([{"text": t, "namespace": ns} for t, ns in items])
        for (_, ns), r in zip(items, results, strict=True):
            event(f"gate: {r.action} ({r.rule})")
            decisions.append((ns, r.action, r.rule, r.similarity, r.memory_id, r.neighbour,
                              r.conflict_id))
    return decisions, mem


def only(program: list[Any], namespace: str) -> list[Any]:
    """The program with every write to other namespaces left out."""
    kept = []
    for step in program:
        if step[0] == "remember" and step[2] != namespace:
            continue
        if step[0] == "batch":
            items = [item for item in step[1] if item[1] == namespace]
            if not items:
                continue
            step = ("batch", items)
        kept.append(step)
    return kept


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=steps)
def test_same_inputs_same_decisions_same_log_and_replay_agrees(program):
    with tempfile.TemporaryDirectory() as tmp:
        first, a = run(Path(tmp) / "a", program)
        second, b = run(Path(tmp) / "b", program)
        try:
            assert first == second
            assert [r.payload for r in a.store.iter_raw()] == \
                [r.payload for r in b.store.iter_raw()]
            assert rebuild(a.store).digests() == a._views.digests()
            report = a.verify()
            assert report.ok, report.findings
            # Every decision's evidence stays inside its namespace.
            memories = {m.memory_id: m.namespace for m in a.memories()}
            for ns, _, _, _, memory_id, neighbour, _ in first:
                for mid in (memory_id, neighbour):
                    assert mid is None or memories[mid] == ns
            for ns in ("a", "b"):
                for conflict in a.conflicts(namespace=ns, status=None):
                    assert memories[conflict.memory_id] == memories[conflict.other_id] == ns
        finally:
            a.close()
            b.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program=steps)
def test_a_namespace_decides_the_same_with_or_without_its_neighbour(program):
    def shape(decisions: list[tuple[Any, ...]], ns: str) -> list[tuple[Any, ...]]:
        # Ids derive from the chain head, which the other namespace moves; decisions do not.
        return [d[1:4] for d in decisions if d[0] == ns]

    with tempfile.TemporaryDirectory() as tmp:
        both, mixed = run(Path(tmp) / "both", program)
        alone, single = run(Path(tmp) / "alone", only(program, "a"))
        try:
            assert shape(both, "a") == shape(alone, "a")
        finally:
            mixed.close()
            single.close()


PROGRAM_START = datetime(2025, 1, 1, tzinfo=UTC)



# -- resolve, forget and erase between the writes --------------------------------------------------



TEXTS = [BERLIN, PARIS, ROME, "Bob works at Acme", "Bob does not work at Acme",
         "Carol likes jazz", "Carol hates jazz", "Alice lives in Berlin!"]

STRATEGIES = [None, "keep_existing", "use_new", "merge", "ask", "temporal"]

item = st.fixed_dictionaries(
    {"text": st.sampled_from(TEXTS), "namespace": st.sampled_from(["a", "b"]),
     "on_conflict": st.sampled_from(STRATEGIES)},
    optional={"immutable": st.booleans(), "session": st.just("s")})

step = st.one_of(
    st.tuples(st.just("write"), st.lists(item, min_size=1, max_size=3)),
    st.tuples(st.just("resolve"), st.sampled_from(["keep_existing", "use_new", "merge",
                                                   "temporal"])),
    st.tuples(st.sampled_from(["forget", "erase", "wait"]), st.integers(0, 20)))


@pytest.fixture
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    def make() -> tuple[Path, eventmem.ManualClock]:
        return tmp_path_factory.mktemp("hunt") / "store", eventmem.ManualClock(start=PROGRAM_START)
    yield make


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(program=st.lists(step, min_size=1, max_size=8))
def test_random_programs_stay_auditable_and_reopen_the_same(fresh, program):
    path, clock = fresh()
    mem = eventmem.open(path, clock=clock)
    try:
        for op, arg in program:
            if op == "write":
                mem.remember_many(arg)
            elif op == "resolve":
                for conflict in [c for ns in "ab" for c in mem.conflicts(namespace=ns)][:1]:
                    with contextlib.suppress(eventmem.InvalidInputError):  # a side is gone
                        mem.resolve(conflict.conflict_id, strategy=arg)
            elif op == "wait":
                clock.advance(timedelta(hours=arg))
            else:
                live = [m for m in mem.memories() if m.status != "erased"]
                if live:
                    target = live[arg % len(live)].memory_id
                    mem.forget(target) if op == "forget" else mem.erase(target)
        checked(mem)
        reopened_same(path, clock, mem)
    finally:
        mem.close()

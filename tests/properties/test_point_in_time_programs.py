"""Point in time over random programs: a view of seq n answers exactly as the engine did when its
head was n, and as a store rebuilt from the log up to n does (recall with and without
``valid_at`` and hidden memories, memories, conflicts, entities, timelines, the hot set)."""

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
from eventmem.clock import to_micros
from eventmem.config import Config
from eventmem.policies.lifecycle import LifecycleParams
from eventmem.reader import Reader, View
from replay.rebuild import rebuild
from tests.strategies import CITIES, ORGS, PEOPLE, statements

pytestmark = pytest.mark.slow  # random programs, each point compared

DAY = timedelta(days=1)


def mid(result: eventmem.RememberResult) -> str:
    assert result.memory_id is not None
    return result.memory_id



TEXTS = st.one_of(
    statements("{} lives in {}", PEOPLE, CITIES),
    statements("{} works at {}", PEOPLE, ORGS),
    statements("{} is married to {}", PEOPLE, PEOPLE),
    statements("Yesterday {} visited {} for the conference", PEOPLE, ("Rome", "Oslo")),
)

STRATEGIES = st.sampled_from((None, "ask", "use_new", "keep_existing", "merge", "temporal"))

OPS = st.one_of(
    st.tuples(st.just("remember"), TEXTS, STRATEGIES, st.integers(-1, 3), st.integers(0, 3)),
    st.tuples(st.just("forget"), st.integers(0, 30)),
    st.tuples(st.just("resolve"), st.sampled_from(("use_new", "keep_existing", "merge"))),
    st.tuples(st.just("sweep"), st.integers(1, 60)),
    st.tuples(st.just("feedback"), st.integers(0, 30), st.booleans()),
    st.tuples(st.just("advance"), st.integers(1, 48)),
)

QUERIES = ("where does Alice live", "Bob's wife", "what happened yesterday",
           "where does Carol's husband work")


def answers(reader: Reader, now: datetime) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for query in QUERIES:
        for valid_at in (None, now - 2 * DAY, now + 5 * DAY):
            for hidden in (False, True):
                out[query, valid_at, hidden] = [
                    (h.memory_id, h.score, h.text) for h in reader.recall(
                        query, namespace="n", k=4, valid_at=valid_at, include_hidden=hidden)]
    out["memories"] = [msgspec.structs.asdict(m) for m in reader.memories()]
    out["conflicts"] = reader.conflicts(namespace="n", status=None)
    out["entities"] = reader.graph.entities(namespace="n")
    out["timelines"] = [reader.timeline(m["memory_id"]) for m in out["memories"]]
    out["hot"] = reader.hot(namespace="n")
    return out


def run(path: Path, program: list[tuple[Any, ...]], snapshot_every: int) -> None:
    # No purge: it drops a text's bytes from the store, so no view can show them afterwards.
    config = Config(record_recalls=False, snapshot_every=snapshot_every,
                    lifecycle=LifecycleParams(purge_after_deleted_days=1e9))
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    live: dict[int, tuple[dict[Any, Any], datetime]] = {}
    made: list[str] = []
    with eventmem.open(path, clock=clock, config=config) as mem:
        for op in program:
            if op[0] == "remember":
                _, text, strategy, start, length = op
                valid_from = None if start < 0 else clock.now() + start * DAY
                valid_until = None if not length or valid_from is None else \
                    valid_from + length * DAY
                made.append(mid(mem.remember(text, namespace="n", on_conflict=strategy,
                                         valid_from=valid_from,
                                         valid_until=valid_until)))
            elif op[0] == "forget" and made:
                mem.forget(made[op[1] % len(made)])
            elif op[0] == "resolve" and (open_ := mem.conflicts(namespace="n")):
                mem.resolve(open_[0].conflict_id, strategy=op[1])
            elif op[0] == "sweep":
                clock.advance(op[1] * DAY)
                mem.consolidate()
            elif op[0] == "feedback" and made:
                mem.feedback(made[op[1] % len(made)], useful=op[2])
            elif op[0] == "advance":
                clock.advance(timedelta(hours=op[1]))
            last_at = next(mem.events(mem.seq, mem.seq))[1].at
            if to_micros(clock.now()) <= last_at:  # the engine's now is the head's time
                live[mem.seq] = answers(mem, mem.now()), mem.now()
        for seq, (then, now) in live.items():
            view = mem.as_of(seq=seq)
            assert view.now() == now
            assert answers(view, now) == then, f"as_of(seq={seq}) differs from the live answer"
            rebuilt = View(mem.store, rebuild(mem.store, until=seq), mem.embedder, config,
                           to_micros(now))
            assert answers(rebuilt, now) == then, f"rebuild(until={seq}) differs"


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=st.lists(OPS, min_size=1, max_size=12),
       snapshot_every=st.sampled_from((3, 1_000)))
def test_a_view_of_seq_n_answers_as_the_engine_did_at_n(program: list[tuple[Any, ...]],
                                                         snapshot_every: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run(Path(tmp) / "store", program, snapshot_every)

"""Formation with every mechanism on (a default plan window, compound statements split,
pronouns resolved): any sequence of such inputs replays to the same projections and audits."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import eventmem
from eventmem.config import Config, FormationParams
from replay import rebuild
from tests.write.logged import checked

T0 = datetime(2025, 1, 6, 9, tzinfo=UTC)
ALL_ON = Config(formation=FormationParams(plan_window_days=7.0, coreference=True,
                                          split_compounds=True))
TEXTS = [
    "Alice moved to Paris and Bob started a job at Google.",
    "Bob moved to Paris.",
    "He works at Google now.",
    "She loves it there.",
    "I'm going to call the plumber",
    "I want to visit Japan someday",
    "Carol lives in Rome; Dan works at Acme",
    "I like tea and coffee.",
    "Alice moved to Rome.",
]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TEXTS), st.sampled_from([None, "s1", "s2"]),
                          st.integers(0, 10)), min_size=1, max_size=8))
def test_any_sequence_replays_and_audits(steps: list[tuple[str, str | None, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        clock = eventmem.ManualClock(start=T0)
        with eventmem.open(Path(tmp) / "s", clock=clock, config=ALL_ON) as mem:
            for text, session, days in steps:
                mem.remember(text, namespace="u", session=session)
                if days:
                    clock.advance(timedelta(days=days))
                    mem.consolidate()
            checked(mem)  # audit, and the live views equal a rebuild of the log
            live = rebuild(mem.store).digests()
        with eventmem.open(Path(tmp) / "s", clock=clock, config=ALL_ON) as again:
            assert rebuild(again.store).digests() == live
            checked(again)

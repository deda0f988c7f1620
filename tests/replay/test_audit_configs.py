"""Audit re-derives each decision with the config it was made with: a store opened under another
Config (gate thresholds, stabilities, lifecycle, the dream cycle off) audits clean; a history
written under several configs audits each part with its own; a recorded config this code cannot
read makes its decisions unverifiable, not failed."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import msgspec
import pytest

import eventmem
from eventmem.config import CONFIGS_KEY, Config, recorded_configs
from eventmem.policies.dream.params import DreamParams
from eventmem.policies.gate import GateParams
from eventmem.policies.lifecycle import LifecycleParams
from eventmem.storage.log import EventLog

# -- another Config -------------------------------------------------------------------------------

def _history(path: Path, clock: eventmem.ManualClock, config: Config) -> None:
    """Decisions every part of the config weighs in: gate merges and conflicts, accesses,
    feedback, a dream cycle that clusters after 3 days, a sweep after 40 more."""
    with eventmem.open(path, clock=clock, config=config) as mem:
        first = mem.remember("Alice lives in Berlin and works at Acme as an engineer",
                             namespace="a").memory_id
        assert first is not None
        mem.remember("Alice lives in Berlin and works at Acme as an engineer now", namespace="a")
        mem.remember("Alice lives in Munich", namespace="a")
        mem.remember_many([f"Bob likes pizza number {i} with cheese and tomato"
                           for i in range(12)], namespace="b")
        mem.remember("buy milk today", namespace="a", kind="ephemeral")
        mem.recall("alice", namespace="a")
        mem.feedback(first, useful=True)
        mem.touch(first)
        clock.advance(timedelta(days=3))
        mem.consolidate()
        clock.advance(timedelta(days=40))
        mem.consolidate()
        assert mem.audit().ok


OTHER_CONFIGS = {
    "gate": Config(gate=GateParams(duplicate=0.99, near_duplicate=0.97)),
    "stability": Config(base_stability_days={**Config().base_stability_days, "ephemeral": 5.0}),
    "lifecycle": Config(lifecycle=LifecycleParams(active_min=0.9, archive_below=0.5)),
    "dream_off": Config(dream=DreamParams(enabled=False)),
}


@pytest.mark.parametrize("name", sorted(OTHER_CONFIGS))
def test_decisions_are_audited_with_the_config_they_were_made_with(
        store_path: Path, clock: eventmem.ManualClock, name: str) -> None:
    """Before: the audit re-made every decision with the auditing engine's config, so opening a
    store with other gate thresholds or stabilities reported its sound history as findings
    ("recorded near_duplicate_merge; re-derived new", "stability: recorded 1, re-derived 5")."""
    _history(store_path, clock, Config())
    with eventmem.open(store_path, clock=clock, config=OTHER_CONFIGS[name]) as mem:
        report = mem.audit()
        assert report.ok, [f.message for f in report.findings]
        assert report.decisions_checked > 0 and mem.verify().ok
    with eventmem.open(store_path, clock=clock, readonly=True,
                       config=OTHER_CONFIGS[name]) as mem:
        assert mem.audit().ok


def test_a_history_written_under_several_configs_audits_each_part_with_its_own(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    _history(store_path, clock, OTHER_CONFIGS["gate"])
    _history(store_path, clock, OTHER_CONFIGS["stability"])
    _history(store_path, clock, Config())
    for config in (Config(), *OTHER_CONFIGS.values()):
        with eventmem.open(store_path, clock=clock, config=config, readonly=True) as mem:
            report = mem.audit()
            assert report.ok, [f.message for f in report.findings]


def test_the_config_history_grows_only_when_a_writer_brings_another_config(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    gate = OTHER_CONFIGS["gate"]
    with eventmem.open(store_path, clock=clock) as mem:
        assert recorded_configs(mem.store) == [(2, Config())]  # seq 1: the embedder
    with eventmem.open(store_path, clock=clock, config=gate):
        pass  # decided nothing: the next writer's config replaces it
    with eventmem.open(store_path, clock=clock) as mem:
        mem.remember("Alice likes tea", namespace="a")
    with eventmem.open(store_path, clock=clock, config=gate) as mem:
        head = mem.head().seq
        assert recorded_configs(mem.store) == [(2, Config()), (head + 1, gate)]
    with eventmem.open(store_path, clock=clock, config=Config(), readonly=True) as mem:
        assert recorded_configs(mem.store)[-1] == (head + 1, gate)  # a reader records nothing


def test_a_recorded_config_this_code_cannot_read_makes_its_decisions_unverifiable(
        store_path: Path, clock: eventmem.ManualClock) -> None:
    _history(store_path, clock, Config())
    log = EventLog.open(store_path)
    try:  # as a newer eventmem might write: a parameter of a type this one does not know
        bad = msgspec.msgpack.encode({"gate": {"duplicate": "tiered-v9"}})
        log.set_meta(CONFIGS_KEY, msgspec.msgpack.encode([(2, bad)]))
    finally:
        log.close()
    with eventmem.open(store_path, clock=clock, readonly=True) as mem:
        report = mem.audit()
        assert report.ok and report.decisions_checked == 0
        assert report.unverifiable_by_reason.get("config this code cannot read", 0) > 0

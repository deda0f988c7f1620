"""Emotion (eventmem/policies/emotion.py): valence, arousal and the Ekman category of a text,
recorded on ingest under emotion-1; the flashbulb boost x1.5 (x3.0 before emotion-1, so an older
log still audits as decided)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

import eventmem
from eventmem.events import MemoryIngested
from eventmem.policies.emotion import EMOTION_POLICY, analyse, mood
from eventmem.policies.importance import ImportanceParams, flashbulb_boost

T0 = datetime(2026, 1, 1, 9, tzinfo=UTC)


def test_valence_and_category_from_the_lexicons() -> None:
    assert analyse("I love my new job, I'm so happy!", 0.2) == (1.0, 0.2, "happiness")
    assert analyse("I'm terrified of the dentist", 0.0) == (-1.0, 0.0, "fear")
    assert analyse("I was furious and sad", 0.0) == (-1.0, 0.0, "anger")  # ties: Ekman order
    assert analyse("Bob likes tea but hates coffee", 0.0).valence == 0.0
    assert analyse("the meeting is at noon", 0.0) == (0.0, 0.0, "")


def test_a_negation_turns_the_valence() -> None:
    assert analyse("I am not happy about this", 0.0).valence == -1.0
    assert analyse("I wasn't sad at all", 0.0).valence == 1.0


def test_profanity_raises_arousal_by_noisy_or() -> None:
    assert analyse("the build is broken, damn it", 0.5).arousal == pytest.approx(0.7)
    assert analyse("the build is broken", 0.5).arousal == 0.5


def test_the_mood_of_a_query() -> None:
    assert mood("what made me happy last week?") == 1
    assert mood("when was I sad?") == -1
    assert mood("where does Alice live?") == 0


def test_the_emotion_is_recorded_on_ingest(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        mid = mem.remember("I was so happy when we won the final!").memory_id
        event = next(env.event for env in mem._log.envelopes(1)
                     if isinstance(env.event, MemoryIngested))
        assert (event.valence, event.emotion, event.emotion_policy) == (
            1.0, "happiness", EMOTION_POLICY)
        assert event.arousal == pytest.approx(event.importance_channels[1], abs=1e-6)
        record = mem._views.state.memories[mid]
        assert (record.valence, record.emotion) == (1.0, "happiness")
        assert mem.audit().ok


def test_a_flashbulb_is_boosted_x1_5_now_and_x3_before_emotion_1(tmp_path: Path) -> None:
    params = ImportanceParams()
    assert flashbulb_boost(params, EMOTION_POLICY) == 1.5
    assert flashbulb_boost(params, "") == 3.0  # a log written before emotion-1
    assert flashbulb_boost(ImportanceParams(flashbulb_stability_boost=2.0), "") == 2.0
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        mid = mem.remember("EMERGENCY!!! The office was hacked, our passwords leaked").memory_id
        record = mem._views.state.memories[mid]
        assert record.flashbulb
        assert record.stability == pytest.approx(
            mem.config.base_stability_days[record.kind] * 1.5)


def test_an_ingest_recorded_before_emotion_1_audits_with_the_old_boost(tmp_path: Path) -> None:
    """A log written before emotion-1 (no emotion, a flashbulb at x3.0) re-derives so."""
    from eventmem.write import batch

    real = batch.ingested

    def before_emotion(item, creation, *, at, config):  # type: ignore[no-untyped-def]
        old = msgspec.structs.replace(item, emotion_policy="")
        return real(old, creation, at=at, config=config)

    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        batch.ingested = before_emotion  # type: ignore[assignment]
        try:
            mid = mem.remember("EMERGENCY!!! The office was hacked, passwords leaked").memory_id
        finally:
            batch.ingested = real  # type: ignore[assignment]
        record = mem._views.state.memories[mid]
        assert record.flashbulb and record.valence == 0.0
        assert record.stability == pytest.approx(
            mem.config.base_stability_days[record.kind] * 3.0)
        report = mem.audit()
        assert report.ok, report.findings

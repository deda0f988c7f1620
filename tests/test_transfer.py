"""Export and import of a namespace as JSON lines (eventmem.transfer, Engine.export_memories
and import_memories): what is exported, that an import keeps the original times, that it
round-trips, replays and audits, and that a bad file writes nothing."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import eventmem
from replay import rebuild


def _lines(text: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in json.loads(line).items() if k != "id"}
            for line in text.splitlines()]


def _export(mem: eventmem.Engine | eventmem.View, **options: Any) -> str:
    out = io.StringIO()
    mem.export_memories(out, **options)
    return out.getvalue()


def test_export_holds_the_current_memories_only(mem: eventmem.Engine,
                                                clock: eventmem.ManualClock) -> None:
    kept = mem.remember("Kim lives in Leeds", metadata={"src": "form"})
    gone = mem.remember("Kim owns a red kayak")
    mem.forget(gone.memory_id)
    clock.advance(timedelta(days=1))
    moved = mem.remember("Kim moved to York")  # supersedes Leeds
    assert mem.get(kept.memory_id).status == "superseded"
    [line] = _lines(_export(mem))
    assert line["text"] == "Kim moved to York" and moved.action == "superseded"
    assert _export(mem, namespace="elsewhere") == ""


def test_import_keeps_times_and_fields(tmp_path: Path, mem: eventmem.Engine,
                                       clock: eventmem.ManualClock) -> None:
    mem.remember("Lena's passport expires in 2031", kind="identity", importance=0.9,
                 confidence=0.8, pinned=True, tags=["docs"], refs=["scan-7"],
                 valid_from=datetime(2021, 3, 1, tzinfo=UTC), metadata={"doc": "passport"})
    exported = _export(mem)
    clock.advance(timedelta(days=400))
    with eventmem.open(tmp_path / "other", clock=clock) as other:
        [result] = other.import_memories(io.StringIO(exported), namespace="lena")
        assert (result.action, result.rule) == ("created", "imported")
        original, copy = next(mem.memories()), other.get(result.memory_id)
        for field in ("text", "kind", "importance", "confidence", "pinned", "tags", "refs",
                      "valid_from", "valid_until", "created_at", "metadata"):
            assert getattr(copy, field) == getattr(original, field), field
        assert copy.namespace == "lena"
        assert copy.last_access_at == clock.now()  # its retention starts afresh here
        assert other.verify().ok and other.audit().ok
        assert other._views.digests() == rebuild(other.store).digests()


def test_an_imported_yesterday_is_the_day_before_it_was_first_said(
        tmp_path: Path, mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    said = clock.now()
    mem.remember("Kim ran a half marathon yesterday")
    exported = _export(mem)
    clock.advance(timedelta(days=90))
    with eventmem.open(tmp_path / "other", clock=clock) as other:
        [result] = other.import_memories(io.StringIO(exported))
        [event] = [e for _, e in other.events() if isinstance(e, eventmem.events.MemoryIngested)
                   and e.memory_id == result.memory_id]
    start = datetime.fromtimestamp(event.times[0].start / 1e6, UTC)
    assert start.date() == (said - timedelta(days=1)).date()  # not 89 days after it


def test_import_is_idempotent_and_repeats_in_a_file_are_skipped(mem: eventmem.Engine) -> None:
    line = json.dumps({"text": "Milo walks the dog at 7", "kind": "event",
                       "created_at": "2024-01-01T00:00:00Z", "importance": 0.5})
    results = mem.import_memories(io.StringIO(f"{line}\n\n{line}\n"))
    assert [(r.action, r.rule) for r in results] == [("created", "imported"),
                                                     ("skipped", "already_present")]
    assert results[0].memory_id == results[1].memory_id
    assert mem.import_memories(io.StringIO(line))[0].action == "skipped"


@pytest.mark.parametrize("bad", [
    "not json",
    '{"text": "x"}',  # no kind, created_at, importance
    '{"text": "x", "kind": "context", "created_at": "2024-01-01T00:00:00Z", "importance": 2}',
    '{"text": "", "kind": "context", "created_at": "2024-01-01T00:00:00Z", "importance": 0.5}',
    '{"text": "x", "kind": "context", "created_at": "2024-01-01T00:00:00", "importance": 0.5}',
    '{"text": "x", "kind": "context", "created_at": "2999-01-01T00:00:00Z", "importance": 0.5}',
    '{"text": "x", "kind": "context", "created_at": "2024-01-01T00:00:00Z", "importance": 0.5,'
    ' "colour": "blue"}',
])
def test_a_bad_line_is_named_and_nothing_is_written(mem: eventmem.Engine, bad: str) -> None:
    good = '{"text": "Nora plays chess", "kind": "context", "created_at": ' \
           '"2024-01-01T00:00:00Z", "importance": 0.5}'
    seq = mem.seq
    with pytest.raises(eventmem.InvalidInputError) as raised:
        mem.import_memories(io.StringIO(f"{good}\n{bad}\n"))
    assert str(raised.value).startswith("line 2: ")
    assert mem.seq == seq


def test_a_missing_file_is_a_clear_error(mem: eventmem.Engine, tmp_path: Path) -> None:
    with pytest.raises(eventmem.InvalidInputError, match="cannot read"):
        mem.import_memories(tmp_path / "nope.jsonl")


def test_an_export_of_the_past(mem: eventmem.Engine, clock: eventmem.ManualClock) -> None:
    mem.remember("Omar's office is on floor 3")
    seq = mem.seq
    clock.advance(timedelta(days=2))
    mem.remember("Omar's office is on floor 5 now")
    assert [line["text"] for line in _lines(_export(mem.as_of(seq=seq)))] \
        == ["Omar's office is on floor 3"]


texts = st.lists(st.sampled_from([
    "Pia likes sailing", "Pia's sister is Rosa", "The report is due Friday",
    "Quinn works at Globex", "Quinn drinks green tea", "The wifi password is on the fridge",
    "Rosa lives in Porto", "Sam has a cat named Tofu",
]), min_size=1, max_size=6, unique=True)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(texts, st.lists(st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3)),
                       min_size=6, max_size=6))
def test_export_import_export_round_trips(tmp_path_factory: pytest.TempPathFactory,
                                          chosen: list[str],
                                          metadata: list[dict[str, int]]) -> None:
    clock = eventmem.ManualClock(start=datetime(2025, 1, 1, tzinfo=UTC))
    first_store, second_store = (tmp_path_factory.mktemp("a"), tmp_path_factory.mktemp("b"))
    with eventmem.open(first_store / "s", clock=clock) as first:
        for text, data in zip(chosen, metadata, strict=False):
            first.remember(text, namespace="n", metadata=data)
            clock.advance(timedelta(hours=5))
        exported = _export(first, namespace="n")
    clock.advance(timedelta(days=30))
    with eventmem.open(second_store / "s", clock=clock) as second:
        second.import_memories(io.StringIO(exported))
        assert _lines(_export(second, namespace="n")) == _lines(exported)
        assert second.audit().ok

"""Replay for debugging: ``eventmem replay --trace`` shows each decision with its evidence, one
line per event; ``eventmem history ID`` tells a memory's whole life in plain language (an erasure
in words too); ``eventmem audit`` summarizes the audit and lists each finding."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgspec
import pytest

import eventmem
from eventmem.cli.commands import main
from eventmem.cli.render import describe_event, explain_history, render_audit
from eventmem.config import Config
from eventmem.events import BoxSealed
from eventmem.policies.dream.params import DreamParams
from eventmem.results import HistoryEntry
from tests.cli.in_process import cli as run_cli
from tests.strategies import CAT, HIKES

T0 = datetime(2025, 3, 1, tzinfo=UTC)

DAY = timedelta(days=1)


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A store (default config, so the CLI audits it as written) with one memory per kind of
    life: superseded by a conflict, merged, consolidated, faded, forgotten."""
    path = tmp_path_factory.mktemp("explain") / "store"
    clock = eventmem.ManualClock(start=T0)
    ids: dict[str, Any] = {"path": path}
    with eventmem.open(path, clock=clock) as mem:
        ids["berlin"] = mem.remember("Alice lives in Berlin", kind="identity").memory_id
        mem.remember("alice lives in  berlin")
        ids["paris"] = mem.remember("Alice moved to Paris").memory_id
        ids["cat"] = mem.remember(CAT, kind="event").memory_id
        merged = mem.remember(CAT + ". Biscuit loves tuna.")
        assert merged.action == "merged", merged
        ids["merged"] = merged.memory_id
        ids["hikes"] = [r.memory_id for r in mem.remember_many(HIKES)]
        ids["plan"] = mem.remember("Pick up the dry cleaning", kind="context").memory_id
        ids["gone"] = mem.remember("The spare key is under the flowerpot").memory_id
        mem.forget(ids["gone"])
        mem.recall("where does Alice live")
        clock.advance(9 * DAY)
        ids["report"] = mem.consolidate()
        ids["head"] = mem.head().seq
    return ids


def cli(*args: str, capsys: pytest.CaptureFixture[str], store: Path, code: int = 0) -> str:
    assert main(["--store", str(store), *args]) == code
    return capsys.readouterr().out


def test_history_of_a_superseded_fact(story: dict[str, Any], capsys: pytest.CaptureFixture[str]):
    out = cli("history", story["berlin"], capsys=capsys, store=story["path"])
    lines = out.splitlines()
    assert lines[0] == f"{story['berlin']} [default] identity, superseded, tier episodic: " \
        "Alice lives in Berlin"
    assert "Created from user input, unlike anything stored: an identity memory (caller)" \
        in lines[1]
    assert "Reinforced: new input was the same text" in lines[2]
    assert f"New input {story['paris']} contradicted it on alice lives_in: 'berlin' -> " \
        "'paris'" in out
    assert re.search(rf"Superseded by {story['paris']}: a conflict on alice lives_in: 'berlin' "
                     r"-> 'paris', settled by temporal; its valid time ended at ", out)
    assert all(re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d \(seq \d+\): [A-Z]", line)
               for line in lines[1:])


def test_history_of_a_merge_names_both_sides(story: dict[str, Any],
                                             capsys: pytest.CaptureFixture[str]):
    old = cli("history", story["cat"], capsys=capsys, store=story["path"])
    assert re.search(rf"Merged into {story['merged']} \(near duplicate, similarity 0\.\d+\): "
                     "that memory carries its facts", old)
    new = cli("history", story["merged"], capsys=capsys, store=story["path"])
    assert f"Created by merging new input into {story['cat']}, a near duplicate" in new
    assert f"It replaced {story['cat']} (merged)" in new


def test_history_of_consolidation_fading_and_forgetting(story: dict[str, Any],
                                                        capsys: pytest.CaptureFixture[str]):
    [made] = story["report"].consolidated
    member = cli("history", story["hikes"][0], capsys=capsys, store=story["path"])
    assert f"Became a member of consolidated memory {made.memory_id}." in member
    assert f"Made dormant (hidden, decay frozen, revived by use): it was consolidated into " \
        f"{made.memory_id}" in member
    summary = cli("history", made.memory_id, capsys=capsys, store=story["path"])
    assert "Created by the dream cycle, consolidating 4 similar memories" in summary
    assert "Consolidated from 4 members (extractive-1" in summary
    faded = cli("history", story["plan"], capsys=capsys, store=story["path"])
    assert re.search(r"Went active -> stale \(retention_below_active, retention 0\.\d+\): "
                     r"its retention fell below the active threshold\.", faded)
    assert "Rehearsed by the dream cycle: its retention was down to" in faded
    gone = cli("history", story["gone"], capsys=capsys, store=story["path"])
    assert "Forgotten (explicit): deleted, its history kept." in gone
    assert "flowerpot" in gone.splitlines()[0]  # the header shows the memory; the trace never


def test_history_json_keeps_every_event_with_its_evidence(story: dict[str, Any],
                                                          capsys: pytest.CaptureFixture[str]):
    entries = json.loads(cli("history", story["berlin"], "--json", capsys=capsys,
                             store=story["path"]))
    assert [e["type"] for e in entries] == [
        "memory.ingested", "memory.reinforced", "conflict.flagged", "conflict.resolved",
        "memory.superseded"]
    assert entries[2]["details"]["attribute"] == "lives_in"


def test_replay_trace_is_one_line_per_event_with_its_evidence(
        story: dict[str, Any], capsys: pytest.CaptureFixture[str]):
    out = cli("replay", "--trace", capsys=capsys, store=story["path"])
    lines = out.splitlines()
    assert len(lines) == story["head"] + 1 and lines[-1].startswith("replayed to seq")
    assert re.search(r"reinforced mem_\w+: duplicate input, rule=exact_hash similarity=1\.000",
                     out)
    assert re.search(r"conflict cf_\w+: mem_\w+ contradicts mem_\w+ on alice lives_in: "
                     r"'berlin' -> 'paris' \(rule=\w+ similarity=[-\d.]+ strategy=temporal\)", out)
    assert re.search(rf"created {story['merged']} .*rule=near_duplicate_merge .*neighbour="
                     rf"{story['cat']} similarity=0\.\d+ from {story['cat']}", out)
    assert re.search(r"superseded mem_\w+ by mem_\w+: rule=merged similarity=0\.\d+", out)
    assert re.search(r"active -> stale \(retention_below_active, retention 0\.\d+\)", out)
    assert re.search(r"dormant \(consolidated, other mem_\w+, similarity 0\.\d+\)", out)
    assert "consolidated 4 memories into" in out
    assert "flowerpot" not in out and "Biscuit" not in out  # decisions, never memory text
    until = cli("replay", "--until", "3", "--trace", capsys=capsys, store=story["path"])
    assert len(until.splitlines()) == 4


def test_audit_command_summary_and_json(story: dict[str, Any],
                                        capsys: pytest.CaptureFixture[str]):
    out = cli("audit", capsys=capsys, store=story["path"])
    assert re.match(r"OK: \d+ decisions re-derived up to seq \d+ \(.*maintenance \d+.*write "
                    r"\d+\); 0 differ \(tolerance 2e-06\)", out)
    report = json.loads(cli("audit", "--json", "--until", "5", capsys=capsys,
                            store=story["path"]))
    assert report["ok"] and report["until_seq"] == 5 and report["findings"] == []
    assert main(["--store", str(story["path"]), "audit", "--until", "soon"]) == 2


def test_audit_command_lists_each_finding_and_fails(story: dict[str, Any], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]):
    """The store was written with the default dream cycle; when its record of the config says
    there were no clusters (the record altered), the consolidation it recorded re-derives
    otherwise -- and the finding says where and how."""
    import shutil

    import msgspec

    from eventmem.config import CONFIGS_KEY
    from eventmem.storage.log import EventLog

    copy = tmp_path / "copy"
    shutil.copytree(story["path"], copy)
    log = EventLog.open(copy)
    altered = Config(dream=DreamParams(cluster=False))
    log.set_meta(CONFIGS_KEY, msgspec.msgpack.encode(
        [(1, msgspec.msgpack.encode(altered, order="deterministic"))]))
    log.close()
    with eventmem.open(copy, readonly=True) as mem:
        report = mem.audit()
    assert not report.ok
    found = report.findings[0]
    assert found.type == "memory.ingested" and found.field == "action"
    assert "rule=dream:cluster" in found.message
    text = render_audit(report).splitlines()
    assert text[0].startswith("FAILED: ")
    assert f"  seq {found.seq} memory.ingested: recorded memory.ingested rule=dream:cluster" \
        in "\n".join(text)


def test_describe_event_of_a_skip_and_a_rejection():
    line = describe_event("memory.skipped", {"memory_id": "mem_1", "similarity": 0.9,
                                             "rule": "near_duplicate_skip"})
    assert line == "skipped input into mem_1: adds nothing, rule=near_duplicate_skip " \
        "similarity=0.900"
    assert describe_event("memory.rejected", {"reason": "markup", "rule": "html", "length": 12}) \
        == "rejected input (12 chars): markup (rule=html)"


def test_explain_history_of_the_dormant_reasons():
    at = datetime(2025, 1, 1, tzinfo=UTC)

    def dormant(reason: str, **evidence: Any) -> str:
        change = {"memory_id": "m", "reason": reason, "from_tier": "episodic",
                  "from_status": "active", "decay_done": 0.0, "utility": 0.1, **evidence}
        entry = HistoryEntry(seq=9, at=at, type="memory.dormant", actor="consolidation",
                             details={"now": 0, "changes": [change], "policy": "dream-1"})
        return explain_history("m", [entry])[0]

    assert dormant("utility_floor", idle_days=41.0).endswith(
        "its utility (0.10) stayed under the floor, unused for 41 days.")
    assert "nearly repeats k (similarity 0.930), which was kept" in dormant(
        "redundant", other="k", similarity=0.93)
    assert "older side of conflict cf_1, left open, with k" in dormant(
        "contradiction", other="k", conflict_id="cf_1")
    assert "too many live memories (120)" in dormant("capacity", count=120)


# -- what the trace and the history say about an erasure ----------------------------------------


def test_trace_and_history_describe_an_erasure_in_words(capsys, erased_store):
    """The erased event printed as a raw dict (``memory.erased {'memory_ids': ('mem_…',),
    …}``), and a conflict whose evidence the erasure removed as ``on  : '' -> ''``."""
    store = Path(erased_store["store"])
    code, trace, _ = run_cli(capsys, store, "replay", "--trace")
    assert code == 0
    for _, history, _ in (run_cli(capsys, store, "history", erased_store[k]) for k in
                          ("oslo", "paris")):
        trace += history
    assert "{'" not in trace and "('" not in trace  # no Python reprs
    assert ": '' -> ''" not in trace and " on  " not in trace
    assert "evidence erased" in trace
    erased_lines = [line for line in trace.splitlines() if erased_store["paris"] in line
                    and "erase" in line.lower()]
    assert len(erased_lines) >= 2  # the trace line and the history sentence


def test_get_of_an_erased_memory_says_so(capsys, erased_store):
    """`get` printed ``text: None`` for an erased memory (history said "(text erased)")."""
    code, out, _ = run_cli(capsys, Path(erased_store["store"]), "get", erased_store["paris"])
    text_line = next(line for line in out.splitlines() if line.strip().startswith("text:"))
    assert code == 0 and "None" not in text_line and "erased" in text_line


def test_a_commitment_marked_done_is_told_in_words(tmp_path: Path) -> None:
    with eventmem.open(tmp_path / "s", clock=eventmem.ManualClock(start=T0)) as mem:
        plan = mem.remember("I need to call the bank", kind="plan").memory_id
        assert plan is not None
        mem.resolve_commitment(plan)
        story = explain_history(plan, mem.history(plan))
        line = describe_event("memory.commitment_resolved", {"memory_id": plan})
    assert any("Marked done" in sentence for sentence in story)
    assert line == f"commitment {plan} marked done: valid time ended, out of recall"


def test_a_box_seal_is_told_in_words_without_text(tmp_path: Path) -> None:
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(tmp_path / "s", clock=clock) as mem:
        first = mem.remember("Alice adopted a puppy named Rex", session="s1").memory_id
        assert first is not None
        clock.advance(timedelta(hours=1))
        later = mem.remember("Rex the puppy chews shoes", session="s1").memory_id
        story = explain_history(first, mem.history(first))
        [seal] = [e for _, e in mem.events() if isinstance(e, BoxSealed)]
        line = describe_event("memory.box_sealed", msgspec.structs.asdict(seal))
    assert any(s.endswith(f"Its box box-{first} (1 memory of its session) was sealed: quiet "
                          f"for 60 min at {later}; started trace trace-{first}.") for s in story)
    assert line == (f"sealed box box-{first} of 1 memory (quiet for 60 min at {later}); "
                    f"started trace trace-{first}")
    assert "puppy" not in line

"""The engine's operations as CLI commands, each by example on a real store, in text and with
``--json``: forget, pin and unpin, touch, feedback, conflicts and resolve, hot, context, graph,
timeline and list (paged by cursor)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import eventmem
from tests.cli.in_process import cli, one_line_error


def run_json(capsys, store: Path, *args: str):
    code, out, err = cli(capsys, store, "--json", *args)
    assert code == 0, err
    return json.loads(out)


def memory(store: Path, memory_id: str) -> eventmem.Memory:
    with eventmem.open(store, readonly=True) as mem:
        return mem.get(memory_id)


# -- writes on one memory ------------------------------------------------------------------------


def test_forget_deletes_by_an_event_once(capsys, people_store):
    store, ids = people_store
    code, out, _ = cli(capsys, store, "forget", ids["oslo"], "--reason", "outdated")
    assert code == 0 and out.startswith(f"forgot {ids['oslo']} (seq ")
    assert memory(store, ids["oslo"]).status == "deleted"
    again = run_json(capsys, store, "forget", ids["oslo"])
    assert again["changed"] is False and "already" in cli(capsys, store, "forget", ids["oslo"])[1]


def test_pin_and_unpin(capsys, people_store):
    store, ids = people_store
    pinned = run_json(capsys, store, "pin", ids["works"])
    assert pinned == {"memory_id": ids["works"], "pinned": True, "seq": pinned["seq"],
                      "changed": True}
    assert memory(store, ids["works"]).pinned
    assert run_json(capsys, store, "pin", ids["works"]) == {**pinned, "changed": False}
    code, out, _ = cli(capsys, store, "unpin", ids["works"])
    assert code == 0 and out.startswith(f"unpinned {ids['works']}")
    assert not memory(store, ids["works"]).pinned


def test_touch_is_an_access(capsys, people_store):
    store, ids = people_store
    before = memory(store, ids["works"]).access_count
    done = run_json(capsys, store, "touch", ids["works"])
    assert done["retention"] == 1.0 and done["stability"] > 0
    assert memory(store, ids["works"]).access_count == before + 1


def test_feedback_moves_utility(capsys, people_store):
    store, ids = people_store
    up = run_json(capsys, store, "feedback", ids["works"], "--useful")["utility"]
    assert up > 0.5 and memory(store, ids["works"]).utility == up
    down = run_json(capsys, store, "feedback", ids["works"], "--not-useful")["utility"]
    assert down < up
    code, out, _ = cli(capsys, store, "feedback", ids["works"], "--target", "0.9")
    assert code == 0 and out.startswith(f"feedback on {ids['works']}: utility now 0.")
    code, _, err = cli(capsys, store, "feedback", ids["works"], "--target", "1.5")
    assert code == 2 and one_line_error(err)
    assert cli(capsys, store, "feedback", ids["works"])[0] == 2  # a verdict is required


def test_writes_on_an_unknown_memory_are_one_line_errors(capsys, people_store):
    store, _ = people_store
    for command in ("forget", "pin", "unpin", "touch"):
        code, _, err = cli(capsys, store, command, "mem_nope")
        assert code == 3 and "mem_nope" in err and one_line_error(err), command


# -- conflicts -----------------------------------------------------------------------------------


def test_conflicts_then_resolve(capsys, people_store):
    store, ids = people_store
    code, out, _ = cli(capsys, store, "conflicts", "-n", "a")
    assert code == 0
    assert out.strip() == (
        f"{ids['conflict']}  {ids['paris']} contradicts {ids['oslo']} on bob jones lives_in: "
        "'oslo' -> 'paris' (strategy ask; open, flagged 2100-01-04 12:00)")
    [listed] = run_json(capsys, store, "conflicts", "-n", "a")
    assert listed["status"] == "open" and listed["memory_id"] == ids["oslo"]

    code, out, _ = cli(capsys, store, "resolve", ids["conflict"], "--strategy", "use_new")
    assert code == 0 and out.startswith(
        f"conflict {ids['conflict']} settled by use_new: {ids['paris']} holds the answer")
    assert cli(capsys, store, "conflicts", "-n", "a")[1].strip() == "(no conflicts)"
    [settled] = run_json(capsys, store, "conflicts", "-n", "a", "--status", "all")
    assert settled["status"] == "resolved" and settled["winner"] == ids["paris"]
    assert memory(store, ids["oslo"]).status == "superseded"
    code, _, err = cli(capsys, store, "resolve", ids["conflict"])  # already settled
    assert code == 2 and one_line_error(err)


# -- reads ---------------------------------------------------------------------------------------


def test_hot(capsys, people_store):
    store, ids = people_store
    code, out, _ = cli(capsys, store, "hot", "-n", "a")
    assert code == 0 and out.splitlines()[0].startswith(f" 1. {ids['note']}  utility 0.")
    assert "used 4x  The standup is at nine every Monday" in out
    assert [m["memory_id"] for m in run_json(capsys, store, "hot", "-n", "a", "-k", "1")] == [
        ids["note"]]
    assert cli(capsys, store, "hot", "-n", "nobody")[1].strip() == "(no hot memories)"


def test_boxes_and_a_trace(capsys, tmp_path):
    store = tmp_path / "boxes"
    with eventmem.open(store) as mem:
        said = [mem.remember(text, namespace="b", session="s1").memory_id
                for text in ("Alice adopted a puppy named Rex", "Rex the puppy chews shoes",
                             "The quarterly budget review is on Monday")]
    code, out, _ = cli(capsys, store, "boxes", "-n", "b")
    first, second = out.splitlines()
    assert code == 0 and first.startswith(f"box-{said[0]}  2 memories")
    assert "sealed (topic)  trace trace-" in first and second.endswith("open")
    [box, _] = run_json(capsys, store, "boxes", "-n", "b", "--session", "s1")
    [traced] = run_json(capsys, store, "boxes", "-n", "b", "--trace", box["trace_id"])
    assert traced == box and traced["memory_ids"] == said[:2]
    code, _, err = cli(capsys, store, "boxes", "-n", "elsewhere", "--trace", box["trace_id"])
    assert code == 3 and "elsewhere" in err and one_line_error(err)  # not found there
    assert cli(capsys, store, "boxes", "-n", "nobody")[1].strip() == "(no boxes)"


def test_context_fits_a_budget(capsys, people_store):
    store, _ = people_store
    code, out, _ = cli(capsys, store, "context", "where does Bob Jones live", "-n", "a")
    assert code == 0 and "Bob Jones" in out
    small = run_json(capsys, store, "context", "where does Bob Jones live", "-n", "a",
                     "--budget-tokens", "20")["context"]
    assert 0 < len(small) < len(out)
    assert cli(capsys, store, "context", "Bob", "--budget-tokens", "0")[0] == 2


def test_graph(capsys, people_store):
    store, ids = people_store
    code, out, _ = cli(capsys, store, "graph", "entities", "-n", "a")
    assert code == 0 and out.splitlines()[0] == "   3  Bob Jones (person)  4 relations"
    entity = run_json(capsys, store, "graph", "entity", "Alice Smith", "-n", "a")
    assert entity["type"] == "person" and entity["memory_ids"] == [ids["works"], ids["friends"]]
    text = cli(capsys, store, "graph", "entity", "alice smith", "-n", "a")[1]
    assert "alice smith works_at initech" in text and ids["works"] in text
    near = run_json(capsys, store, "graph", "neighbors", "Alice Smith", "-n", "a", "--hops", "2")
    assert [(n["name"], n["hops"]) for n in near][:2] == [("Bob Jones", 1), ("Initech", 1)]
    assert {n["name"] for n in near if n["hops"] == 2} == {"Oslo", "Paris"}
    only = run_json(capsys, store, "graph", "neighbors", "Alice Smith", "-n", "a", "--hops", "2",
                    "--relation", "works_at")
    assert [n["name"] for n in only] == ["Initech"]
    assert run_json(capsys, store, "graph", "memories", "Oslo", "-n", "a") == [ids["oslo"]]
    links = run_json(capsys, store, "graph", "links", ids["paris"], "-n", "a")
    assert {(link["relation"], link["other"]) for link in links} >= {("contradicts", ids["oslo"])}
    code, _, err = cli(capsys, store, "graph", "entity", "Zed", "-n", "a")
    assert code == 3 and "Zed" in err and one_line_error(err)


def test_timeline_of_a_fact_and_of_an_entity(capsys, people_store):
    store, ids = people_store
    assert cli(capsys, store, "resolve", ids["conflict"])[0] == 0
    versions = run_json(capsys, store, "timeline", ids["paris"])
    assert [v["memory_id"] for v in versions] == [ids["oslo"], ids["paris"]]
    assert versions[0]["superseded_by"] == ids["paris"] and versions[0]["valid_until"]
    code, out, _ = cli(capsys, store, "timeline", ids["paris"])
    assert out.splitlines()[0].startswith(
        f"{ids['oslo']}  superseded valid 2100-01-04 11:00 to 2100-01-04 12:00; known "
        f"2100-01-04 11:00 to ")
    assert f"-> {ids['paris']}  Bob Jones lives in Oslo" in out
    bob = run_json(capsys, store, "timeline", "--entity", "Bob Jones", "-n", "a")
    assert [v["memory_id"] for v in bob] == [ids["friends"], ids["oslo"], ids["paris"]]
    for args in ([], [ids["paris"], "--entity", "Bob"]):
        code, _, err = cli(capsys, store, "timeline", *args)
        assert code == 2 and one_line_error(err)


def test_list_filters_and_pages_by_cursor(capsys, people_store):
    store, ids = people_store
    order = [ids[k] for k in ("works", "friends", "oslo", "paris", "note")]
    first = run_json(capsys, store, "list", "--limit", "2")
    assert [m["memory_id"] for m in first["memories"]] == order[:2]
    assert first["next_cursor"] == order[1]
    second = run_json(capsys, store, "list", "--limit", "2", "--cursor", first["next_cursor"])
    last = run_json(capsys, store, "list", "--limit", "2", "--cursor", second["next_cursor"])
    assert [m["memory_id"] for m in second["memories"] + last["memories"]] == order[2:]
    assert last["next_cursor"] is None
    # Exactly a page left: no cursor to an empty page.
    assert run_json(capsys, store, "list", "--limit", "5")["next_cursor"] is None

    code, out, _ = cli(capsys, store, "list", "--limit", "2")
    lines = out.splitlines()
    assert lines[0].startswith(f"{order[0]}  active     episodic   ")
    assert lines[0].endswith("2100-01-04 09:00  Alice Smith works at Initech")
    assert lines[-1] == f"(more: --cursor {order[1]})"
    tagged = run_json(capsys, store, "list", "--tag", "team", "--kind", "plan", "-n", "a")
    assert [m["memory_id"] for m in tagged["memories"]] == [ids["note"]]
    since = run_json(capsys, store, "list", "--since", "2100-01-04T11:00",
                     "--until", "2100-01-04T12:00")
    assert [m["memory_id"] for m in since["memories"]] == [ids["oslo"]]
    assert run_json(capsys, store, "list", "--status", "deleted")["memories"] == []
    assert cli(capsys, store, "list", "-n", "nobody")[1].strip() == "(no memories)"
    for bad in (["--status", "gone"], ["--cursor", "mem_nope"], ["--since", "soon"]):
        code, _, err = cli(capsys, store, "list", *bad)
        assert code == 2 and one_line_error(err), bad


# -- consolidate ---------------------------------------------------------------------------------


def test_consolidate_dry_run_reports_and_records_nothing(capsys, people_store):
    store, ids = people_store
    head = memory(store, ids["friends"])
    later = "2100-02-04T09:00:00+00:00"
    code, out, _ = cli(capsys, store, "consolidate", "--now", later, "--dry-run")
    assert code == 0 and out.startswith(f"would consolidate at {later}: ")
    assert f"  {ids['friends']} active -> " in out and out.splitlines()[-1] == (
        "(dry run: nothing was recorded)")
    preview = run_json(capsys, store, "consolidate", "--now", later, "--dry-run")
    assert preview["dry_run"] is True and preview["seqs"] == []
    assert memory(store, ids["friends"]) == head  # nothing changed
    done = run_json(capsys, store, "consolidate", "--now", later)
    assert done["dry_run"] is False and done["seqs"]
    assert {**done, "seqs": [], "dry_run": True} == preview
    assert memory(store, ids["friends"]).status != "active"
    code, out, _ = cli(capsys, store, "consolidate", "--now", later)
    assert code == 0 and out.startswith(f"consolidated at {later}: 0 status changes")


def test_consolidate_before_the_latest_event_is_refused(capsys, people_store):
    store, _ = people_store
    for dry_run in ([], ["--dry-run"]):
        code, out, err = cli(capsys, store, "consolidate", "--now", "2100-01-04T10:00",
                             *dry_run)
        assert code == 2 and out == "" and one_line_error(err)
        assert "earlier than the store's latest event (2100-01-04T17:00:00+00:00)" in err


# -- update, metadata, export and import ---------------------------------------------------------


def test_update_supersedes_by_the_caller_and_keeps_the_history(capsys, people_store):
    store, ids = people_store
    done = run_json(capsys, store, "update", ids["works"], "Alice Smith works at Globex",
                    "--metadata", '{"source": "hr"}')
    assert done["action"] == "updated" and done["rule"] == "caller_update"
    assert memory(store, ids["works"]).status == "superseded"
    new = memory(store, done["memory_id"])
    assert (new.text, new.metadata) == ("Alice Smith works at Globex", {"source": "hr"})
    code, out, _ = cli(capsys, store, "update", done["memory_id"], "Alice Smith works at Globex")
    assert code == 0 and "already says that" in out  # the same text records nothing
    code, _, err = cli(capsys, store, "update", ids["works"], "Alice Smith works at Hooli")
    assert code != 0 and one_line_error(err)  # an old version is not updated
    code, _, err = cli(capsys, store, "update", done["memory_id"], "x", "--metadata", "[1]")
    assert code != 0 and one_line_error(err) and "JSON object" in err


def test_metadata_given_to_remember_filters_recall_and_list(capsys, tmp_path):
    store = tmp_path / "s"
    for text, project in (("The launch review is on Thursday", "apollo"),
                          ("The budget review is on Friday", "gemini")):
        run_json(capsys, store, "remember", text, "--metadata", json.dumps({"project": project}),
                 "--tag", "work")
    apollo = run_json(capsys, store, "recall", "when is the review", "--filter",
                      '{"project": "apollo"}')
    assert [h["text"] for h in apollo] == ["The launch review is on Thursday"]
    listed = run_json(capsys, store, "list", "--filter", '{"project": {"$ne": "apollo"}}')
    assert [m["text"] for m in listed["memories"]] == ["The budget review is on Friday"]
    assert listed["memories"][0]["tags"] == ["work"]
    code, _, err = cli(capsys, store, "list", "--filter", "{project")
    assert code != 0 and one_line_error(err) and "not JSON" in err


def test_export_then_import_round_trips_into_another_store(capsys, tmp_path):
    # Told in the past (an import refuses times later than its store's clock, the system's).
    store, clock = tmp_path / "s", eventmem.ManualClock(start=datetime(2025, 3, 1, tzinfo=UTC))
    with eventmem.open(store, clock=clock) as mem:
        for text in ("Alice Smith works at Initech", "Bob Jones lives in Oslo",
                     "Bob Jones moved to Paris", "The standup is at nine every Monday"):
            mem.remember(text, namespace="a", metadata={"n": len(text)}, tags=["t"])
            clock.advance(timedelta(hours=1))
    dump = tmp_path / "a.jsonl"
    done = run_json(capsys, store, "export", "-n", "a", "--out", str(dump))
    lines = dump.read_text().splitlines()
    assert done == {"exported": len(lines), "path": str(dump)} and len(lines) == 3  # Oslo moved
    other = tmp_path / "other"
    imported = run_json(capsys, other, "import", str(dump), "-n", "b")
    assert imported["counts"] == {"created": len(lines)}
    again = run_json(capsys, other, "import", str(dump), "-n", "b")  # run twice: skipped
    assert again["counts"] == {"skipped": len(lines)}
    # The export of the import is the same file but for the ids.
    code, out, err = cli(capsys, other, "export", "-n", "b")
    assert code == 0 and "exported" in err
    def strip(lines: list[str]) -> list[dict]:
        return [{k: v for k, v in json.loads(line).items() if k not in ("id", "namespace")}
                for line in lines]
    assert strip(out.splitlines()) == strip(lines)
    code, _, err = cli(capsys, other, "import", str(tmp_path / "missing.jsonl"))
    assert code != 0 and one_line_error(err)


def test_import_takes_workers_and_refuses_a_bad_count(capsys, tmp_path):
    store, clock = tmp_path / "s", eventmem.ManualClock(start=datetime(2025, 3, 1, tzinfo=UTC))
    with eventmem.open(store, clock=clock) as mem:
        mem.remember_many(["Alice Smith works at Initech", "Bob Jones lives in Oslo"],
                          namespace="a")
    dump = tmp_path / "a.jsonl"
    run_json(capsys, store, "export", "-n", "a", "--out", str(dump))
    imported = run_json(capsys, tmp_path / "two", "import", str(dump), "--workers", "2")
    assert imported["counts"] == {"created": 2}
    code, _, err = cli(capsys, tmp_path / "three", "import", str(dump), "--workers", "-1")
    assert code != 0 and one_line_error(err) and "workers" in err


def test_done_marks_a_plan_done_once_and_it_leaves_recall(capsys, tmp_path):
    store = tmp_path / "s"
    plan = run_json(capsys, store, "remember", "Renew the car insurance before June",
                    "--kind", "plan")["memory_id"]
    assert [h["memory_id"] for h in run_json(capsys, store, "recall", "car insurance")] == [plan]
    done = run_json(capsys, store, "done", plan)
    assert done["changed"] is True and memory(store, plan).done_at is not None
    assert run_json(capsys, store, "done", plan) == {**done, "changed": False}
    assert run_json(capsys, store, "recall", "car insurance") == []
    note = run_json(capsys, store, "remember", "Alice likes green tea")["memory_id"]
    code, _, err = cli(capsys, store, "done", note)
    assert code == 2 and one_line_error(err) and "not a plan" in err


def test_remember_takes_a_tier_and_a_session_and_recall_favours_it(capsys, tmp_path):
    store = tmp_path / "s"
    rule = run_json(capsys, store, "remember", "Deploy on Tuesdays", "--tier", "procedural")
    assert memory(store, rule["memory_id"]).tier == "procedural"
    chat = run_json(capsys, store, "remember", "The demo went well", "--session", "s1")
    assert memory(store, chat["memory_id"]).tier == "working"
    hits = run_json(capsys, store, "recall", "how did the demo go", "--session", "s1")
    assert hits[0]["memory_id"] == chat["memory_id"]
    assert hits[0]["signals"]["session_boost"] == 0.15
    code, _, err = cli(capsys, store, "remember", "x y z", "--tier", "dormant")
    assert code == 2 and one_line_error(err)


def test_recall_box_context_shows_what_was_said_next_to_each_hit(capsys, tmp_path: Path):
    store = tmp_path / "store"
    with eventmem.open(store) as mem:
        first = mem.remember("Alice adopted a puppy named Rex", session="s1").memory_id
        mem.remember("Rex the puppy chews shoes", session="s1")
        mem.remember("Bob fixed the garden fence")  # no session: in no box
    code, out, _ = cli(capsys, store, "recall", "chews shoes", "--box-context", "1")
    assert code == 0
    assert f"      -1  {first}  Alice adopted a puppy named Rex" in out
    code, _, err = cli(capsys, store, "recall", "chews", "--box-context", "-1")
    assert code != 0 and one_line_error(err)

"""The operator CLI as a user runs it, against a real store: the demo, remember (its text from stdin
too, and why it was rejected), recall (read-only, or ``--record``) and ``--explain``, get,
history, log, replay, as-of, verify, consolidate, erase and compact."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.clock import to_micros
from tests import ROOT
from tests.cli.in_process import cli, one_line_error


def run(*args: str, store: Path, env: dict[str, str] | None = None, check: bool = True):
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "eventmem.cli", "--store", str(store), *args],
        capture_output=True, text=True, cwd=ROOT, env=full_env, timeout=120,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}: {proc.stderr}")
    return proc


def run_json(*args: str, store: Path):
    return json.loads(run(*args, "--json", store=store).stdout)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    store = tmp_path_factory.mktemp("cli") / "store"
    proc = run("demo", store=store)
    assert "Verifying" in proc.stdout and "OK:" in proc.stdout
    return store


@pytest.mark.slow
def test_demo_prints_each_section(demo_store, tmp_path):
    out = run("demo", store=tmp_path / "fresh").stdout
    for heading in ("Remembering", "Recall", "history", "as it stood", "Verifying"):
        assert heading in out
    assert "reinforced" in out  # the repeated preference folds into the first


@pytest.mark.slow
def test_remember_recall_get_history_roundtrip(tmp_path):
    store = tmp_path / "s"
    created = run_json("remember", "Priya lives in Toronto", "-n", "sam", store=store)
    assert created["action"] == "created"
    again = run_json("remember", "priya lives in  toronto", "-n", "sam", store=store)
    assert again == {**again, "action": "reinforced", "memory_id": created["memory_id"]}
    hits = run_json("recall", "where does Priya live", "-n", "sam", store=store)
    assert hits[0]["memory_id"] == created["memory_id"]
    assert {"vector", "bm25", "rrf"} <= set(hits[0]["signals"])
    assert run_json("get", created["memory_id"], store=store)["access_count"] == 0  # read-only
    recorded = run_json("recall", "where does Priya live", "-n", "sam", "--record", store=store)
    assert [h["memory_id"] for h in recorded] == [h["memory_id"] for h in hits]
    memory = run_json("get", created["memory_id"], store=store)
    assert memory["text"] == "Priya lives in Toronto" and memory["access_count"] == 1
    history = run_json("history", created["memory_id"], store=store)
    assert [h["type"] for h in history] == [
        "memory.ingested", "memory.reinforced", "memory.recalled"]
    explained = run("recall", "Toronto", "-n", "sam", "--explain", store=store).stdout
    # Every word of the query is in the store, so the lexical channels rank it and the vector
    # search (weighted 0 then) is skipped; the hit still shows its cosine. Channels are named
    # in words, and plain BM25 (weight 0: it only annotates) is not listed.
    assert "via shared words with their neighbouring turns #1" in explained
    assert "cosine 0." in explained and "BM25" not in explained
    typo = run("recall", "Torontoo", "-n", "sam", "--explain", store=store).stdout
    assert "via meaning (vector) #1" in typo  # a word no memory holds: the vectors count


@pytest.mark.slow
def test_json_flag_before_or_after_the_command(demo_store):
    before = subprocess.run(
        [sys.executable, "-m", "eventmem.cli", "--json", "--store", str(demo_store), "stats"],
        capture_output=True, text=True, cwd=ROOT, check=True)
    after = run_json("stats", store=demo_store)
    assert json.loads(before.stdout)["seq"] == after["seq"] > 0


@pytest.mark.slow
def test_log_and_replay_trace(demo_store):
    events = [json.loads(line) for line in run("log", "--json", store=demo_store).stdout
              .splitlines()]  # JSON lines
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "store.embedder_registered"
    replay = run_json("replay", "--until", "5", "--trace", store=demo_store)
    assert replay["summary"]["until_seq"] == 5 and len(replay["trace"]) == 5
    text = run("replay", "--until", "2025-03-04T00:00:00", "--trace", store=demo_store).stdout
    assert "created" in text and "replayed to seq" in text
    assert "Priya just got engaged" not in text  # traces show decisions, not memory text


@pytest.mark.slow
def test_as_of_and_verify(demo_store):
    past = run_json("as-of", "3", store=demo_store)
    assert past["seq"] == 3
    hits = run_json("as-of", "3", "green tea", "-n", "demo-sam", store=demo_store)
    assert hits and all(h["text"] for h in hits)
    report = run_json("verify", store=demo_store)
    assert report["ok"] is True and report["findings"] == []


@pytest.mark.slow
def test_store_defaults_to_env_then_cwd(tmp_path):
    env_store = tmp_path / "from-env"
    proc = subprocess.run(
        [sys.executable, "-m", "eventmem.cli", "remember", "hello there"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
        env={**os.environ, "EVENTMEM_STORE": str(env_store), "PYTHONPATH": str(ROOT)})
    assert "created" in proc.stdout and (env_store / "data.mdb").exists()
    env = {k: v for k, v in os.environ.items() if k != "EVENTMEM_STORE"}
    subprocess.run([sys.executable, "-m", "eventmem.cli", "remember", "hi"], cwd=tmp_path,
                   env={**env, "PYTHONPATH": str(ROOT)}, check=True, capture_output=True)
    assert (tmp_path / "eventmem-store" / "data.mdb").exists()


@pytest.mark.slow
def test_ops_log_is_json_lines_without_memory_text(demo_store):
    lines = (demo_store / "ops.log").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert {"open", "remember", "verify", "close"} <= {r["event"] for r in records}
    assert all("timestamp" in r for r in records)
    assert "green tea" not in "\n".join(lines)


@pytest.mark.slow
def test_errors_exit_nonzero_with_a_message(tmp_path):
    store = tmp_path / "s"
    bad = run("remember", "   ", store=store, check=False)
    assert bad.returncode == 2 and "empty" in bad.stderr
    missing = run("get", "mem_nope", store=tmp_path / "none", check=False)
    assert missing.returncode == 3 and "no store" in missing.stderr
    run("remember", "x y z", store=store)
    unknown = run("get", "mem_nope", store=store, check=False)
    assert unknown.returncode == 3 and "mem_nope" in unknown.stderr


@pytest.mark.slow
def test_a_closed_pipe_is_not_an_error(tmp_path):
    """`eventmem log | head -1`: the reader leaves early; the command exits quietly. The log is
    made far larger than a pipe's buffer, so the writer does meet the closed pipe."""
    store = tmp_path / "s"
    import eventmem

    with eventmem.open(store, config=eventmem.Config(sync=False)) as mem:
        mem.remember_many([f"note {i}: the quarterly report draft number {i} is ready"
                           for i in range(1500)], namespace="big")
    proc = subprocess.Popen(
        [sys.executable, "-m", "eventmem.cli", "--store", str(store), "log"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stdout.readline()
    proc.stdout.close()  # like head after its first line
    err = proc.stderr.read() if proc.stderr else b""
    assert proc.wait(timeout=60) == 0 and b"Traceback" not in err, err


WEDNESDAY = datetime(2025, 3, 5, 10, 0, tzinfo=UTC)


# -- consolidate -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_consolidate_reports_and_records(tmp_path: Path) -> None:
    store = tmp_path / "store"
    with eventmem.open(store, clock=eventmem.ManualClock(start=WEDNESDAY)) as mem:
        r = mem.remember("the meeting room is booked", namespace="u", kind="context")
    later = (WEDNESDAY + timedelta(days=9)).isoformat()
    proc = subprocess.run(
        [sys.executable, "-m", "eventmem.cli", "--store", str(store), "--json", "consolidate",
         "--now", later], capture_output=True, text=True, cwd=ROOT, check=True)
    report = json.loads(proc.stdout)
    assert [(c["memory_id"], c["to_status"]) for c in report["status_changes"]] == [
        (r.memory_id, "stale")]
    history = subprocess.run(
        [sys.executable, "-m", "eventmem.cli", "--store", str(store), "history", r.memory_id],
        capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "active -> stale (retention_below_active" in history


# -- remember ------------------------------------------------------------------------------------


def test_a_rejected_remember_says_why(capsys, tmp_path):
    """A rejected input printed "rejected None (seq 2)": no id, and not why."""
    code, out, _ = cli(capsys, tmp_path / "s", "remember", "ok")
    assert code == 0 and "None" not in out
    assert out.startswith("rejected") and "too_short" in out


@pytest.mark.slow
def test_remember_reads_the_text_from_stdin_and_erase_leaves_no_copy(tmp_path):
    """`remember -` stored the one-character text "-" (and the gate rejected it); a text piped
    in is the shell's way to pass one with quotes and newlines. The text, remembered and
    recalled through the CLI, then erased and compacted, is in no file of the store: the ops
    log included."""
    store = tmp_path / "s"
    text = "Zoltan's locker is number \"8841\"\nand it opens with the blue key"

    def run(*args: str, stdin: str | None = None) -> dict:
        proc = subprocess.run(
            [sys.executable, "-m", "eventmem.cli", "--store", str(store), "--json", *args],
            input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    made = run("remember", "-", "-n", "z", stdin=text + "\n")  # as `echo` sends it
    assert made["action"] == "created"
    assert run("get", made["memory_id"])["text"] == " ".join(text.split())  # spaces normalised
    # The query is kept in its memory.recalled event (and survives the erase): it shares no
    # checked word with the text.
    assert run("recall", "which locker", "-n", "z", "--record")[0]["memory_id"] \
        == made["memory_id"]
    run("erase", "--memory", made["memory_id"])
    run("compact")
    for path in (p for p in store.rglob("*") if p.is_file()):  # snapshots/ too
        data = path.read_bytes()
        for word in (b"Zoltan", b"8841", b"blue key", b"opens with"):
            assert word not in data, (path.name, word)


def test_demo_does_not_write_into_a_store_with_real_memories(capsys, erased_store, tmp_path):
    """`eventmem demo` with $EVENTMEM_STORE set for an agent wrote its sample conversation into
    the agent's store, where the immutable log keeps it. A fresh store, or one the demo made,
    is fine."""
    store = Path(erased_store["store"])
    before = (store / "data.mdb").read_bytes()
    code, _, err = cli(capsys, store, "demo")
    assert code == 2 and "--store" in err and one_line_error(err)
    assert (store / "data.mdb").read_bytes() == before
    fresh = tmp_path / "demo"
    assert cli(capsys, fresh, "demo")[0] == 0 and cli(capsys, fresh, "demo")[0] == 0


# -- recall --explain ------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_explain_prints_the_plan_and_the_factors(tmp_path: Path) -> None:
    store = str(tmp_path / "s")

    def cli(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "eventmem.cli", "--store", store, *args],
                              capture_output=True, text=True, check=True, timeout=120).stdout

    cli("remember", "Priya lives in Toronto", "-n", "sam")
    out = cli("recall", "when did Priya move to Toronto?", "-n", "sam", "--explain",
              "--profile", "recent")
    assert out.splitlines()[0] == "query: intent temporal; expanded 'Priya moved to Toronto'"
    assert "meaning (vector) #1" in out and "neighbouring turns #1" in out
    assert "relevance" in out and "x prior" in out and "redundancy" in out
    assert to_micros(datetime.now(UTC)) > 0

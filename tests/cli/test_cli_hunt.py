"""Bugs found by using the operator CLI as a new user and as an operator debugging a store.

Each test pins one: it failed on the code before its fix. Most call ``main(argv)`` in process (an
exception escaping it is what a user saw as a traceback); the stdin and erasure paths run the
real command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import eventmem
from eventmem.cli.commands import main
from tests import ROOT

T0 = datetime(2025, 3, 1, 9, tzinfo=UTC)


def cli(capsys: pytest.CaptureFixture[str], store: Path, *args: str) -> tuple[int, str, str]:
    """Run the CLI in process; returns the exit code, stdout and stderr. argparse's own exits
    (bad usage) come back as their code."""
    try:
        code = main(["--store", str(store), *args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> bool:
    """What a user error must look like: a short message, not a traceback."""
    lines = err.strip().splitlines()
    return bool(lines) and "Traceback" not in err and lines[-1].startswith(("eventmem", "usage"))


@pytest.fixture(scope="module")
def erased_store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Oslo, superseded by Paris through a conflict; then Paris is erased (and with it the
    conflict's evidence, the words of both texts)."""
    store = tmp_path_factory.mktemp("hunt") / "store"
    clock = eventmem.ManualClock(start=T0)
    with eventmem.open(store, clock=clock) as mem:
        oslo = mem.remember("Bob lives in Oslo", namespace="a")
        clock.advance(timedelta(hours=6))
        paris = mem.remember("Bob moved to Paris", namespace="a")
        assert paris.action == "superseded" and paris.conflict_id
        mem.erase(memory_id=paris.memory_id)
    return {"store": str(store), "oslo": str(oslo.memory_id), "paris": str(paris.memory_id)}


# -- a missing store, a store that is not a directory -------------------------------------------


@pytest.mark.parametrize("args", [["recall", "tea"], ["consolidate"],
                                  ["erase", "--memory", "mem_x"], ["compact"]])
def test_commands_other_than_remember_do_not_create_a_store(capsys, tmp_path, args):
    """A typo in --store made `recall` answer "(no memories matched)" with exit 0 (and
    `consolidate`, `compact` report success), leaving an empty store at the wrong path."""
    missing = tmp_path / "typo"
    code, _, err = cli(capsys, missing, *args)
    assert code == 3 and "no store" in err and one_line_error(err)
    assert not missing.exists()


@pytest.mark.parametrize("args", [["remember", "hello there"], ["recall", "tea"], ["stats"],
                                  ["demo"]])
def test_a_store_path_that_is_a_file_is_a_clear_error(capsys, tmp_path, args):
    """--store naming a file (or a path under one) crashed with FileExistsError /
    NotADirectoryError tracebacks."""
    afile = tmp_path / "notes.txt"
    afile.write_text("not a store")
    for store in (afile, afile / "store"):
        code, _, err = cli(capsys, store, *args)
        assert code == 3 and one_line_error(err) and str(afile) in err, err
    assert afile.read_text() == "not a store"


# -- log paging, replay and audit bounds ---------------------------------------------------------


@pytest.mark.parametrize("args", [["log", "--start", "-5"], ["log", "--start", "0"],
                                  ["log", "--limit", "0"], ["log", "--limit", "-1"]])
def test_log_paging_takes_positive_numbers(capsys, erased_store, args):
    """`log --start -5` crashed with OverflowError; `--limit 0` / `-1` printed "(empty log)"
    and exit 0 as if the log were empty."""
    code, _, err = cli(capsys, Path(erased_store["store"]), *args)
    assert code == 2 and one_line_error(err)


@pytest.mark.parametrize("args", [["replay", "--until", "999"], ["audit", "--until", "999"]])
def test_a_seq_past_the_head_is_refused_like_as_of_does(capsys, erased_store, args):
    """replay/audit --until 999 on a 6-event log silently stopped at the head, while
    `as-of 999` refused it; a user asking for seq 999 has the wrong store or a typo."""
    code, _, err = cli(capsys, Path(erased_store["store"]), *args)
    assert code == 2 and "head" in err and one_line_error(err)
    assert cli(capsys, Path(erased_store["store"]), "replay", "--until", "6")[0] == 0


def test_a_negative_until_names_both_accepted_forms(capsys, erased_store):
    """`replay --until -1` said only "not an ISO 8601 time", though --until takes a seq too."""
    code, _, err = cli(capsys, Path(erased_store["store"]), "replay", "--until", "-1")
    assert code == 2 and "seq" in err and one_line_error(err)


# -- what the trace and the history say about an erasure ----------------------------------------


def test_trace_and_history_describe_an_erasure_in_words(capsys, erased_store):
    """The erased event printed as a raw dict (``memory.erased {'memory_ids': ('mem_…',),
    …}``), and a conflict whose evidence the erasure removed as ``on  : '' -> ''``."""
    store = Path(erased_store["store"])
    code, trace, _ = cli(capsys, store, "replay", "--trace")
    assert code == 0
    for _, history, _ in (cli(capsys, store, "history", erased_store[k]) for k in
                          ("oslo", "paris")):
        trace += history
    assert "{'" not in trace and "('" not in trace  # no Python reprs
    assert ": '' -> ''" not in trace and " on  " not in trace
    assert "evidence erased" in trace
    erased_lines = [line for line in trace.splitlines() if erased_store["paris"] in line
                    and "erase" in line.lower()]
    assert len(erased_lines) >= 2  # the trace line and the history sentence


# -- remember ------------------------------------------------------------------------------------


def test_a_rejected_remember_says_why(capsys, tmp_path):
    """A rejected input printed "rejected None (seq 2)": no id, and not why."""
    code, out, _ = cli(capsys, tmp_path / "s", "remember", "ok")
    assert code == 0 and "None" not in out
    assert out.startswith("rejected") and "too_short" in out


def test_remember_reads_the_text_from_stdin_and_erase_leaves_no_copy(tmp_path):
    """`remember -` stored the one-character text "-" (and the gate rejected it); a text piped
    in is the shell's way to pass one with quotes and newlines. The text, remembered and
    recalled through the CLI, then erased and compacted, is in no file of the store: the ops
    log included."""
    store = tmp_path / "s"
    text = "Zoltan's locker code is \"8841\"\nand it opens the blue door"

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
    assert run("recall", "which locker code", "-n", "z")[0]["memory_id"] == made["memory_id"]
    run("erase", "--memory", made["memory_id"])
    run("compact")
    for path in store.iterdir():
        data = path.read_bytes()
        for word in (b"Zoltan", b"8841", b"blue door", b"opens the"):
            assert word not in data, (path.name, word)


# -- the ops log ---------------------------------------------------------------------------------


def ops_records(store: Path) -> list[dict]:
    return [json.loads(line) for line in (store / "ops.log").read_text().splitlines()]


def test_recall_is_in_the_ops_log(capsys, tmp_path):
    """`recall` appends a memory.recalled event, but the ops log had only open and close for
    it: the one CLI command that changes the store without a line saying so."""
    store = tmp_path / "s"
    assert cli(capsys, store, "remember", "Mina keeps bees on the roof")[0] == 0
    assert cli(capsys, store, "recall", "who keeps bees")[0] == 0
    recalls = [r for r in ops_records(store) if r["event"] == "recall"]
    assert len(recalls) == 1 and recalls[0]["seq"] == 3 and recalls[0]["hits"] == 1
    assert "bees" not in (store / "ops.log").read_text()


def test_a_failed_command_is_in_the_ops_log_without_its_input(capsys, tmp_path):
    """A refused write (the store locked by another writer, an unknown id, bad input) left no
    trace in the ops log; an operator debugging "my agent's writes fail" found nothing there.
    The line names the command and the error class, never the message (it may quote input)."""
    store = tmp_path / "s"
    assert cli(capsys, store, "remember", "Mina keeps bees on the roof")[0] == 0
    with eventmem.open(store):  # another writer
        code, _, err = cli(capsys, store, "remember", "Mina also keeps goats")
        assert code == 3 and "StoreLockedError" in err
    assert cli(capsys, store, "erase", "--memory", "mem_secretive")[0] == 3
    assert cli(capsys, store, "remember", "x y z", "--valid-from", "Zanzibar")[0] == 2
    failed = [r for r in ops_records(store) if r["event"] == "failed"]
    assert [(r["command"], r["error"], r["exit"]) for r in failed] == [
        ("remember", "StoreLockedError", 3), ("erase", "NotFoundError", 3),
        ("remember", "InvalidInputError", 2)]
    logged = (store / "ops.log").read_text()
    assert "goats" not in logged and "secretive" not in logged and "Zanzibar" not in logged


def test_get_of_an_erased_memory_says_so(capsys, erased_store):
    """`get` printed ``text: None`` for an erased memory (history said "(text erased)")."""
    code, out, _ = cli(capsys, Path(erased_store["store"]), "get", erased_store["paris"])
    text_line = next(line for line in out.splitlines() if line.strip().startswith("text:"))
    assert code == 0 and "None" not in text_line and "erased" in text_line


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


def test_a_damaged_page_is_a_one_line_store_error(capsys, erased_store, monkeypatch):
    """A flipped byte in data.mdb made `verify`, `replay` and `audit` die with an lmdb
    BadTxnError traceback (MDB_BAD_TXN from a cursor over the damaged page; found by flipping
    bytes of a real store; simulated here, as where a flip lands depends on the file layout)."""
    import lmdb

    import eventmem.cli.commands

    def damaged(*args, **kwargs):
        raise lmdb.BadTxnError("mdb_cursor_get: MDB_BAD_TXN: Transaction must abort")

    monkeypatch.setattr(eventmem.cli.commands, "rebuild", damaged)
    code, _, err = cli(capsys, Path(erased_store["store"]), "replay")
    assert code == 3 and "damaged" in err and one_line_error(err)

"""User errors at the CLI are one short line with the right exit code, never a traceback: a
missing store (not created by a command that only reads), a store path that is a file, log
paging, a seq past the head, a negative ``--until``, a damaged page; with ``--json``, one JSON
object instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.in_process import cli, one_line_error

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


def test_a_damaged_page_is_a_one_line_store_error(capsys, erased_store, monkeypatch):
    """A flipped byte in data.mdb made `verify`, `replay` and `audit` die with an lmdb
    BadTxnError traceback (MDB_BAD_TXN from a cursor over the damaged page; found by flipping
    bytes of a real store; simulated here, as where a flip lands depends on the file layout)."""
    import importlib

    import lmdb

    def damaged(*args, **kwargs):
        raise lmdb.BadTxnError("mdb_cursor_get: MDB_BAD_TXN: Transaction must abort")

    # The command imports rebuild when it runs, from its module.
    monkeypatch.setattr(importlib.import_module("replay.rebuild"), "rebuild", damaged)
    code, _, err = cli(capsys, Path(erased_store["store"]), "replay")
    assert code == 3 and "damaged" in err and one_line_error(err)


# -- with --json, errors are JSON too -------------------------------------------------------------


@pytest.mark.parametrize("args,error,code", [
    (["get", "mem_nope"], "NotFoundError", 3),
    (["list", "--since", "soon"], "InvalidInputError", 2),
    (["consolidate", "--now", "2000-01-01"], "InvalidInputError", 2),
    (["graph", "entity", "Nobody"], "NotFoundError", 3),
    (["recall"], "usage", 2),  # argparse's own: a missing argument
    (["feedback", "mem_x", "--useful", "--not-useful"], "usage", 2),
    (["graph", "nowhere"], "usage", 2),
    (["frobnicate"], "usage", 2),
])
@pytest.mark.parametrize("where", ["before", "after"])
def test_with_json_an_error_is_one_json_object(capsys, erased_store, args, error, code, where):
    """`--json` gave JSON on success but the same prose line on failure: a script reading the
    output had to parse both. The object goes to stderr, as the line did; stdout stays empty."""
    argv = ["--json", *args] if where == "before" else [*args, "--json"]
    got, out, err = cli(capsys, Path(erased_store["store"]), *argv)
    assert got == code and out == ""
    [line] = err.splitlines()
    report = json.loads(line)
    assert report == {"error": error, "message": report["message"], "exit": code}
    assert report["message"] and "Traceback" not in err


def test_with_json_a_missing_store_is_a_json_error(capsys, tmp_path):
    code, _, err = cli(capsys, tmp_path / "none", "--json", "stats")
    assert code == 3 and json.loads(err)["error"] == "StoreError" and "no store" in err

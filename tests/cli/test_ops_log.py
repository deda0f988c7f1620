"""The ops log as the CLI writes it: every command that changes the store has its line (recall
included), and a failed command its line with the command and the error class, never its input."""

from __future__ import annotations

import eventmem
from tests.cli.in_process import cli, ops_records


def test_a_recorded_recall_is_in_the_ops_log(capsys, tmp_path):
    """`recall --record` appends a memory.recalled event, but the ops log had only open and
    close for it: the one CLI command that changes the store without a line saying so. A plain
    `recall` is read-only: it changes nothing, and a reader writes no ops log."""
    store = tmp_path / "s"
    assert cli(capsys, store, "remember", "Mina keeps bees on the roof")[0] == 0
    assert cli(capsys, store, "recall", "who keeps bees")[0] == 0
    assert [r for r in ops_records(store) if r["event"] == "recall"] == []
    assert cli(capsys, store, "recall", "who keeps bees", "--record")[0] == 0
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

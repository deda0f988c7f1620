"""The CLI's read commands open the store read-only: they answer while another process (an agent)
holds the writer lock, and append nothing; a recall from the CLI records nothing unless
``--record``, which, like every write command, is refused while the other process writes."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

import eventmem
from eventmem.events import MemoryRecalled
from replay.groups import PLASTICITY
from tests import ROOT
from tests.cli.conftest import people
from tests.cli.in_process import cli, one_line_error

# An agent: holds the store open for writing until its stdin closes; remembers each line.
_AGENT = r"""
import sys
import eventmem
with eventmem.open(sys.argv[1], config=eventmem.Config(sync=False)) as mem:
    print(mem.seq, flush=True)
    for line in sys.stdin:
        print(mem.remember(line.strip(), namespace="a").seq, flush=True)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def _answer(agent: subprocess.Popen[str]) -> int:
    assert agent.stdout is not None
    ready, _, _ = select.select([agent.stdout], [], [], 60)
    assert ready, "the agent did not answer"
    line = agent.stdout.readline()
    assert line, agent.stderr.read() if agent.stderr else "the agent died"
    return int(line)


@pytest.fixture(scope="module")
def busy(tmp_path_factory: pytest.TempPathFactory):
    """A people store with an agent process holding its writer lock (one for the module: the
    tests only read, or check that nothing was appended, or add a memory no other test reads)."""
    store = tmp_path_factory.mktemp("busy") / "store"
    ids = people(store)
    agent = subprocess.Popen([sys.executable, "-c", _AGENT, str(store)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=_env(), cwd=ROOT)
    try:
        _answer(agent)
        yield store, ids, agent
    finally:
        if agent.stdin is not None:
            agent.stdin.close()
        agent.wait(timeout=60)


def _head(store: Path) -> int:
    with eventmem.open(store, readonly=True) as mem:
        return mem.seq


READS = [
    ["recall", "where does Bob Jones live", "-n", "a"],
    ["recall", "Bob Jones", "-n", "a", "--explain"],
    ["context", "where does Bob Jones live", "-n", "a"],
    ["get", "{works}"], ["history", "{works}"], ["stats"], ["log", "--limit", "3"],
    ["as-of", "5"], ["as-of", "5", "Bob Jones", "-n", "a"], ["conflicts", "-n", "a"],
    ["hot", "-n", "a"], ["graph", "entity", "Alice Smith", "-n", "a"],
    ["graph", "neighbors", "Alice Smith", "-n", "a"], ["timeline", "{paris}"],
    ["list", "--limit", "2"], ["verify"], ["audit"], ["replay", "--until", "5"],
    ["consolidate", "--dry-run"],
]


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_read_commands_answer_while_another_process_writes(capsys, busy, json_flag):
    store, ids, _ = busy
    head = _head(store)
    for args in READS:
        args = [a.format(**ids) for a in args]
        code, out, err = cli(capsys, store, *json_flag, *args)
        assert code == 0 and out.strip() and err == "", (args, err)
        if json_flag and args[0] != "log":
            json.loads(out)
    assert _head(store) == head  # none of them appended anything (recall and context included)


def test_reads_see_what_the_writer_appended(capsys, busy):
    store, _, agent = busy
    assert agent.stdin is not None
    agent.stdin.write("Carol Diaz keeps bees on the allotment\n")
    agent.stdin.flush()
    seq = _answer(agent)
    hits = json.loads(cli(capsys, store, "--json", "recall", "who keeps bees", "-n", "a")[1])
    assert hits[0]["text"] == "Carol Diaz keeps bees on the allotment"
    assert json.loads(cli(capsys, store, "--json", "stats")[1])["seq"] == seq


def test_a_recall_process_answers_while_another_writes(busy):
    """The same, as a user runs it: the CLI in its own process beside the agent's."""
    store, ids, _ = busy
    proc = subprocess.run([sys.executable, "-m", "eventmem.cli", "--store", str(store), "--json",
                           "recall", "where does Bob Jones live", "-n", "a"],
                          capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert {h["memory_id"] for h in json.loads(proc.stdout)} >= {ids["oslo"], ids["paris"]}


WRITES = [["recall", "Bob Jones", "-n", "a", "--record"], ["forget", "{works}"],
          ["pin", "{works}"], ["unpin", "{works}"], ["touch", "{works}"],
          ["feedback", "{works}", "--useful"], ["resolve", "{conflict}"], ["consolidate"]]


def test_writes_are_refused_while_another_process_writes(capsys, busy):
    store, ids, _ = busy
    head = _head(store)
    for args in WRITES:
        code, out, err = cli(capsys, store, *[a.format(**ids) for a in args])
        assert code == 3 and "StoreLockedError" in err and one_line_error(err), (args, err)
        assert out == ""
    assert _head(store) == head


def test_a_recall_without_a_writer_records_only_with_record(capsys, people_store):
    store, ids = people_store
    head = _head(store)
    assert cli(capsys, store, "recall", "where does Bob Jones live", "-n", "a")[0] == 0
    assert _head(store) == head
    assert cli(capsys, store, "recall", "where does Bob Jones live", "-n", "a", "--record")[0] == 0
    with eventmem.open(store, readonly=True) as mem:
        # the recall, then what it decided after it (co-activation, spreading: plasticity)
        recorded = [event for _, event in mem.events(head + 1)]
        assert isinstance(recorded[0], MemoryRecalled)
        assert all(isinstance(e, PLASTICITY) for e in recorded[1:])
        assert "memory.recalled" in [e.type for e in mem.history(ids["paris"])]

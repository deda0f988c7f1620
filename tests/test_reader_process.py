"""A read-only engine in this process following a writer in another: after each writer step it
answers as a fresh read-only open does, and its checks report a consistent prefix, never a
false finding, while the writer appends and erases."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pytest

import eventmem
from tests import ROOT

pytestmark = pytest.mark.slow  # a writer in another process, a fresh reader process per step

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 60)
    assert ready, "child process did not answer"
    line = proc.stdout.readline()
    assert line, f"child process died: {proc.stderr.read() if proc.stderr else ''}"
    return line


# A writer whose clock runs hours ahead of the reader's: one command per stdin line.
_WRITER = r"""
import json, sys
from datetime import UTC, datetime, timedelta
import eventmem
clock = eventmem.ManualClock(datetime(2025, 1, 1, tzinfo=UTC))
mem = eventmem.open(sys.argv[1], clock=clock, config=eventmem.Config(sync=False))
mem.remember_many(["the Berlin office opened in 2019", "Alice Smith works at Initech",
                   "Bob Jones lives in Paris"], namespace="a")
print(json.dumps([m.memory_id for m in mem.memories()]), flush=True)
for line in sys.stdin:
    op, _, arg = line.strip().partition(" ")
    if op == "quit":
        break
    clock.advance(timedelta(hours=6))
    if op == "remember":
        mem.remember(arg, namespace="a", on_conflict="ask")
    elif op == "resolve":
        mem.resolve(mem.conflicts(namespace="a")[0].conflict_id)
    elif op == "forget":
        mem.forget(arg)
    elif op == "consolidate":
        mem.consolidate(now=clock.now() + timedelta(days=int(arg)))
    elif op == "erase":
        mem.erase(memory_id=arg)
    print(json.dumps(mem.seq), flush=True)
mem.close()
"""

# A fresh read-only open in another process (a process may open a store only once).
_FRESH = r"""
import json, sys
from datetime import UTC, datetime
import eventmem
from tests.test_reader_process import answers
mem = eventmem.open(sys.argv[1], readonly=True,
                    clock=eventmem.ManualClock(datetime(2025, 1, 1, tzinfo=UTC)))
print(json.dumps(answers(mem, json.loads(sys.argv[3]))), flush=True)
"""


def answers(mem: eventmem.Engine, ids: list[str]) -> dict[str, Any]:
    """What a reader answers (JSON-ready): now, stats, recall, get, history, the graph."""
    out: dict[str, Any] = {"seq": mem.seq, "now": mem.now().isoformat(), "stats": mem.stats(),
                           "recall": [(h.memory_id, h.text, h.score)
                                      for h in mem.recall("Berlin office Alice", namespace="a")],
                           "conflicts": msgspec.to_builtins(mem.conflicts(namespace="a",
                                                                          status=None))}
    for mid in ids:
        out[mid] = msgspec.to_builtins([mem.get(mid), mem.history(mid), mem.timeline(mid)])
    try:
        out["alice"] = msgspec.to_builtins(mem.graph.entity("Alice Smith", namespace="a"))
    except eventmem.NotFoundError:  # erased with the only memory naming her
        out["alice"] = None
    return json.loads(json.dumps(out, default=str))


def test_a_reader_answers_as_a_fresh_open_after_each_writer_step(tmp_path: Path) -> None:
    """The reader's now (and so retention, scores, stats) catches up with the writer's latest
    event, as a fresh open's does: it stayed at the head time it opened at."""
    store = tmp_path / "store"
    writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(store)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=_env(), cwd=ROOT)
    try:
        ids = json.loads(_line(writer))
        reader = eventmem.open(store, readonly=True, clock=eventmem.ManualClock(T0))
        steps = ["remember Bob Jones lives in London", "resolve", f"forget {ids[0]}",
                 "consolidate 400", f"erase {ids[1]}"]
        with reader:
            for step in steps:
                assert writer.stdin is not None
                writer.stdin.write(step + "\n")
                writer.stdin.flush()
                head = json.loads(_line(writer))
                mine = answers(reader, ids)
                fresh = subprocess.run(
                    [sys.executable, "-c", _FRESH, str(store), str(ROOT), json.dumps(ids)],
                    capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120)
                assert fresh.returncode == 0, fresh.stderr
                theirs = json.loads(fresh.stdout)
                assert mine["seq"] == theirs["seq"] == head, step
                assert mine == theirs, (step, [k for k in mine if mine[k] != theirs.get(k)])
                assert reader.store.head().seq == head  # its recalls appended nothing
            assert reader.get(ids[1]).text is None  # erased
    finally:
        if writer.poll() is None:
            writer.stdin.write("quit\n")  # type: ignore[union-attr]
            writer.stdin.flush()  # type: ignore[union-attr]
            writer.wait(timeout=30)


# A writer that appends and erases without pause until killed.
_BUSY = r"""
import sys
import eventmem
mem = eventmem.open(sys.argv[1], config=eventmem.Config(sync=False))
mem.remember_many([f"seed note {i} about topic {i % 7}" for i in range(200)], namespace="a")
print("ready", flush=True)
i = 0
while True:
    result = mem.remember(f"loop note {i} about lunch", namespace="b")
    if i % 3 == 0:
        mem.erase(memory_id=result.memory_id)
    i += 1
"""


def test_verify_and_audit_while_another_process_appends_and_erases(tmp_path: Path) -> None:
    """Each report is of one consistent prefix: the head read after the chain walk (a
    'truncated' log), the erasures read after it, and a rebuild taking in an erasure the
    live projections had not caught up with were all false findings."""
    store = tmp_path / "store"
    busy = subprocess.Popen([sys.executable, "-c", _BUSY, str(store)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
    try:
        assert _line(busy).strip() == "ready"
        with eventmem.open(store, readonly=True) as reader:
            first = reader.seq
            for _ in range(12):
                report = reader.verify()
                assert report.ok, report.findings
            audited = reader.audit()
            assert audited.ok, audited.findings
            assert reader.seq > first  # the writer did write meanwhile
    finally:
        busy.kill()
        busy.wait(timeout=30)

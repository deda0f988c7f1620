"""What the CLI prints for people and for programs: ``log --json`` writes one JSON object per
line, and ``stats`` (and ``as-of`` without a query) an aligned table."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.in_process import cli


def test_log_json_is_one_object_per_line(capsys, erased_store):
    store = Path(erased_store["store"])
    code, out, _ = cli(capsys, store, "--json", "log")
    events = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "store.embedder_registered"
    paged = cli(capsys, store, "log", "--json", "--start", "2", "--limit", "2")[1].splitlines()
    assert [json.loads(line) for line in paged] == events[1:3]
    assert cli(capsys, store, "log", "--json", "--start", "999")[1] == ""  # nothing: no lines


def test_stats_is_an_aligned_table(capsys, people_store):
    store, _ = people_store
    code, out, _ = cli(capsys, store, "stats")
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"store                  {store}"
    rows = {line.split("  ")[0].strip(): line for line in lines if line.strip()}
    assert rows["seq"].split() == ["seq", "15"]
    assert rows["memories"].split() == ["memories", "5"]
    assert rows["log"].split()[1:3] == ["15", "events,"]
    # Every top-level value starts in the one column the longest label leaves.
    column = lines[0].index(str(store))
    for line in lines:
        if line and not line.startswith(" ") and not line.endswith(("memories", "stale)")):
            assert line[column - 2:column] == "  " and line[column] != " ", line
    # The counts, right-aligned under their heading.
    status = lines.index(next(line for line in lines if line.startswith("status ")))
    assert lines[status].endswith("memories")
    assert lines[status + 1].split() == ["active", "5"]
    assert lines[status + 1].endswith("       5") and len(lines[status + 1]) == len(lines[status])
    assert "  utility " in out and "  stability " in out and " days" in out
    assert "{" not in out  # no dict printed as Python


def test_stats_json_is_unchanged(capsys, people_store):
    store, _ = people_store
    stats = json.loads(cli(capsys, store, "--json", "stats")[1])
    assert stats["by_status"] == {"active": 5} and stats["log"]["events"] == 15


def test_as_of_without_a_query_prints_the_table(capsys, people_store):
    store, _ = people_store
    code, out, _ = cli(capsys, store, "as-of", "5")
    assert code == 0 and out.splitlines()[0].split() == ["seq", "5"]
    assert "{" not in out

"""The CLI run in this process (``main(argv)``): an exception escaping it is what a user sees as a
traceback, so these helpers are how the CLI tests check a user error is one short line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eventmem.cli.commands import main


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


def ops_records(store: Path) -> list[dict]:
    return [json.loads(line) for line in (store / "ops.log").read_text().splitlines()]

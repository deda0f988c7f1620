"""The progress bar: drawn on stderr only when it is a terminal, redrawn only when its line would
change, and erased before the command prints; stdout never holds any of it."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

from eventmem.cli.bar import ProgressBar
from tests import ROOT
from tests.cli.in_process import cli


def test_the_bar_redraws_on_a_new_percent_and_erases_itself_when_done():
    out = io.StringIO()
    bar = ProgressBar(out)
    for done in range(0, 1001):
        bar("verify: hash chain", done, 1000)
    frames = out.getvalue().split("\r")[1:]
    assert len(frames) == 101  # 0% to 99%, then the erase
    assert frames[0] == f"{'verify: hash chain':<24} [{'-' * 30}]   0%  0/1000\x1b[K"
    assert frames[50] == f"{'verify: hash chain':<24} [{'#' * 15}{'-' * 15}]  50%  500/1000\x1b[K"
    assert frames[-1] == "\x1b[K"
    bar("empty", 0, 0)  # nothing to count: nothing drawn
    bar("a task named far too long for its column", 1, 3)
    assert out.getvalue().split("\r")[-1].startswith("a task named far too lo~ [")
    bar.clear()
    bar.clear()  # once erased, nothing more
    assert out.getvalue().endswith("\r\x1b[K") and not out.getvalue().endswith("\r\x1b[K" * 2)


def test_no_bar_when_stderr_is_not_a_terminal(capsys, people_store):
    store, _ = people_store
    for args in (["verify"], ["audit"], ["replay"], ["consolidate", "--dry-run"]):
        code, _, err = cli(capsys, store, *args)
        assert code == 0 and err == "", args


def test_verify_on_a_terminal_shows_a_bar_on_stderr_only(people_store, tmp_path):
    store, _ = people_store
    main, terminal = pty.openpty()
    stdout = tmp_path / "stdout"
    with stdout.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "eventmem.cli", "--store", str(store), "verify"],
            stdout=out, stderr=terminal, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        os.close(terminal)
        shown = b""
        while True:
            try:
                data = os.read(main, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            shown += data
        assert proc.wait(timeout=120) == 0
    os.close(main)
    frames = shown.decode().split("\r")
    assert any(f.startswith("verify: hash chain") and "/15" in f for f in frames), frames
    assert any(f.startswith("verify: rebuild") for f in frames)
    assert frames[-1] == "\x1b[K"  # erased before the result is printed
    assert stdout.read_text().startswith("OK: 15 events")
    assert Path(stdout).read_text().count("\n") == 1

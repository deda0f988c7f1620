"""The README runs: its Python session executes as written, and CI runs its test command."""

from __future__ import annotations

import re

from tests import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_session_runs(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks, "README has no python session"
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    assert "Alice moved to Berlin in March" in out


def test_readme_has_exactly_the_two_setup_commands():
    commands = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    assert [c.strip() for c in commands] == [
        "pip install . && eventmem demo",
        "pip install '.[test]' && python -m pytest -q",
    ]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme_command = "pip install '.[test]' && python -m pytest -q"
    assert f'test_command="{readme_command}"' in ci and readme_command in README
    assert 'grep -qxF "$test_command" README.md' in ci and 'eval "$test_command"' in ci

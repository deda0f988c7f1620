"""ops.bench.samelog: two runs of one checkout write the same log, byte for byte, and audit
clean; a run fed other inputs is told apart, at the store and record it differs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ops.bench import samelog


def test_two_runs_write_the_same_log_and_a_different_input_is_found(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = samelog.write(tmp_path / "one", texts=60, batch=25, personas=0)
    samelog.write(tmp_path / "two", texts=60, batch=25, personas=0)
    assert list(one) == ["generated"] and one["generated"]["ok"]
    capsys.readouterr()
    assert samelog.compare(tmp_path / "one", tmp_path / "two")
    assert capsys.readouterr().out.endswith("1 stores, 0 records: identical\n".replace(
        "0 records", f"{len(list(samelog.records(tmp_path / 'one' / 'generated' / 'store')))}"
        " records"))

    samelog.write(tmp_path / "other", texts=61, batch=25, personas=0)
    assert not samelog.compare(tmp_path / "one", tmp_path / "other")
    assert "first difference at record" in capsys.readouterr().out


def test_records_are_the_log_in_seq_order(tmp_path: Path) -> None:
    samelog.write(tmp_path / "run", texts=30, batch=30, personas=0)
    keys = [key for key, _ in samelog.records(tmp_path / "run" / "generated" / "store")]
    assert len(keys) > 30 and keys == sorted(keys)
    assert [int.from_bytes(k, "big") for k in keys] == list(range(1, len(keys) + 1))

"""Lock tampering with real processes: the writer lock files deleted under a running writer.

    python -m ops.drills.lock [--runs 6] [--before 20] [--attempts 20] [--out FILE]

Per run, a fresh store. Writer A (a process) opens it and writes memories one by one, printing
each acknowledged id, until told to stop. Once A has ``--before`` acknowledged, the drill
deletes ``writer.lock`` (every other run ``lock.mdb`` too) and starts writer B (another process),
which tries to open the store and write ``--attempts`` memories. Then A stops and closes, and a
third process opens the store, verifies it and looks for every memory A or B acknowledged.

Counts (the targets are all 0): ``second_writer_admitted`` (runs where B opened the store for
writing), ``lost`` (acknowledged memories missing at the end), ``crashes`` (a process that died
or raised something other than StoreLockedError), ``store_failures`` (the final open or verify
failed), ``undetected_corruptions`` (verify passed yet an acknowledged write was lost).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

from ops.bench.common import REPO_ROOT, format_table, machine_info, publish

DEFAULT_OUT = REPO_ROOT / "ops" / "drills" / "results" / "lock.json"

WRITER_A = textwrap.dedent("""
    import sys
    from pathlib import Path
    import eventmem
    store, stop = sys.argv[1], Path(sys.argv[2])
    with eventmem.open(store) as mem:
        print("OPEN", flush=True)
        i = 0
        while not stop.exists():
            r = mem.remember(f"writer A note {i}: parcel {i * 13} left depot {i % 7}",
                             namespace="a")
            print("ACK", r.memory_id, flush=True)
            i += 1
    print("CLOSED", flush=True)
""")

WRITER_B = textwrap.dedent("""
    import sys
    import eventmem
    try:
        with eventmem.open(sys.argv[1]) as mem:
            print("OPEN", flush=True)
            for i in range(int(sys.argv[2])):
                r = mem.remember(f"writer B note {i}: crate {i * 17} reached port {i % 5}",
                                 namespace="b")
                print("ACK", r.memory_id, flush=True)
    except eventmem.StoreLockedError:
        print("LOCKED", flush=True)
""")

CHECK = textwrap.dedent("""
    import json, sys
    import eventmem
    ids = json.loads(sys.stdin.read())
    with eventmem.open(sys.argv[1], readonly=True) as mem:
        ok = mem.verify().ok
        missing = 0
        for mid in ids:
            try:
                missing += mem.get(mid).text is None
            except eventmem.NotFoundError:
                missing += 1
    print(json.dumps({"verify_ok": ok, "missing": missing}))
""")


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))


def _python(script: str, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", script, *args], cwd=REPO_ROOT, env=_env(),
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def one_run(work: Path, *, delete_lmdb_lock: bool, before: int, attempts: int) -> dict[str, Any]:
    """One run in the fresh directory ``work``: its counts."""
    store, stop = work / "store", work / "stop"
    a = _python(WRITER_A, str(store), str(stop))
    a_lines: list[str] = []
    enough = threading.Event()

    def read_a() -> None:
        assert a.stdout is not None
        for line in a.stdout:
            a_lines.append(line.strip())
            if sum(x.startswith("ACK") for x in a_lines) >= before:
                enough.set()
        enough.set()  # A ended early: the run goes on and counts it

    reader = threading.Thread(target=read_a, daemon=True)
    reader.start()
    enough.wait(timeout=300)
    deleted = ["writer.lock"] + (["lock.mdb"] if delete_lmdb_lock else [])
    for name in deleted:
        (store / name).unlink(missing_ok=True)
    b = _python(WRITER_B, str(store), str(attempts))
    b_out, b_err = b.communicate(timeout=300)
    stop.touch()
    a_err = a.stderr.read() if a.stderr is not None else ""
    a.wait(timeout=300)
    reader.join(timeout=60)
    b_lines = b_out.split()
    acked = [line.split()[1] for line in a_lines if line.startswith("ACK")]
    acked += [b_lines[i + 1] for i, word in enumerate(b_lines) if word == "ACK"]
    crashes = int(a.returncode != 0 or "CLOSED" not in a_lines)
    crashes += int(b.returncode != 0 or not ("LOCKED" in b_lines or "OPEN" in b_lines))
    check = subprocess.run([sys.executable, "-c", CHECK, str(store)], cwd=REPO_ROOT,
                           env=_env(), input=json.dumps(acked), capture_output=True, text=True,
                           timeout=300)
    try:
        final = json.loads(check.stdout)
    except json.JSONDecodeError:
        final = None
    lost = len(acked) if final is None else final["missing"]
    verify_ok = final is not None and final["verify_ok"]
    return {
        "deleted": deleted,
        "acknowledged": len(acked),
        "second_writer_admitted": "OPEN" in b_lines,
        "lost": lost,
        "crashes": crashes,
        "store_failure": not verify_ok,
        "undetected_corruption": verify_ok and lost > 0,
        "stderr": [e[-500:] for e in (a_err, b_err, check.stderr) if e.strip()],
    }


def run(*, runs: int = 6, before: int = 20, attempts: int = 20,
        tmp: Path | None = None) -> dict[str, Any]:
    """Every run's counts and their totals."""
    work = Path(tempfile.mkdtemp(prefix="drill-lock-", dir=tmp))
    results = []
    started = time.perf_counter()
    try:
        for n in range(runs):
            (work / str(n)).mkdir()
            results.append(one_run(work / str(n), delete_lmdb_lock=n % 2 == 1, before=before,
                                   attempts=attempts))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "drill": "lock",
        "parameters": {"runs": runs, "before": before, "attempts": attempts},
        "counts": {
            "runs": runs,
            "acknowledged": sum(r["acknowledged"] for r in results),
            "second_writer_admitted": sum(r["second_writer_admitted"] for r in results),
            "lost": sum(r["lost"] for r in results),
            "crashes": sum(r["crashes"] for r in results),
            "store_failures": sum(r["store_failure"] for r in results),
            "undetected_corruptions": sum(r["undetected_corruption"] for r in results),
        },
        "runs": results,
        "seconds": round(time.perf_counter() - started, 2),
    }


def report(result: dict[str, Any]) -> str:
    """The counts as a table."""
    return "writer lock files deleted under a running writer\n" + format_table(
        ["count", "value"], list(result["counts"].items()))


def main(argv: list[str] | None = None) -> int:
    """Run the drill; exit 1 unless every count that must be 0 is."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--before", type=int, default=20,
                        help="writes A acknowledges before the lock files are deleted")
    parser.add_argument("--attempts", type=int, default=20, help="writes B tries")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--tmp", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run(runs=args.runs, before=args.before, attempts=args.attempts, tmp=args.tmp)
    result["machine"] = machine_info()
    publish(report(result), args.out, result)
    counts = result["counts"]
    failed = sum(counts[k] for k in ("second_writer_admitted", "lost", "crashes",
                                      "store_failures", "undetected_corruptions"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Helpers shared by the benchmarks: machine info, percentiles, the result table, JSON output."""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import eventmem

REPO_ROOT = Path(__file__).resolve().parents[2]  # ops/bench/common.py -> the checkout
RESULTS_DIR = REPO_ROOT / "ops" / "bench" / "results"


def engine_versions() -> tuple[str, int]:
    """This eventmem's store format and projection version (``Engine.stats()``), read on an
    empty store made for the purpose: a cached store built by an eventmem that wrote another
    format or another kind of snapshot is not reused (it would not open, or would open by
    folding its whole log instead of from its snapshot)."""
    with (tempfile.TemporaryDirectory(prefix="eventmem-bench-versions-") as tmp,
          eventmem.open(Path(tmp) / "probe", config=eventmem.Config(sync=False)) as probe):
        stats = probe.stats()
    return stats["store_format"], stats["projection_version"]


def machine_info() -> dict[str, Any]:
    """Where the figures were measured: CPU count, Python, OS, library versions."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    versions = {}
    for dist in ("eventmem", "lmdb", "msgspec", "numpy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "cpu_count": os.cpu_count(),
        "cpu_usable": usable,
        "cpu_model": _cpu_model(),
        "python_version": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "versions": versions,
        "load_average": _loadavg(),
        "git": git_state(),
        "argv": sys.argv,
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def git_state() -> dict[str, Any] | None:
    """The commit measured and the files changed from it (read-only git commands)."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True,
                                text=True, timeout=10, check=True).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                cwd=REPO_ROOT, capture_output=True, text=True, timeout=10,
                                check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": commit, "modified": [line[3:] for line in status.splitlines()]}


def fdatasync_probe(directory: Path, n: int = 200) -> dict[str, float]:
    """Latency of a 4 KiB in-place write + fdatasync in ``directory``: what one durable flush
    costs on this disk (an LMDB commit with sync on needs at least one)."""
    path = Path(directory) / "fdatasync-probe"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, bytes(64 * 4096), 0)
        os.fsync(fd)
        sync = getattr(os, "fdatasync", os.fsync)
        times = []
        for i in range(n):
            os.pwrite(fd, os.urandom(4096), (i % 64) * 4096)
            t = time.perf_counter()
            sync(fd)
            times.append((time.perf_counter() - t) * 1e3)
    finally:
        os.close(fd)
        path.unlink()
    return {"p50_ms": percentile(times, 50), "p90_ms": percentile(times, 90),
            "p99_ms": percentile(times, 99)}


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of an empty sequence")
    data = sorted(values)
    pos = (len(data) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def peak_rss_mb() -> float | None:
    try:
        import resource
    except ImportError:  # not on POSIX
        return None
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024.0 if sys.platform != "darwin" else kb / (1024.0 * 1024.0)


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def format_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A plain fixed-width table: first column left-aligned, the others right-aligned."""
    cells = [[str(c) for c in header]] + [[_cell(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        return "  ".join(
            c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(row)
        ).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(cells[0]), sep, *(line(r) for r in cells[1:])])


def _cell(value: object) -> str:
    if isinstance(value, float):
        if value == 0 or abs(value) >= 100:
            return f"{value:,.0f}"
        if abs(value) >= 1:
            return f"{value:,.2f}"
        return f"{value:.3f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "" if value is None else str(value)


def write_json(path: Path, data: Any) -> Path:
    """Write ``data`` as indented JSON, creating the directory."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def progress(message: str) -> None:
    """Progress lines go to stderr, so stdout holds only the report."""
    print(message, file=sys.stderr, flush=True)


def publish(report_text: str, out: Path, result: Any) -> Path:
    """Print a benchmark's report and write its figures to ``out`` (JSON)."""
    print(report_text)
    path = write_json(out, result)
    print(f"\nwrote {path}")
    return path


def verdict(result: dict[str, Any], index: int) -> str:
    """PASS or MISS for the ``index``-th target of ``result["targets"]``."""
    target = list(result["targets"].values())[index]
    return "PASS" if target["pass"] else "MISS"


# -- the shared benchmark data (../shared/bench) --------------------------------------------------


def data_dir(given: str | os.PathLike[str] | None, env_var: str, default: Path) -> Path:
    """A benchmark's data folder: ``--data`` when given, else ``$env_var``, else ``default``."""
    if given:
        return Path(given)
    env = os.environ.get(env_var)
    return Path(env) if env else default


def utc_time(value: str) -> datetime:
    """An ISO 8601 time of the data as an aware UTC datetime (a naive one is read as UTC)."""
    when = datetime.fromisoformat(value)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of a JSON-lines file (blank lines skipped)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def bm25_scores(docs: Sequence[Counter[str]], lengths: Sequence[int], query: Sequence[str],
                k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25) -> list[float]:
    """Okapi BM25 of every doc (term counts, lengths) for ``query`` as rank_bm25's BM25Okapi
    computes it: idf log((N - n + 0.5) / (n + 0.5)), a negative idf replaced by epsilon times
    the average idf; a query term counts as often as it occurs."""
    n_docs = len(docs)
    if not n_docs:
        return []
    df: Counter[str] = Counter()
    for doc in docs:
        df.update(doc.keys())
    idf: dict[str, float] = {}
    for word, freq in df.items():
        idf[word] = math.log(n_docs - freq + 0.5) - math.log(freq + 0.5)
    average_idf = sum(idf.values()) / len(idf) if idf else 0.0
    floor = epsilon * average_idf
    for word, value in idf.items():
        if value < 0:
            idf[word] = floor
    avgdl = sum(lengths) / n_docs or 1.0
    norms = [k1 * (1 - b + b * length / avgdl) for length in lengths]
    scores = [0.0] * n_docs
    for term in query:
        weight = idf.get(term)
        if not weight:
            continue
        for i, doc in enumerate(docs):
            f = doc.get(term)
            if f:
                scores[i] += weight * (f * (k1 + 1) / (f + norms[i]))
    return scores

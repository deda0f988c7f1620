"""The server's cost: remember and recall through ``eventmem serve`` (HTTP and MCP) against the
in-process engine on the same work, in the same run.

    python -m ops.bench.serve [--memories 2000] [--clients 1,8,32] [--requests 320]
                              [--no-mcp] [--cache DIR] [--rebuild] [--out FILE]

1. A store of ``--memories`` generated sentences (``ops.bench.log.generate_texts``) in one
   namespace, built with ``remember_many`` in batches of 250 under the exact-hash gate
   (``GateParams(mode="exact")``): the full gate (facts, plans, contradictions) builds a 100k
   namespace at tens of memories per second, and the bench measures the server, not the gate
   (``ops.bench.ingest`` does that). The runs themselves use the default config, full gate
   included. Built stores are kept under ``--cache`` (default /tmp/eventmem-bench) and reused
   while the size, seed and build match (``--rebuild`` starts afresh); each mode starts from
   its own copy, so from the same bytes.
2. For each mode and each number of concurrent clients: ``--requests`` recalls (``k=10``, each
   recorded as an access: a durable append, as an agent's would be), then ``--requests``
   remembers of new sentences, spread over the clients. Modes:

   - ``in_process``: threads sharing one engine (``eventmem.open``);
   - ``http``: ``eventmem serve`` as a subprocess on 127.0.0.1, one ``eventmem.connect``
     client per thread;
   - ``mcp``: the same server's ``/mcp``, one MCP session (the official SDK's streamable HTTP
     client) per concurrent client, calling the ``recall`` and ``remember`` tools.
3. Per run: throughput (requests/s over the wall time), p50 and p99 latency, failed requests;
   the server's overhead as the ratio of its p50 (and throughput) to the in-process one.
   Afterwards, verify and audit of each served store through the API must be ok.

Targets: no request lost or failed, verify and audit ok. The issue asks for 100k memories;
the default is smaller so the run takes a minute on a 2-core machine (``--memories 100000``
builds the big one once, about ten minutes, and the runs at that size take longer).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import eventmem
from ops.bench.common import (
    REPO_ROOT,
    RESULTS_DIR,
    format_table,
    machine_info,
    percentile,
    progress,
    publish,
    write_json,
)
from ops.bench.log import generate_texts

DEFAULT_OUT = RESULTS_DIR / "serve.json"
DEFAULT_CACHE = Path("/tmp/eventmem-bench")
NAMESPACE = "bench"
SEED = 11
# Small batches: the write path compares each item with the plans its own batch created, so a
# batch costs the square of its size (5,000 at a time took minutes per batch).
BATCH = 250
BUILD_VERSION = 1  # bump when the build changes: cached stores are then rebuilt


def build_store(path: Path, n: int) -> None:
    """``n`` generated sentences in one namespace (no fsync per batch, the exact-hash gate: it
    is setup; see the module docstring)."""
    texts = generate_texts(n, seed=SEED)
    config = eventmem.Config(sync=False, gate=eventmem.GateParams(mode="exact"))
    started = time.perf_counter()
    with eventmem.open(path, config=config) as mem:
        for start in range(0, n, BATCH):
            mem.remember_many(texts[start:start + BATCH], namespace=NAMESPACE)
            if (start // BATCH) % 40 == 39:
                progress(f"  {start + BATCH:,} / {n:,} memories, "
                         f"{time.perf_counter() - started:.0f} s")


def ensure_store(cache: Path, n: int, *, rebuild: bool = False) -> tuple[Path, dict[str, Any]]:
    """The built store of ``n`` memories, from ``cache`` when a complete one is there (its
    directory holds ``bench-ready.json`` once built); returns its path and how it was built."""
    spec = json.dumps({"build": BUILD_VERSION, "n": n, "seed": SEED, "batch": BATCH})
    root = cache / f"serve-{n}-{hashlib.blake2b(spec.encode(), digest_size=6).hexdigest()}"
    ready = root / "bench-ready.json"
    if ready.is_file() and not rebuild:
        return root / "store", json.loads(ready.read_text()) | {"cached": True}
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    started = time.perf_counter()
    build_store(root / "store", n)
    built = {"n": n, "seed": SEED, "batch": BATCH, "gate": "exact",
             "build_seconds": time.perf_counter() - started}
    ready.write_text(json.dumps(built, indent=2))
    return root / "store", built | {"cached": False}


Run = tuple[list[float], int, float, list[str]]  # latencies (ms), failures, wall (s), errors


def run_threads(clients: int, work: Sequence[Callable[..., Any]],
                make: Callable[[], Any] | None = None) -> Run:
    """Run ``work`` (callables taking the thread's client, or nothing) over ``clients`` threads;
    returns per-request latencies (ms), failures, the wall time (s) and the first errors."""
    latencies: list[float] = []
    failures = 0
    errors: list[str] = []
    lock = threading.Lock()
    queue = list(reversed(work))

    def worker() -> None:
        nonlocal failures
        client = make() if make is not None else None
        while True:
            with lock:
                if not queue:
                    break
                job = queue.pop()
            start = time.perf_counter()
            error = None
            try:
                job(client) if client is not None else job(None)
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
            took = (time.perf_counter() - start) * 1e3
            with lock:
                latencies.append(took)
                if error is not None:
                    failures += 1
                    _note(errors, error)
        if client is not None:
            client.close()

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, failures, time.perf_counter() - began, errors


def _note(errors: list[str], error: str) -> None:
    """Keep the first few distinct errors of a run: what failed, not only how many."""
    if len(errors) < 5 and error not in errors:
        errors.append(error)


def figures(latencies: list[float], failures: int, wall: float, errors: list[str]
            ) -> dict[str, Any]:
    """Throughput, p50, p99, failures (and the first errors) of one run."""
    return {"requests": len(latencies), "failed": failures,
            "throughput_per_s": len(latencies) / wall if wall else None,
            "p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
            "wall_s": wall, "errors": errors}


def workload(requests: int, seed: int) -> tuple[list[str], list[str]]:
    """The queries and the new texts of one run (a pure function of the seed)."""
    return generate_texts(requests, seed=seed), generate_texts(requests, seed=seed + 1000)


def bench_engine(store: Path, clients: list[int], requests: int) -> dict[str, Any]:
    """Threads sharing one in-process engine."""
    out: dict[str, Any] = {}
    with eventmem.open(store) as mem:
        for n in clients:
            queries, texts = workload(requests, seed=n)
            recall = [lambda _c, q=q: mem.recall(q, namespace=NAMESPACE, k=10) for q in queries]
            remember = [lambda _c, t=t: mem.remember(t, namespace=NAMESPACE) for t in texts]
            out[str(n)] = {"recall": figures(*run_threads(n, recall)),
                           "remember": figures(*run_threads(n, remember))}
            progress(f"in_process  clients={n} done")
    return out


class Server:
    """``eventmem serve`` on a free loopback port, as a subprocess."""

    def __init__(self, store: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH")) if p))
        self.log = store.parent / "serve.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "eventmem.cli", "--store", str(store), "serve", "--port",
                 str(self.port)], env=env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"eventmem serve exited {self.process.returncode}: "
                                   f"{self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(self.url + "/v1/health", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("eventmem serve did not start in 120 s")

    def stop(self) -> None:
        """SIGTERM, and wait."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def bench_http(url: str, clients: list[int], requests: int) -> dict[str, Any]:
    """One ``eventmem.connect`` client per thread."""
    out: dict[str, Any] = {}
    for n in clients:
        queries, texts = workload(requests, seed=n)
        recall = [lambda c, q=q: c.recall(q, namespace=NAMESPACE, k=10) for q in queries]
        remember = [lambda c, t=t: c.remember(t, namespace=NAMESPACE) for t in texts]
        out[str(n)] = {"recall": figures(*run_threads(n, recall, lambda: eventmem.connect(url))),
                       "remember": figures(*run_threads(n, remember,
                                                        lambda: eventmem.connect(url)))}
        progress(f"http        clients={n} done")
    return out


async def _mcp_run(url: str, clients: int, calls: list[tuple[str, dict[str, Any]]]) -> Run:
    import anyio
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    latencies: list[float] = []
    failures = 0
    errors: list[str] = []
    queue = list(reversed(calls))

    async def session_worker() -> None:
        nonlocal failures
        async with httpx2.AsyncClient(timeout=120) as http, \
                streamable_http_client(f"{url}/mcp", http_client=http) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            while queue:
                tool, args = queue.pop()
                start = time.perf_counter()
                error = None
                try:
                    result = await session.call_tool(tool, args)
                    if result.is_error:
                        error = f"tool error: {result.content}"
                except Exception as exc:
                    error = f"{type(exc).__name__}: {exc}"
                latencies.append((time.perf_counter() - start) * 1e3)
                if error is not None:
                    failures += 1
                    _note(errors, error)

    began = time.perf_counter()
    async with anyio.create_task_group() as group:
        for _ in range(clients):
            group.start_soon(session_worker)
    return latencies, failures, time.perf_counter() - began, errors


def bench_mcp(url: str, clients: list[int], requests: int) -> dict[str, Any]:
    """One MCP session per concurrent client, over streamable HTTP."""
    out: dict[str, Any] = {}
    for n in clients:
        queries, texts = workload(requests, seed=n)
        recall = [("recall", {"query": q, "namespace": NAMESPACE, "k": 10}) for q in queries]
        remember = [("remember", {"text": t, "namespace": NAMESPACE}) for t in texts]
        out[str(n)] = {"recall": figures(*asyncio.run(_mcp_run(url, n, recall))),
                       "remember": figures(*asyncio.run(_mcp_run(url, n, remember)))}
        progress(f"mcp         clients={n} done")
    return out


def run(memories: int, clients: list[int], requests: int, mcp: bool, *,
        cache: Path = DEFAULT_CACHE, rebuild: bool = False,
        save: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """Every mode on copies of one store; the result dict (see the module docstring).
    ``save`` gets the result so far after each mode and check (``complete`` false until the
    end): a run at 100k takes long, and what it measured must outlive an interruption."""
    base, built = ensure_store(cache, memories, rebuild=rebuild)
    progress(f"store of {memories:,} memories: "
             + ("cached" if built["cached"] else f"built in {built['build_seconds']:.0f} s"))
    params = {"memories": memories, "clients": clients, "requests": requests, "mcp": mcp}
    modes: dict[str, Any] = {}
    checks: dict[str, Any] = {}

    def saved(complete: bool = False) -> dict[str, Any]:
        result = assemble(params, built, modes, checks, complete=complete)
        if save is not None:
            save(result)
        return result

    with tempfile.TemporaryDirectory(prefix="eventmem-bench-serve-") as tmp:
        shutil.copytree(base, Path(tmp) / "in_process")
        modes["in_process"] = bench_engine(Path(tmp) / "in_process", clients, requests)
        saved()
        shutil.copytree(base, Path(tmp) / "served")
        server = Server(Path(tmp) / "served")
        try:
            modes["http"] = bench_http(server.url, clients, requests)
            saved()
            if mcp:
                modes["mcp"] = bench_mcp(server.url, clients, requests)
                saved()
            # Audit re-derives every decision, each recall's included: minutes on a big store.
            with eventmem.connect(server.url, timeout=3 * 3_600) as client:
                started = time.perf_counter()
                checks["verify_ok"] = client.verify().ok
                checks["verify_s"] = time.perf_counter() - started
                saved()
                started = time.perf_counter()
                checks["audit_ok"] = client.audit().ok
                checks["audit_s"] = time.perf_counter() - started
        finally:
            server.stop()
    return saved(complete=True)


def assemble(params: dict[str, Any], built: dict[str, Any], modes: dict[str, Any],
             checks: dict[str, Any], *, complete: bool) -> dict[str, Any]:
    """The result dict from the runs and checks done so far: overhead ratios where both sides
    ran, the targets."""
    overhead = {}
    for mode in modes:
        if mode == "in_process":
            continue
        for n in modes[mode]:
            for op in ("recall", "remember"):
                here, there = modes["in_process"][n][op], modes[mode][n][op]
                overhead[f"{mode}/{op}/{n}"] = {
                    "p50_ratio": there["p50_ms"] / here["p50_ms"],
                    "throughput_ratio": here["throughput_per_s"] / there["throughput_per_s"]}
    failed = sum(r[op]["failed"] for m in modes.values() for r in m.values()
                 for op in ("recall", "remember"))
    targets = {
        "no request failed": {"value": failed, "target": 0, "pass": failed == 0},
        "verify and audit ok": {"value": checks, "target": True,
                                "pass": bool(checks.get("verify_ok") and checks.get("audit_ok"))},
    }
    return {"benchmark": "serve", "complete": complete, "machine": machine_info(),
            "params": params, "store": built, "modes": modes, "overhead": overhead,
            "checks": checks, "targets": targets}


def report(result: dict[str, Any]) -> str:
    """The result as a table, then the targets."""
    rows = []
    for mode, by_clients in result["modes"].items():
        for n, ops in by_clients.items():
            for op, f in ops.items():
                ratio = result["overhead"].get(f"{mode}/{op}/{n}", {}).get("p50_ratio")
                rows.append([f"{mode} {op}", int(n), f["throughput_per_s"], f["p50_ms"],
                             f["p99_ms"], f["failed"], ratio])
    table = format_table(["mode", "clients", "req/s", "p50 ms", "p99 ms", "failed",
                          "p50 x in-process"], rows)
    lines = [table, ""]
    for name, target in result["targets"].items():
        lines.append(f"{'PASS' if target['pass'] else 'MISS'}  {name}: {target['value']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(prog="python -m ops.bench.serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=2_000)
    parser.add_argument("--clients", default="1,8,32",
                        help="concurrent clients per run, comma-separated")
    parser.add_argument("--requests", type=int, default=320, help="requests per op and run")
    parser.add_argument("--no-mcp", action="store_true", help="leave the MCP runs out")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                        help="where built stores are kept and reused")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached store")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",") if c.strip()]
    result = run(args.memories, clients, args.requests, not args.no_mcp, cache=args.cache,
                 rebuild=args.rebuild, save=lambda partial: write_json(args.out, partial))
    publish(report(result), args.out, result)
    return 0 if all(t["pass"] for t in result["targets"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())

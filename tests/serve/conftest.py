"""``eventmem serve`` as a real subprocess on 127.0.0.1 with a free port, and real HTTP to it.

Nothing is mocked: each fixture starts the command a user runs (``python -m eventmem.cli serve``)
with PYTHONPATH pointing at this checkout, waits until ``/v1/health`` answers, and stops the
process (SIGTERM, then SIGKILL) when the tests are done.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests import ROOT


def env() -> dict[str, str]:
    """The environment of a child eventmem: this checkout first on the path."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def eventmem_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run ``eventmem ARGS`` as a subprocess; returns its outcome."""
    return subprocess.run([sys.executable, "-m", "eventmem.cli", *args], env=env(),
                          capture_output=True, text=True, timeout=timeout)


def add_token(store: Path, *args: str) -> tuple[str, str]:
    """``eventmem token add`` as a user runs it; returns (token, token id)."""
    done = eventmem_cli("--store", str(store), "--json", "token", "add", *args)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    return out["token"], out["token_id"]


def free_port() -> int:
    """A port nothing listens on now (the kernel's pick)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Served:
    """A running ``eventmem serve``: its process, URL and store."""

    process: subprocess.Popen[bytes]
    url: str
    store: Path
    log: Path

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down and the engine closes), SIGKILL if it hangs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_server(store: Path, *args: str, wait: float = 60) -> Served:
    """Start ``eventmem serve --store STORE ARGS`` on a free port and wait until it is ready."""
    port = free_port()
    log = store.parent / f"serve-{port}.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "eventmem.cli", "--store", str(store), "serve",
             "--host", "127.0.0.1", "--port", str(port), *args],
            env=env(), stdout=out, stderr=subprocess.STDOUT)
    served = Served(process, f"http://127.0.0.1:{port}", store, log)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"eventmem serve exited {process.returncode}: "
                                 f"{log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(served.url + "/v1/health", timeout=2) as response:
                if response.status == 200:
                    return served
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    served.stop()
    raise AssertionError(f"eventmem serve not ready in {wait}s: {log.read_text()}")


def post(url: str, op: str, body: Any, *, token: str | None = None,
         raw: bytes | None = None) -> tuple[int, Any]:
    """POST JSON to ``url/v1/op`` (``url`` + ``op`` when it starts with /) over real HTTP
    (urllib); returns the status and the decoded body (error statuses included)."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else json.dumps(body).encode()
    path = op if op.startswith("/") else f"/v1/{op}"  # "/mcp": a route outside /v1
    request = urllib.request.Request(url + path, data=data, headers=headers,
                                     method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An open server (no token file) on a fresh store, shared by a module's tests."""
    served = start_server(tmp_path_factory.mktemp("serve") / "store", "--max-body", "200000")
    try:
        yield served
    finally:
        served.stop()

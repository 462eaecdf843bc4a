"""Arize Phoenix, a real OTLP backend, for the end-to-end export tests.

Phoenix is large (about 850 MB installed, and its pytest plugin takes tens of seconds to import),
so it lives in a virtualenv of its own outside the project's, made on first use:
`$MCPTAPE_PHOENIX_VENV`, else `~/.cache/mcptape/phoenix-venv` (`python -m venv` and `pip install
arize-phoenix`, which reaches PyPI). `start(folder)` runs `phoenix serve` on free ports with its
SQLite under `folder`, ready when `/healthz` answers; spans are read back through its REST API.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from tests.recorder.http.helpers import free_port, terminate

PHOENIX = "arize-phoenix>=20,<21"
FOLDER = "~/.cache/mcptape/phoenix-venv"
MAKE = f"python3 -m venv {FOLDER} && {FOLDER}/bin/pip install '{PHOENIX}'"
READY_WITHIN = 240.0  # seconds: a first start migrates its database; two busy cores are slow


def venv() -> Path:
    return Path(os.environ.get("MCPTAPE_PHOENIX_VENV") or Path.home() / ".cache" / "mcptape" / "phoenix-venv")


def executable() -> Path:
    """`phoenix` in its virtualenv, made now if it is not there (one process at a time)."""
    folder = venv()
    phoenix = folder / "bin" / "phoenix"
    if phoenix.exists():
        return phoenix
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / ".phoenix-venv.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not phoenix.exists():
            base = Path(getattr(sys, "_base_executable", sys.executable))
            made = subprocess.run(
                [str(base), "-m", "venv", str(folder)], capture_output=True, text=True, check=False
            )
            assert made.returncode == 0, f"cannot make Phoenix's virtualenv ({made.stderr}); by hand: {MAKE}"
            pip = [str(folder / "bin" / "pip"), "install", "-q", PHOENIX]
            done = subprocess.run(pip, capture_output=True, text=True, timeout=1200, check=False)
            assert done.returncode == 0, f"cannot install Phoenix ({done.stderr[-2000:]}); by hand: {MAKE}"
    return phoenix


class Phoenix:
    """A running Phoenix: `url` takes OTLP/HTTP (`/v1/traces`) and answers the REST API."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=30) as answer:
            return orjson.loads(answer.read())

    def spans(self, project: str = "default") -> list[dict[str, Any]]:
        """Every span of a project (the REST API's pages followed)."""
        found: list[dict[str, Any]] = []
        cursor = ""
        while True:
            page = self.get(f"/v1/projects/{project}/spans?limit=1000{cursor}")
            found += page["data"]
            if not page.get("next_cursor"):
                return found
            cursor = f"&cursor={page['next_cursor']}"

    def wait_for_spans(self, count: int, timeout: float = 60.0) -> list[dict[str, Any]]:
        """The spans once at least `count` are stored (Phoenix writes them in the background)."""
        deadline = time.monotonic() + timeout
        while True:
            spans = self.spans()
            if len(spans) >= count or time.monotonic() > deadline:
                return spans
            time.sleep(0.5)


@contextmanager
def start(folder: Path) -> Iterator[Phoenix]:
    """`phoenix serve` on free ports, its data under `folder`; stopped at the end."""
    phoenix = executable()
    port, grpc = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = folder / "phoenix.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([str(phoenix), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + READY_WITHIN
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None, f"Phoenix exited: {log.read_text(errors='replace')[-3000:]}"
            assert time.monotonic() < deadline, (
                f"Phoenix not ready in {READY_WITHIN:g} s: {log.read_text()[-3000:]}"
            )
            time.sleep(0.5)
        yield Phoenix(url)
    finally:
        terminate(proc)

"""Helpers for the real-traffic HTTP sweep: sweep_http.py (an official-SDK MCPServer on streamable
HTTP in the configuration asked) recorded through `mcptape record --http-upstream -- CMD` while the
test's client code runs against the recorder."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Finding
from tests.conftest import PYTHON, SERVERS
from tests.recorder.http.helpers import free_port, recording

SWEEP = SERVERS / "sweep_http.py"


def sweep_server(port: int, *flags: str) -> list[str]:
    return [PYTHON, str(SWEEP), str(port), *flags]


def record_sweep(path: Path, drive: Callable[[str], Awaitable[Any]], *flags: str) -> tuple[Any, str, int]:
    """Record `drive(url)` against sweep_http.py FLAGS: what it returned, the recorder's stderr, the
    server's port."""
    port = free_port()
    with recording(f"http://127.0.0.1:{port}/mcp", path, sweep_server(port, *flags)) as rec:
        seen = anyio.run(drive, rec.url)
        rec.stop()
    return seen, rec.stderr, port


def verdicts(path: Path) -> list[Finding]:
    """The errors and warnings `check` finds (info and the capture's own are not verdicts)."""
    _, analysis = analyze_file(str(path))
    return [f for f in analysis.findings if f.severity.value != "info" and f.party != "capture"]

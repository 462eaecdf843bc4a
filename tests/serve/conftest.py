"""Recorded sessions shared by serve's real-process tests (each recorded once per test session)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.serve.helpers import client, record, time_server


@dataclass(frozen=True)
class Recorded:
    """A session recorded through `mcptape record`: the transcript and what the client printed."""

    path: Path
    stdout: bytes
    at: float  # time.time() when the recording ended


@pytest.fixture(scope="session")
def time_recording(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """The SDK client against mcp-server-time (2026-07-28): tools/list, a call, then two at once."""
    path = tmp_path_factory.mktemp("serve-time") / "time.jsonl"
    proc = client("--together", *record(path, time_server()))
    assert proc.returncode == 0, proc.stderr.decode()
    return Recorded(path, proc.stdout, time.time())

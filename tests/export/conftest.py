"""Real recordings the export tests share: a Streamable HTTP session of the official SDK client and
server through `mcptape record --http-upstream` (recorded once per test run, for every worker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import once_per_run
from tests.recorder.http.helpers import free_port, recording, sdk_server
from tests.recorder.http.sdk_client import drive


@pytest.fixture(scope="session")
def http_transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SDK client's modern and handshake sessions (POST, SSE, GET stream, DELETE), recorded once
    per test run for every xdist worker (read it, never modify it)."""

    def make(folder: Path) -> None:
        port = free_port()
        with recording(f"http://127.0.0.1:{port}/mcp", folder / "sdk-http.jsonl", sdk_server(port)) as rec:
            drive(rec.url)
            rec.stop()

    return once_per_run(tmp_path_factory, "export-sdk-http", make) / "sdk-http.jsonl"

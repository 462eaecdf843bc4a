"""Must show: the 2026-07-28 SDK client against an older server (server-everything over Streamable
HTTP) first tries `server/discover`, gets `400` with a JSON-RPC error whose id is null, and falls
back to the handshake, as the spec's Backward Compatibility section describes. That answered the
request (on its own exchange): `check` does not call it unanswered."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest
from mcp import Client

from tests.conftest import server_everything
from tests.e2e.realhttp.helpers import verdicts
from tests.recorder.http.helpers import exchanges, free_port, recording, records


async def _modern_client(url: str) -> str:
    async with Client(url) as client:
        await client.list_tools()
        return (await client.call_tool("echo", {"message": "hi"})).content[0].text  # type: ignore[union-attr]


@pytest.mark.node
def test_a_discover_refused_with_a_null_id_error_is_answered_not_unanswered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first exchange is server/discover answered 400 (id null), then initialize; no error or
    warning in `check`."""
    port = free_port()
    monkeypatch.setenv("PORT", str(port))
    path = tmp_path / "fallback.jsonl"
    command = [*server_everything()[:-1], "streamableHttp"]
    with recording(f"http://127.0.0.1:{port}/mcp", path, command) as rec:
        assert anyio.run(_modern_client, rec.url) == "Echo: hi"
        rec.stop()
    sent = [orjson.loads(r["data"]) for r in records(path) if r["ch"] == "in"]
    assert [m.get("method") for m in sent[:2]] == ["server/discover", "initialize"]
    first = exchanges(path, "http-out")[1]
    assert first.startswith(b"HTTP/1.1 400 ") and b'"id":null' in first
    assert [(f.rule, f.message) for f in verdicts(path)] == []

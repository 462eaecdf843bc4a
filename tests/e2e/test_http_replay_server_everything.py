"""Must show: @modelcontextprotocol/server-everything in its Streamable HTTP mode, recorded through
`mcptape record --http-upstream -- node index.js streamableHttp` with the official SDK client (the
handshake: a session id, the GET stream), replays `same` with `mcptape replay FILE` and no transport option:
its recorded command is started, reached at the recorded URL, and ended as the recording ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.conftest import server_everything
from tests.recorder.http.helpers import free_port, recording
from tests.replay.http.helpers import mcptape

LIST_CHANGED_RACE = "notifications/tools/list_changed:count=0..1"  # a notification no request caused


async def _session(url: str) -> dict[str, Any]:
    async with Client(url, mode="legacy") as client:
        names = {t.name for t in (await client.list_tools()).tools}
        echo = (await client.call_tool("echo", {"message": "hi"})).content[0].text  # type: ignore[union-attr]
        total = (await client.call_tool("get-sum", {"a": 2, "b": 3})).content[0].text  # type: ignore[union-attr]
        return {"names": names, "echo": echo, "sum": total}


def test_server_everything_over_http_replays_same_with_no_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 0 and `same`; the recorded command is said on stderr (server-everything reads its port
    from PORT, which the replay's server inherits). The one rule given is server-everything's own
    race, not the transport's: it registers tools once the client is initialized and announces them
    with `notifications/tools/list_changed` on the GET stream, which reaches the client only when
    that stream opened first (in one session of a few, in the recording or the replay)."""
    port = free_port()
    monkeypatch.setenv("PORT", str(port))
    path = tmp_path / "everything.jsonl"
    with recording(
        f"http://127.0.0.1:{port}/mcp", path, [*server_everything()[:-1], "streamableHttp"]
    ) as rec:
        seen = anyio.run(_session, rec.url)
        rec.stop()
    assert "echo" in seen["names"] and seen["echo"] == "Echo: hi" and "5" in seen["sum"]
    done = mcptape("replay", str(path), "--no-config", "--ignore", LIST_CHANGED_RACE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("\nsame")
    assert "replaying against the recorded command" in done.stderr

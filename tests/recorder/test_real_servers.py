"""The official SDK client through `mcptape record` against real servers: same session, all recorded."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from mcptape.transcript import open_transcript
from tests.clients import sdk_session
from tests.conftest import PYTHON, SERVERS

pytestmark = pytest.mark.slow


def messages(path: Path, ch: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of one channel (each whole line of a clean session is one message)."""
    data = b"".join(e.data for e in open_transcript(path).events() if e.ch == ch)
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


async def echo_script(client: Client) -> dict[str, Any]:
    added = await client.call_tool("add", {"a": 2, "b": 40})
    echoed = await client.call_tool("echo", {"text": "héllo\nworld"})
    return {"add": added.structured_content, "echo": [c.model_dump() for c in echoed.content]}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_sdk_client_and_server_behave_the_same_through_the_recorder(tmp_path: Path, mode: str) -> None:
    """Tools and tool results are identical with and without mcptape; every message is recorded."""
    server = [PYTHON, str(SERVERS / "echo_tool.py")]
    direct = sdk_session(server, script=echo_script, mode=mode)
    transcript = tmp_path / "s.jsonl"
    taped = sdk_session(server, script=echo_script, mode=mode, record_to=transcript)
    assert taped == direct
    sent = messages(transcript, "in")
    got = messages(transcript, "out")
    methods = [m.get("method") for m in sent]
    assert methods.count("tools/call") == 2 and "tools/list" in methods
    request_ids = {m["id"] for m in sent if "id" in m and "method" in m}
    assert request_ids == {m["id"] for m in got if "id" in m}, "every request's response is recorded"
    stderr = b"".join(e.data for e in open_transcript(transcript).events() if e.ch == "err")
    assert b"echo_tool: starting" in stderr


async def time_script(client: Client) -> dict[str, Any]:
    result = await client.call_tool(
        "convert_time", {"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    )
    return {"convert": [c.model_dump() for c in result.content]}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_mcp_server_time_through_the_recorder(tmp_path: Path, mode: str) -> None:
    """The third-party mcp-server-time answers the same through mcptape, and all of it is recorded."""
    exe = shutil.which("mcp-server-time") or str(Path(PYTHON).parent / "mcp-server-time")
    server = [exe, "--local-timezone", "UTC"]
    direct = sdk_session(server, script=time_script, mode=mode)
    transcript = tmp_path / "time.jsonl"
    taped = sdk_session(server, script=time_script, mode=mode, record_to=transcript)
    assert taped == direct
    assert "convert_time" in taped.tools
    out = messages(transcript, "out")
    assert any("Asia/Tokyo" in orjson.dumps(m).decode() for m in out)

"""`record --redact` under a real MCP client (the official SDK) and a real SDK server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mcp import Client

from mcptape.check.analyze import analyze_file
from tests.clients import recorded, sdk_session

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


async def _echo_token(client: Client) -> dict[str, Any]:
    result = await client.call_tool("echo", {"text": f"my token is {TOKEN}"})
    return {"text": result.content[0].text}  # type: ignore[union-attr]


def test_sdk_session_recorded_with_redact(tmp_path: Path, echo_server: list[str]) -> None:
    """The client gets the token back unchanged; the transcript has only its placeholder; still clean."""
    path = tmp_path / "sdk.jsonl"
    session = sdk_session(recorded(echo_server, path, "--redact"), script=_echo_token)
    assert session.results["text"] == f"my token is {TOKEN}"
    body = path.read_bytes()
    assert TOKEN.encode() not in body
    placeholders = re.findall(rb"my token is (\[redacted:[0-9a-f]{16}\])", body)
    assert len(placeholders) >= 2 and len(set(placeholders)) == 1  # request and echoes: one placeholder
    _, analysis = analyze_file(str(path))
    assert analysis.clean, analysis.findings

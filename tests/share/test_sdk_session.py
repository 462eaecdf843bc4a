"""`record --redact` under a real MCP client (the official SDK) and a real SDK server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcptape.check.analyze import analyze_file
from tests.clients import recorded, sdk_session

pytestmark = pytest.mark.slow

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


def test_a_redacted_transcript_replays_with_zero_differences(tmp_path: Path, echo_server: list[str]) -> None:
    """The server only echoes the secret: replaying the redacted copy sends and gets the placeholder."""
    import mcptape.replay.api as replay_api
    from mcptape.share.copy import redact_file
    from mcptape.share.rules import Rules

    original = tmp_path / "sdk.jsonl"
    sdk_session(recorded(echo_server, original), script=_echo_token)
    assert TOKEN.encode() in original.read_bytes()
    shared = tmp_path / "shared.jsonl"
    redact_file(original, shared, Rules.build(), environ={})
    assert TOKEN.encode() not in shared.read_bytes()
    result = replay_api.replay(shared, echo_server, output=tmp_path / "new.jsonl", config=False)
    assert result.same, result.diff
    new = (tmp_path / "new.jsonl").read_bytes()
    assert TOKEN.encode() not in new and b"my token is [redacted:" in new

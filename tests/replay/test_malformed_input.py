"""Malformed client lines are replayed byte-exactly, in recorded order."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcptape.replay.api import replay
from mcptape.transcript import open_transcript
from tests.conftest import console_script
from tests.replay.conftest import rp

pytestmark = pytest.mark.slow

CLIENT_BYTES = b"".join(
    [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
        b'"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
        b"debug: a log line on the wrong stream\n",
        b'{"jsonrpc":"2.0","id":2,"method":"tools/list"} trailing banner\n',
        b"\xff\xfe not UTF-8 \xc3\x28\n",
        b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n',
        b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"oops"}\n',
        b'{"a":1}{"b":2}\n',
        b"\r\n",
        b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}\n',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/li',  # truncated, then EOF
    ]
)


def channel_bytes(path: Path, channel: str) -> bytes:
    return b"".join(e.data for e in open_transcript(path).events() if e.ch == channel)


def test_malformed_client_lines_reach_the_new_server_byte_exactly(tmp_path: Path) -> None:
    """The new server receives exactly the recorded client bytes (logged by the server and recorded)."""
    original = tmp_path / "malformed.jsonl"
    subprocess.run(
        [console_script(), "record", "-q", "-o", str(original), "--", *rp()],
        input=CLIENT_BYTES,
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert channel_bytes(original, "in") == CLIENT_BYTES
    log = tmp_path / "stdin.log"
    new = tmp_path / "new.jsonl"
    result = replay(original, rp("--log-stdin", str(log)), output=new, config=False)
    assert result.run.completed, result.render()
    assert log.read_bytes() == CLIENT_BYTES
    assert channel_bytes(new, "in") == CLIENT_BYTES
    # The original client closed stdin at once, so whether the server still answered the last
    # requests depended on timing; replay waits for the answers. Replaying the replay is stable:
    again = replay(new, rp(), output=tmp_path / "again.jsonl", config=False)
    assert channel_bytes(tmp_path / "again.jsonl", "in") == CLIENT_BYTES
    assert again.same, again.render()

"""Re-record the real sessions kept under transcripts/ (run: .venv/bin/python -m tests.record_fixtures).

Each is the official SDK client talking to a real server through the installed `mcptape record`.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from mcp import Client

from tests.clients import sdk_session
from tests.conftest import PYTHON, ROOT, SERVERS

OUT = ROOT / "transcripts"


async def echo_calls(client: Client) -> dict[str, Any]:
    added = await client.call_tool("add", {"a": 2, "b": 40})
    await client.call_tool("echo", {"text": "héllo"})
    return {"add": added.structured_content}


async def time_calls(client: Client) -> dict[str, Any]:
    await client.call_tool("get_current_time", {"timezone": "Europe/Paris"})
    await client.call_tool(
        "convert_time", {"source_timezone": "Europe/Paris", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    )
    return {}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    jobs = [
        ("sdk-echo-tool-stateless.jsonl", [PYTHON, str(SERVERS / "echo_tool.py")], echo_calls, "auto"),
        ("sdk-echo-tool-handshake.jsonl", [PYTHON, str(SERVERS / "echo_tool.py")], echo_calls, "legacy"),
        (
            "mcp-server-time-handshake.jsonl",
            [
                shutil.which("mcp-server-time") or str(Path(PYTHON).parent / "mcp-server-time"),
                "--local-timezone",
                "UTC",
            ],
            time_calls,
            "legacy",
        ),
    ]
    for name, command, script, mode in jobs:
        target = OUT / name
        target.unlink(missing_ok=True)
        sdk_session(command, record_to=target, script=script, mode=mode)
        print(f"recorded {target}", file=sys.stderr)


if __name__ == "__main__":
    main()

"""Helpers for replay over HTTP: the notes server's command line, the SDK session recorded through
`mcptape record --http-upstream` (a real process), `mcptape replay` run as a real process."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, types

from tests import inprocess
from tests.conftest import PYTHON, SERVERS
from tests.recorder.http.helpers import free_port, recording

NOTES = SERVERS / "notes_http.py"


def notes_server(port: int, *flags: str) -> list[str]:
    return [PYTHON, str(NOTES), str(port), *flags]


async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"ok": True})


async def notes_session(url: str, mode: str) -> dict[str, Any]:
    """greet, delete (the server asks first), open_notes, read_notes with its handle, count."""
    async with Client(url, mode=mode, elicitation_callback=accept) as client:
        greeted = await client.call_tool("greet", {"name": "Ada"})
        deleted = await client.call_tool("delete", {"name": "notes.txt"})
        handle = (await client.call_tool("open_notes", {"title": "groceries"})).content[0].text  # type: ignore[union-attr]
        read = await client.call_tool("read_notes", {"handle": handle})
        counted = await client.call_tool("count", {"n": 3})
        return {
            "greet": greeted.content[0].text,  # type: ignore[union-attr]
            "delete": deleted.content[0].text,  # type: ignore[union-attr]
            "handle": handle,
            "read": read.content[0].text,  # type: ignore[union-attr]
            "count": counted.content[0].text,  # type: ignore[union-attr]
        }


@dataclass
class Tape:
    """A recorded HTTP session: the transcript, the port its server listened on, what the client got."""

    path: Path
    port: int
    seen: dict[str, Any]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def record_notes(folder: Path, mode: str) -> Tape:
    """The SDK client against notes_http.py, through `mcptape record --http-upstream URL -- CMD`."""
    port = free_port()
    path = folder / f"notes-{mode}.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", path, notes_server(port)) as rec:
        seen = anyio.run(notes_session, rec.url, mode)
        rec.stop()
    return Tape(path, port, seen)


def mcptape(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """`mcptape ARGS...` (stdin empty) in this process (tests/inprocess.py: its exit code, stdout and
    stderr as the process gives them; the servers a replay starts are real processes; `timeout` is
    pytest's here)."""
    return inprocess.run(*args, text=True)

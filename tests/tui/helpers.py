"""Helpers several viewer tests share: the app on a transcript (`viewer`, at `SIZE`), the model with
its facts (`open_model`), `mcptape view` as a process (`run_view`) and on a pty (`run_in_pty`), the
list's lines of a screen (`list_lines`), records appended to a growing transcript (`append`), and
what the raw bytes of an HTTP exchange say (`expected_cell`, `session_ids`)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path

from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.writer import encode_chunk
from mcptape.tui.app import ViewerApp
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.viewer import ViewerModel
from tests.conftest import console_script
from tests.recorder.http.helpers import exchanges

SIZE = (150, 40)


def viewer(path: Path, **options: object) -> ViewerApp:
    return ViewerApp(TranscriptIndex(path), **options)  # type: ignore[arg-type]


def run_view(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TERM": "dumb"}
    return subprocess.run(
        [console_script(), "view", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def run_in_pty(argv: list[str], until: bytes, keys: bytes, timeout: float = 20.0) -> tuple[int, bytes]:
    """Run `argv` on a pty, type `keys` once `until` was drawn; return (exit code, every byte drawn)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the viewer
        os.environ.update({"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "30"})
        os.execv(argv[0], argv)
    drawn = b""
    sent = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                drawn += chunk
            if not sent and until in drawn:
                os.write(fd, keys)
                sent = True
    finally:
        if not sent:
            os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert sent, f"{until!r} never appeared on the terminal"
    return os.waitstatus_to_exitcode(status), drawn


def list_lines(text: str, first_column: str = "#") -> list[str]:
    """The screen lines from the column header to the detail pane's rule."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(first_column))
    end = next(i for i, line in enumerate(lines) if line.startswith("────"))
    return lines[start : end + 1]


def append(path: Path, *records: tuple[float, str, bytes]) -> None:
    with open(path, "ab") as fh:
        for t, ch, data in records:
            fh.write(encode_chunk(t, ch, data))


def open_model(path: Path) -> ViewerModel:
    index = TranscriptIndex(path)
    index.scan(final=True)
    model = ViewerModel(index)
    facts = collect_facts(index)
    assert facts is not None
    model.set_facts(facts)
    return model


def expected_cell(path: Path, x: int) -> str:
    """`xN METHOD target status kind`, read from the raw bytes by hand (not by the viewer's reader)."""
    request = exchanges(path, "http-in")[x].split(b"\r\n\r\n")[0].split(b"\r\n")
    method, target, _ = request[0].decode().split(" ")
    response = exchanges(path, "http-out")[x].split(b"\r\n\r\n")[0].split(b"\r\n")
    status = response[0].decode().split(" ")[1]
    types = [
        line.split(b":", 1)[1].strip().decode()
        for line in response
        if line.lower().startswith(b"content-type:")
    ]
    kind = (
        {"text/event-stream": "sse", "application/json": "json"}.get(types[0].split(";")[0], "")
        if types
        else ""
    )
    return " ".join(part for part in (f"x{x}", method, target, status, kind) if part)


def session_ids(path: Path) -> dict[int, str]:
    """The Mcp-Session-Id each exchange names, read from the raw heads by hand (request's first)."""
    found: dict[int, str] = {}
    for channel in ("http-out", "http-in"):  # the request's wins: written last
        for x, data in exchanges(path, channel).items():
            for line in data.split(b"\r\n\r\n")[0].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"mcp-session-id":
                    found[x] = value.strip().decode()
    return found

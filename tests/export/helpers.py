"""Helpers for the export tests: transcripts written line by line (the specification's shape), the
CLI run as a real process, a local HTTP listener that records every request it gets, Chromium."""

from __future__ import annotations

import http.server
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from tests import inprocess

STARTED = "2026-12-04T10:00:00.000000Z"
CHROMIUM_INSTALL = "apt-get install -y chromium"


def write_transcript(
    path: Path,
    records: list[dict[str, Any]],
    command: list[str] | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """A transcript: the header (with the fields of `extra`, e.g. `http`), then `records`
    (`{"t", "ch", "data" | fields}`) one per line."""
    header = {
        "mcptape": 1,
        "started": STARTED,
        "command": command or ["python", "server.py"],
        "cwd": "/tmp",
        "recorder": {"name": "mcptape", "version": "0.1.0"},
        **(extra or {}),
    }
    lines = [orjson.dumps(header)] + [orjson.dumps(r) for r in records]
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def line(t: float, ch: str, message: dict[str, Any] | str) -> dict[str, Any]:
    data = message if isinstance(message, str) else orjson.dumps(message).decode() + "\n"
    return {"t": t, "ch": ch, "data": data}


def request(t: float, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return line(t, "in", {"jsonrpc": "2.0", "id": rid, "method": method, "params": params})


def answer(t: float, rid: int, result: dict[str, Any]) -> dict[str, Any]:
    return line(t, "out", {"jsonrpc": "2.0", "id": rid, "result": result})


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def tool_session() -> list[dict[str, Any]]:
    """A handshake, a good tools/call with an action, a refused tools/call followed by an action
    naming it (exec-after-reject), a result with isError, a debug line on stdout
    (non-protocol-output), then the exit."""
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    server = {"name": "s", "version": "1"}
    refused = {"code": -32602, "message": "branch must be a string"}
    return [
        request(0.01, 1, "initialize", hello),
        answer(
            0.02, 1, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": server}
        ),
        line(0.03, "in", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        request(0.10, 2, "tools/call", call("deploy", branch="main")),
        line(0.11, "exec", {"action": "deploy-preview", "request_id": 2, "kind": "create"}),
        answer(0.12, 2, {"content": [{"type": "text", "text": "ok"}]}),
        request(0.20, 3, "tools/call", call("deploy", branch=5)),
        line(0.21, "exec", {"action": "deploy-preview", "request_id": 3}),
        line(0.22, "out", {"jsonrpc": "2.0", "id": 3, "error": refused}),
        request(0.30, 4, "tools/call", call("fail")),
        answer(0.31, 4, {"content": [], "isError": True}),
        line(0.40, "out", "debug: still here\n"),
        {"t": 0.5, "ch": "eof", "of": "in"},
        {"t": 0.6, "ch": "exit", "code": 0, "signal": None},
    ]


def export(*args: str, timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """`mcptape export ARGS...` in this process (tests/inprocess.py: its exit code and output as a
    real process gives them; `timeout` is pytest's here)."""
    return inprocess.run("export", *args, text=True)


@dataclass
class Listener:
    """A local HTTP server: every request it got (method, path, body), answered with `status`."""

    url: str
    requests: list[tuple[str, str, bytes, dict[str, str]]] = field(default_factory=list)


@contextmanager
def listener(status: int = 200) -> Iterator[Listener]:
    got = Listener("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def _any(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(size) if size else b""
            got.requests.append((self.command, self.path, body, dict(self.headers.items())))
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        do_GET = do_POST = do_PUT = do_HEAD = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    got.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        server.shutdown()
        server.server_close()


def chromium() -> str:
    """The headless browser the HTML tests render in (they fail, never skip, without it)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, f"Chromium is needed to render the HTML report: {CHROMIUM_INSTALL}"
    return found


def _browser(page: Path, *, javascript: bool) -> list[str]:
    """Chromium's arguments, with a profile of its own; JavaScript off is the profile's content
    setting (as a user turns it off: `--blink-settings=scriptEnabled=false` also stops what
    `--dump-dom` and `--screenshot` run, so they give nothing)."""
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=page.parent))
    if not javascript:
        (profile / "Default").mkdir()
        settings = {"profile": {"default_content_setting_values": {"javascript": 2}}}
        (profile / "Default" / "Preferences").write_bytes(orjson.dumps(settings))
    args = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
    return [*args, "--disable-background-networking", f"--user-data-dir={profile}"]


def dump_dom(page: Path, *, javascript: bool, timeout: float = 90.0) -> str:
    """The DOM Chromium built from `page` (after its scripts ran, when JavaScript is on)."""
    done = subprocess.run(
        [*_browser(page, javascript=javascript), "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0 and done.stdout, done.stderr[-2000:]
    return done.stdout

"""Real processes for serve's tests: the SDK client script, `mcptape record`, `mcptape serve` and
`mcptape serve --listen` (`listening`)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import SERVERS, console_script

HERE = Path(__file__).resolve().parent
SDK_CLIENT = HERE / "sdk_client.py"
PYTHON = sys.executable


def time_server() -> list[str]:
    return [str(Path(PYTHON).parent / "mcp-server-time")]


def python_server(name: str) -> list[str]:
    return [PYTHON, str(SERVERS / name)]


def record(path: Path, server: list[str]) -> list[str]:
    """`server` wrapped in `mcptape record` (what a client config runs)."""
    return [console_script(), "record", "-q", "-o", str(path), "--", *server]


def serve(*args: str | Path) -> list[str]:
    return [console_script(), "serve", *map(str, args)]


def client(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """Run the SDK client script: its options, then the server command (the client-probe convention)."""
    return subprocess.run([PYTHON, str(SDK_CLIENT), *map(str, args)], capture_output=True, timeout=timeout)


def mcptape(*args: str | Path, stdin: bytes = b"", timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [console_script(), *map(str, args)], input=stdin, capture_output=True, timeout=timeout
    )


LISTENING = re.compile(r"listening on (http://\S+)")


@contextmanager
def listening(tape: Path, tmp: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """`mcptape serve TAPE --listen 127.0.0.1:0 EXTRA...`: its URL, the process, its stderr file."""
    err = tmp / "serve.stderr"
    with open(err, "wb") as sink:
        proc = subprocess.Popen(
            [console_script(), "serve", str(tape), "--listen", "127.0.0.1:0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    deadline = time.monotonic() + 30
    url = None
    while url is None and time.monotonic() < deadline and proc.poll() is None:
        found = LISTENING.search(err.read_text())
        url = found.group(1) if found else None
        time.sleep(0.05)
    try:
        assert url is not None, err.read_text()
        yield url, proc, err
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)

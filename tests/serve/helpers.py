"""Real processes for serve's tests: the SDK client script, `mcptape record` and `mcptape serve`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import console_script

HERE = Path(__file__).resolve().parent
SDK_CLIENT = HERE / "sdk_client.py"
PYTHON = sys.executable


def time_server() -> list[str]:
    return [str(Path(PYTHON).parent / "mcp-server-time")]


def python_server(name: str) -> list[str]:
    return [PYTHON, str(HERE / name)]


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

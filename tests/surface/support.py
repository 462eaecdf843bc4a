"""Helpers for the tool-surface tests: the real servers' command lines and `mcptape tools` as a
real process."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests import inprocess
from tests.conftest import NODE_DIR, PYTHON, SERVERS, console_script, server_everything

WEATHER = SERVERS / "weather.py"
VENV_BIN = Path(PYTHON).parent


def weather(variant: str = "base") -> list[str]:
    """The SDK weather server of `tests/servers/weather.py`, in one of its variants, on stdio."""
    return [PYTHON, str(WEATHER), variant]


def node_server(name: str, *args: str) -> list[str]:
    script = NODE_DIR / "node_modules" / "@modelcontextprotocol" / name / "dist" / "index.js"
    node = shutil.which("node")
    assert node and script.exists(), "run ./dev.sh test to install the npm test servers"
    return [node, str(script), *args]


def real_server(name: str, scratch: Path) -> list[str]:
    """A real server's command line: mcp-server-time, server-everything, -memory, -filesystem."""
    if name == "mcp-server-time":
        return [str(VENV_BIN / "mcp-server-time")]
    if name == "server-everything":
        return server_everything()
    if name == "server-filesystem":
        scratch.mkdir(exist_ok=True)
        return node_server(name, str(scratch))
    return node_server(name)


def tools(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`mcptape tools ARGS...` (stdin closed), its output as text: a real process when it starts a
    server (`-- SERVER` or `--url`), else in this process (tests/inprocess.py: files in, files out)."""
    if "--" not in args and "--url" not in args:
        return inprocess.run("tools", *args, cwd=cwd, text=True)
    return subprocess.run(
        [console_script(), "tools", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )

"""Shared fixtures: paths to the interpreter, the installed console script and the test servers."""

from __future__ import annotations

import shutil
import signal
import sys
from pathlib import Path

import pytest

# A suite started as a background job of a non-interactive shell (`./dev.sh test &`, some CI
# runners) inherits SIGINT ignored, and so would every recorder and server it starts: the tests
# that stop them with SIGINT (as a user's Ctrl-C does) would wait for ever. Start from the
# disposition a terminal gives.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = Path(__file__).resolve().parent.parent
SERVERS = Path(__file__).resolve().parent / "servers"
NODE_DIR = Path(__file__).resolve().parent / "node"
PYTHON = sys.executable


def console_script() -> str:
    """The installed `mcptape` script next to this interpreter (what an MCP client would run)."""
    candidate = Path(sys.executable).parent / "mcptape"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("mcptape")
    assert found, "the mcptape console script is not installed (run ./dev.sh test)"
    return found


def server_everything() -> list[str]:
    """The command line of @modelcontextprotocol/server-everything on stdio (installed by dev.sh)."""
    script = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    node = shutil.which("node")
    assert node and script.exists(), "run ./dev.sh test to install the npm test servers (needs node and npm)"
    return [node, str(script), "stdio"]


@pytest.fixture
def mcptape_bin() -> str:
    return console_script()


@pytest.fixture
def echo_server() -> list[str]:
    return [PYTHON, str(SERVERS / "echo_tool.py")]

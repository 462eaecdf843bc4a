"""Shared fixtures: paths to the interpreter, the installed console script and the test servers."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

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

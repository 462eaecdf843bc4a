"""mcptape's demo server (src/mcptape/demo/server.py: its tools, flags, stderr line, banner and tap
lines, its very code) run on tests/servers/lite.py instead of the SDK, for tests whose subject is
not the SDK server (the docs' sandbox in tests/docs/test_shell_blocks.py). It starts in 0.05 s of
CPU instead of 0.8. `python demo_server.py [--buggy | --changed]`, as `python -m mcptape.demo.server`.

What differs from the real one: lite exits at the end of its stdin (the SDK's server outlives it
until a SIGTERM), and writes no log line for a failed tool call on stderr.
"""

from __future__ import annotations

import runpy
import sys
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # run as a script: `tests` from the root
from tests.servers import lite


def as_sdk() -> None:
    """Make `from mcp.server.mcpserver import Context, MCPServer` and `from
    mcp.server.mcpserver.exceptions import ToolError` give lite's (the SDK is not imported)."""
    names: dict[str, dict[str, Any]] = {
        "mcp": {},
        "mcp.server": {},
        "mcp.server.mcpserver": {"MCPServer": lite.MCPServer, "Context": lite.Context},
        "mcp.server.mcpserver.exceptions": {"ToolError": lite.ToolError},
    }
    for name, attributes in names.items():
        module = types.ModuleType(name)
        vars(module).update(attributes)
        sys.modules[name] = module


if __name__ == "__main__":
    as_sdk()
    runpy.run_module("mcptape.demo.server", run_name="__main__", alter_sys=True)

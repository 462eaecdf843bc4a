"""mcptape: record, replay, check and inspect the raw traffic of MCP stdio sessions.

This package's face, at the top of the house: its version, and `mcptape.replay(path, command)`.
Modules of the package import `mcptape.version`, never this module's names.
"""

from __future__ import annotations

from mcptape.version import __version__ as __version__

# No `typing` at run time: `mcptape record` imports this package before it spawns the server,
# and typing alone costs ~4-8 ms there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mcptape.replay.api import replay as replay


def __getattr__(name: str) -> Any:
    """`mcptape.replay(path, command)` without importing replay's code on `import mcptape`."""
    if name == "replay":
        import importlib

        return importlib.import_module("mcptape.replay")
    raise AttributeError(f"module 'mcptape' has no attribute {name!r}")

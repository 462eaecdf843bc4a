"""mcptape: record, check, replay, serve and inspect the raw traffic of MCP sessions.

This package's face, at the top of the house: its version, and `mcptape.replay(path, command)`.
Modules of the package import `mcptape.version`, never this module's names.
"""

from __future__ import annotations

# No `typing` at run time: `mcptape record` imports this package before it spawns the server,
# and typing alone costs ~4-8 ms there.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from mcptape.replay.api import replay as replay
    from mcptape.version import __version__ as __version__


def __getattr__(name: str) -> Any:
    """`mcptape.replay(path, command)` and `mcptape.__version__`, imported on first use: `import
    mcptape.tap` (in a server under test) loads no other module of mcptape."""
    if name == "replay":
        import importlib

        return importlib.import_module("mcptape.replay")
    if name == "__version__":
        from mcptape.version import __version__

        return __version__
    raise AttributeError(f"module 'mcptape' has no attribute {name!r}")

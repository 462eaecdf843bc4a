"""mcptape: record, replay, check and inspect the raw traffic of MCP stdio sessions."""

__version__ = "0.1.0"

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcptape.replay.api import replay as replay


def __getattr__(name: str) -> Any:
    """`mcptape.replay(path, command)` without importing replay's code on `import mcptape`."""
    if name == "replay":
        import importlib

        return importlib.import_module("mcptape.replay")
    raise AttributeError(f"module 'mcptape' has no attribute {name!r}")

"""Package attributes imported on first use (PEP 562), so `import mcptape.x` stays cheap.

No `typing` at run time: `mcptape.transcript` uses this before `mcptape record` spawns the server.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def lazy_attributes(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` that imports `where[name]` (a module path) and returns its `name`."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        return getattr(importlib.import_module(module), name)

    return __getattr__

"""Only the viewer's Textual side imports textual (and rich): every other module stays headless,
the viewer's model (`mcptape.tui.model`) included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import mcptape

pytestmark = pytest.mark.slow

PACKAGE = Path(mcptape.__file__).parent

# Modules that speak MCP through the official SDK, which loads rich itself: the bundled demo server
# (a separate process that `mcptape demo` starts, never imported by a command). Still no textual.
SDK_SERVERS = ["mcptape.demo.server"]


def module_names() -> list[str]:
    """Every module under src/mcptape, by dotted name (a package by its own name)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def is_viewer(name: str) -> bool:
    """The Textual side of the viewer: `mcptape.tui` but its headless model (`mcptape.tui.model`)."""
    if name == "mcptape.tui.model" or name.startswith("mcptape.tui.model."):
        return False
    return name == "mcptape.tui" or name.startswith("mcptape.tui.")


def headless_modules() -> list[str]:
    """Every module but the viewer's Textual side and `__main__` (importing it runs mcptape)."""
    return [name for name in module_names() if name != "mcptape.__main__" and not is_viewer(name)]


HEADLESS = [name for name in headless_modules() if name not in SDK_SERVERS]


def test_the_walk_finds_every_headless_module() -> None:
    """The list is walked from the package, so a new module is checked without anyone adding it."""
    assert len(HEADLESS) > 60
    for name in ("mcptape.cli", "mcptape.check.analyze", "mcptape.commands.view", "mcptape.diff.sessions"):
        assert name in HEADLESS
    assert "mcptape.tui.model.viewer" in HEADLESS
    assert not any(is_viewer(name) for name in HEADLESS) and "mcptape.tui.app" not in HEADLESS


def test_headless_modules_import_neither_textual_nor_rich() -> None:
    """Importing every module but the viewer's Textual side in a fresh interpreter loads no textual
    and no rich; the demo server (which runs the MCP SDK) loads no textual either."""
    code = (
        "import importlib, sys\n"
        "heavy = {'textual', 'rich'}\n"
        f"for name in {HEADLESS!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
        f"for name in {SDK_SERVERS!r}:\n"
        "    importlib.import_module(name)\n"
        "print('textual' in {m.split('.')[0] for m in sys.modules})\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "False"]


def test_the_viewer_does_import_textual() -> None:
    """The check above can fail: the viewer's app module really loads textual."""
    code = "import sys, mcptape.tui.app; print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "True", result.stderr

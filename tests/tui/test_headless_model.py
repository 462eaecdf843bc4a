"""The viewer's model is headless: `mcptape.tui.model` imports neither textual nor rich, so what the
screens show can be computed (and tested) without a terminal."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import mcptape.tui.model


def model_modules() -> list[str]:
    """Every module of the model package, walked from the package (a new one is checked too)."""
    package = mcptape.tui.model
    return [package.__name__] + [
        info.name for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + ".")
    ]


def loaded_after_importing(names: list[str]) -> list[str]:
    """The heavy packages a fresh interpreter has loaded after importing `names`."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'})))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stdout)
    return loaded


def test_the_walk_finds_the_model_modules() -> None:
    """The list holds the viewer model, the row facts, the time order, what a row says, the landing
    and the diff rows."""
    names = model_modules()
    for name in ("viewer", "facts", "order", "rows", "essence", "landing", "diffrows", "detail"):
        assert f"mcptape.tui.model.{name}" in names
    assert not any(name.startswith(("mcptape.tui.widgets", "mcptape.tui.app")) for name in names)


def test_the_model_imports_neither_textual_nor_rich() -> None:
    """Importing every model module in a fresh interpreter loads no textual and no rich."""
    assert loaded_after_importing(model_modules()) == []


def test_the_check_can_fail() -> None:
    """The same check sees textual when a widget module is imported (the worker messages are Textual's)."""
    assert loaded_after_importing(["mcptape.tui.messages"]) == ["rich", "textual"]

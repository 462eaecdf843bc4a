"""Only the viewer imports textual (and rich): every other command's modules stay headless."""

from __future__ import annotations

import subprocess
import sys

HEADLESS = [
    "mcptape.cli",
    "mcptape.check.analyze",
    "mcptape.check.report",
    "mcptape.commands.check",
    "mcptape.replay.api",
    "mcptape.commands.replay",
    "mcptape.replay.pytest_plugin",
    "mcptape.commands.probe",
    "mcptape.commands.share",
    "mcptape.harness",
    "mcptape.commands.demo",
    "mcptape.transcript.index",
    "mcptape.tap",
]


def test_headless_modules_import_neither_textual_nor_rich() -> None:
    """Importing every non-TUI command module in a fresh interpreter loads no textual and no rich."""
    code = (
        "import importlib, sys\n"
        f"for name in {HEADLESS!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_viewer_does_import_textual() -> None:
    """The check above can fail: the viewer's app module really loads textual."""
    code = "import sys, mcptape.tui.app; print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "True", result.stderr

"""The diff viewer's help describes the diff viewer, and a keymap rebinds its keys as it does the viewer's."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.replay.api import diff_files
from mcptape.tui.bindings import load_keymap
from mcptape.tui.diff_app import DiffApp
from mcptape.tui.screens.help import HelpScreen
from tests.tui.conftest import screen_text
from tests.tui.helpers import run_view
from tests.tui.transcripts import forecast_session

pytestmark = pytest.mark.slow


def diff_app(tmp_path: Path) -> DiffApp:
    old = forecast_session(tmp_path / "old.jsonl", sky="sunny")
    new = forecast_session(tmp_path / "new.jsonl", sky="rainy", version="1.1")
    return DiffApp(diff_files(old, new), old.name, new.name)


async def test_diff_help_explains_the_row_marks_not_the_viewers_styles(tmp_path: Path) -> None:
    """`?` in the diff viewer lists its bindings, the = ≠ + − marks, and a keymap example it accepts."""
    app = diff_app(tmp_path)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "diff.next" in text and "≠ changed" in text and "+ only in NEW" in text
        assert "exec-after-reject" not in text and '"finding.next"' not in text
        assert '"diff.next" = ' in text


async def test_a_keymap_rebinds_diff_keys(tmp_path: Path) -> None:
    """A keymap mapping `diff.next` to `z` is accepted and moves the diff cursor to the next difference."""
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keymap]\n"diff.next" = "z"\n')
    keys = load_keymap(keymap)
    app = diff_app(tmp_path)
    app.set_keymap(keys)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        first = app.pairs_list.current_row
        await pilot.press("z")
        row = app.pairs_list.current_row
        assert row is not None and row != first and app.diff.pairs[row].scope == "tools/call"


def test_view_old_new_reads_the_keymap(tmp_path: Path) -> None:
    """`mcptape view --keymap FILE OLD NEW` refuses a bad keymap like the single viewer (it was ignored)."""
    old = forecast_session(tmp_path / "old.jsonl", sky="sunny")
    new = forecast_session(tmp_path / "new.jsonl", sky="rainy")
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keymap]\n"no.such" = "z"\n')
    result = run_view("--keymap", str(keymap), str(old), str(new))
    assert result.returncode == 2 and "unknown binding id 'no.such'" in result.stderr

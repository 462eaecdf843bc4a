"""The diff viewer: two sessions side by side, aligned by replay's diff, opening on a difference."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mcptape.replay.api import diff_files
from mcptape.tui.diff_app import DiffApp
from tests.tui.conftest import screen_text
from tests.tui.helpers import run_view
from tests.tui.transcripts import forecast_session

pytestmark = pytest.mark.slow

SnapCompare = Callable[..., bool]


def diff_app(tmp_path: Path) -> DiffApp:
    old = forecast_session(tmp_path / "old.jsonl", sky="sunny")
    new = forecast_session(tmp_path / "new.jsonl", sky="rainy", extra_log=True, version="1.1")
    return DiffApp(diff_files(old, new), old.name, new.name)


async def test_the_diff_opens_on_the_first_differing_pair(tmp_path: Path) -> None:
    """The cursor starts on the initialize response (serverInfo.version changed) and `]` goes on."""
    app = diff_app(tmp_path)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        pairs = app.diff.pairs
        row = app.pairs_list.current_row
        assert row is not None and pairs[row].scope == "initialize"
        text = screen_text(app)
        assert "changed result.serverInfo.version" in text and '"1.0" → "1.1"' in text
        assert "cursor: first differing pair" in text
        await pilot.press("right_square_bracket")
        row = app.pairs_list.current_row
        assert row is not None and pairs[row].scope == "tools/call"
        text = screen_text(app)
        assert "changed result.content[0].text" in text and '"sunny" → "rainy"' in text
        assert "non-protocol stdout lines only in NEW" in text and "cache miss for Lyon" in text


async def test_differences_only_hides_the_same_pairs(tmp_path: Path) -> None:
    """`f` keeps only the differing pairs and keeps the cursor on its pair."""
    app = diff_app(tmp_path)
    async with app.run_test(size=(150, 40)) as pilot:
        await pilot.pause()
        await pilot.press("f")
        view = app.pairs_list.view
        assert [app.diff.pairs[view.row(i)].scope for i in range(len(view))] == ["initialize", "tools/call"]


def test_diff_viewer_snapshot(tmp_path: Path, snap_compare: SnapCompare) -> None:
    """The diff viewer on the tools/call pair whose answer changed."""
    assert snap_compare(diff_app(tmp_path), terminal_size=(150, 34), press=["right_square_bracket"])


def test_view_with_two_files_refuses_an_unreadable_one(tmp_path: Path) -> None:
    """`mcptape view OLD NEW` with a missing NEW is one Error: line and exit 2."""
    old = forecast_session(tmp_path / "old.jsonl", sky="sunny")
    result = run_view(str(old), str(tmp_path / "missing.jsonl"))
    assert (
        result.returncode == 2 and result.stderr.startswith("Error: ") and "does not exist" in result.stderr
    )
    assert len(result.stderr.splitlines()) == 1

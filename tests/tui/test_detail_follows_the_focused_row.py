"""The detail pane always describes a row the user can see: the focused list's row, or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.transcripts import banner_session

pytestmark = pytest.mark.slow

SIZE = (150, 40)


async def test_a_filter_that_matches_nothing_says_so_in_the_detail_pane(tmp_path: Path) -> None:
    """A method filter with no match empties the list, and the detail pane no longer shows the old row."""
    app = ViewerApp(TranscriptIndex(banner_session(tmp_path / "banner.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("m", *"resources/read", "enter")
        await pilot.pause()
        assert len(app.messages.view) == 0
        text = screen_text(app)
        assert "row 5 ·" not in text and "no row matches the filters" in text
        await pilot.press("m", "ctrl+u", "enter")
        await pilot.pause()
        assert "row 5 ·" in screen_text(app)


async def test_tab_to_the_stderr_pane_shows_its_row(tmp_path: Path) -> None:
    """With stderr in its own pane, moving the focus there shows the stderr row, and back again."""
    app = ViewerApp(TranscriptIndex(banner_session(tmp_path / "banner.jsonl")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e", "tab")
        await pilot.pause()
        assert app.focused is app.stderr_list
        assert "row 7 · err" in screen_text(app)
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.focused is app.messages and "row 5 · out" in screen_text(app)


async def test_follow_growth_keeps_the_stderr_row_in_the_detail_pane(tmp_path: Path) -> None:
    """Watching the stderr pane of a live session: new rows do not switch the detail to the timeline."""
    path = banner_session(tmp_path / "live.jsonl")
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e", "tab")
        await pilot.pause()
        assert "row 7 · err" in screen_text(app)
        with open(path, "ab") as fh:
            fh.write(b'{"t":0.5,"ch":"err","data":"WARN slow upstream\\n"}\n')
        await wait_for(pilot, lambda: len(app.index) == 12)
        await settle(pilot)
        assert app.focused is app.stderr_list and "row 7 · err" in screen_text(app)

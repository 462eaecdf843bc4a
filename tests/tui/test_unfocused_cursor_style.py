"""Only the focused list draws its cursor in the focused style: moving the focus redraws both cursors."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.widgets.message_list import MessageList
from tests.tui.conftest import settle
from tests.tui.transcripts import banner_session

pytestmark = pytest.mark.slow


def cursor_background(messages: MessageList) -> object:
    """The background the list draws its cursor row with, as the screen gets it."""
    strip = messages.render_line(messages.cursor - round(messages.scroll_offset.y))
    style = next(iter(strip)).style
    assert style is not None
    return style.bgcolor


async def test_the_cursor_of_a_list_that_lost_the_focus_is_drawn_dimmed(tmp_path: Path) -> None:
    """After tab to the stderr pane, the timeline's cursor row is drawn in the unfocused cursor style."""
    app = ViewerApp(TranscriptIndex(banner_session(tmp_path / "banner.jsonl")))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        messages = app.messages
        focused = messages.get_component_rich_style("message-list--cursor").bgcolor
        assert cursor_background(messages) == focused
        await pilot.press("e", "tab")
        await pilot.pause()
        assert app.focused is app.stderr_list
        unfocused = messages.get_component_rich_style("message-list--cursor").bgcolor
        assert unfocused != focused
        assert cursor_background(messages) == unfocused  # it kept the focused background
        assert cursor_background(app.stderr_list) == focused

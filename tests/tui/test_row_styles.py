"""Row styles reach the terminal: the cursor row and each row kind are drawn in their own colours."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style
from textual.strip import Strip

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.widgets.message_list import MessageList
from tests.tui.conftest import settle
from tests.tui.transcripts import exec_after_reject_session

pytestmark = pytest.mark.slow


def strip_style(strip: Strip) -> Style:
    """The style of the first cell of a rendered row."""
    return next(iter(strip)).style or Style.null()


def line_of(messages: MessageList, row: int) -> Strip:
    """The strip the list draws for transcript row `row` (on screen)."""
    return messages.render_line(messages.view.position(row) - round(messages.scroll_offset.y))


async def test_cursor_and_exec_after_reject_rows_are_drawn_in_their_styles(tmp_path: Path) -> None:
    """The cursor row has the cursor background and an executor call after a reject its red background."""
    app = ViewerApp(TranscriptIndex(exec_after_reject_session(tmp_path / "deploy.jsonl")))
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        messages = app.messages
        cursor = messages.get_component_rich_style("message-list--cursor")
        alarm = messages.get_component_rich_style("message-list--exec-after-reject")
        nonprotocol = messages.get_component_rich_style("message-list--nonprotocol")
        assert messages.current_row == 3
        assert strip_style(line_of(messages, 3)).bgcolor == cursor.bgcolor
        exec_row = next(r for r in range(len(app.index)) if app.model.describe(r).kind == "exec-after-reject")
        drawn = strip_style(line_of(messages, exec_row))
        assert drawn.bgcolor == alarm.bgcolor and drawn.bgcolor != messages.rich_style.bgcolor
        assert drawn.bold
        messages.select_row(0)
        await pilot.pause()
        banner = strip_style(line_of(messages, 3))
        assert banner.color == nonprotocol.color and banner.bold

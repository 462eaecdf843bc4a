"""The cursor row is on screen when the cursor lands, however busy the event loop is.

Under CPU load the workers' messages are handled back to back, before the list is laid out again
(or before its first layout): a landing then came with rows the list's scroll range did not know
yet, the scroll was dropped, and the detail pane showed row 302 while the list showed rows 1-20
until a key was pressed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.model.rowview import RowView
from mcptape.tui.widgets.message_list import MessageList
from tests.tui.conftest import screen_text
from tests.tui.transcripts import handshake, ok, req, write

pytestmark = pytest.mark.slow

BANNER_ROW = 301  # the 302nd row: far below the first screen of rows


def banner_far_down(path: Path) -> Path:
    """149 pings answered after a clean handshake, then a banner on stdout, then 50 more pings."""
    events = handshake()
    t = 0.01
    for rid in range(1, 200):
        if rid == 150:
            events.append(Event(t, "out", text="Weather server v2.1 listening (debug=on)\n"))
        events += [req(t, rid, "ping"), ok(t + 0.0001, rid)]
        t += 0.001
    return write(path, events)


@asynccontextmanager
async def busy_loop(slice_seconds: float) -> AsyncIterator[None]:
    """A task that holds the event loop in `slice_seconds` slices (a machine under CPU load)."""
    stop = asyncio.Event()

    async def hog() -> None:
        while not stop.is_set():
            time.sleep(slice_seconds)
            await asyncio.sleep(0)

    task = asyncio.create_task(hog())
    try:
        yield
    finally:
        stop.set()
        await task


def on_screen(lst: MessageList, position: int) -> bool:
    top = round(lst.scroll_offset.y)
    return (
        lst.scrollable_content_region.height > 0
        and top <= position < top + lst.scrollable_content_region.height
    )


@pytest.mark.parametrize("follow", [False, True], ids=["file", "follow"])
async def test_the_cursor_row_is_on_screen_when_it_lands_under_a_busy_loop(
    tmp_path: Path, follow: bool
) -> None:
    """With the loop hogged in 5 ms slices from the start, the banner row is on screen the moment
    the cursor lands on it, and stays there."""
    path = banner_far_down(tmp_path / "banner.jsonl")
    async with busy_loop(0.005):
        app = ViewerApp(TranscriptIndex(path), follow=follow, poll=0.05)
        async with app.run_test(size=(150, 40)) as pilot:
            lst = app.messages
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 10
            while lst.current_row != BANNER_ROW:  # every turn of the loop: the moment it lands
                assert loop.time() < deadline, "the cursor never landed on the banner"
                await asyncio.sleep(0)
            assert on_screen(lst, lst.cursor), (lst.cursor, lst.scroll_offset.y)
            await pilot.pause(0.1)
            assert lst.current_row == BANNER_ROW and on_screen(lst, lst.cursor)
            shown = [line for line in screen_text(app).splitlines() if "Weather server v2.1" in line]
            assert any(line.lstrip().startswith(f"{BANNER_ROW + 1} ") for line in shown)


class OneList(App[None]):
    """A message list whose rows arrive later, as the index worker's do."""

    def __init__(self) -> None:
        super().__init__()
        self.rows = 0

    def compose(self) -> ComposeResult:
        yield MessageList(lambda row, width: (f"row {row + 1}", "protocol"), RowView(lambda: self.rows))


async def test_a_landing_in_the_same_turn_as_its_rows_is_on_screen() -> None:
    """300 rows arrive and the cursor lands on row 151 before any layout: the list scrolls there."""
    app = OneList()
    async with app.run_test(size=(80, 20)) as pilot:
        lst = app.query_one(MessageList)
        await pilot.pause()
        app.rows = 300
        lst.sync_size()
        lst.select_row(150)
        assert on_screen(lst, 150)
        await pilot.pause()
        assert lst.cursor == 150 and on_screen(lst, 150)


class LandsOnMount(OneList):
    """The rows are known and the cursor lands while the list is mounted, before any layout."""

    def on_mount(self) -> None:
        lst = self.query_one(MessageList)
        self.rows = 300
        lst.sync_size()
        lst.select_row(200)


async def test_a_landing_before_the_first_layout_is_on_screen_once_laid_out() -> None:
    """A landing given before the list has any height is shown as soon as it has one."""
    app = LandsOnMount()
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        lst = app.query_one(MessageList)
        assert lst.cursor == 200 and on_screen(lst, 200)

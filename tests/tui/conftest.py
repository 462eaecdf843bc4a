"""Helpers for driving the viewer headless: open a transcript, wait until the check has run."""

from __future__ import annotations

import asyncio
import re
from html import unescape

from textual.app import App
from textual.pilot import Pilot

from mcptape.tui.app import ViewerApp


async def settle(pilot: Pilot[None], timeout: float = 10.0) -> None:
    """Wait until the index is built and the check core's results are on screen."""
    app = pilot.app
    assert isinstance(app, ViewerApp)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while app.busy:
        assert loop.time() < deadline, "the viewer did not finish indexing and checking in time"
        await pilot.pause(0.01)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def wait_for(pilot: Pilot[None], condition: object, timeout: float = 5.0) -> None:
    """Pause until `condition()` is true (for results delivered by a worker thread)."""
    assert callable(condition)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await pilot.pause(0.01)
    await pilot.pause()


def screen_text(app: App[None]) -> str:
    """What the terminal shows right now, as plain text (from the SVG screenshot's text runs)."""
    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), unescape(m.group(3))))
    return "\n".join(
        "".join(t for _, t in sorted(runs)).replace("\xa0", " ") for _, runs in sorted(rows.items())
    )

"""An event on a channel this version does not know still shows the bytes it carries."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import forecast_session

pytestmark = pytest.mark.slow


async def test_bytes_on_an_unknown_channel_are_shown(tmp_path: Path) -> None:
    """A `zzz` event with data shows that data in its row and in the detail pane (it showed `{}`)."""
    path = forecast_session(tmp_path / "newer.jsonl", sky="sunny")
    lines = path.read_bytes().split(b"\n")
    lines[4:4] = [b'{"t":0.3,"ch":"zzz","data":"hidden \\u001b[2J payload\\n"}']
    path.write_bytes(b"\n".join(lines))
    app = ViewerApp(TranscriptIndex(path))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        app.messages.select_row(3)
        await pilot.pause()
        text = screen_text(app)
        assert text.count(r"hidden \x1b[2J payload\n") == 2  # the row's raw column and the detail pane

"""--follow: new rows do not move what the user is reading in the detail pane (docs/viewer.md: 'the
selected row and the scroll position do not move')."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import settle, wait_for
from tests.tui.helpers import append
from tests.tui.transcripts import handshake, ok, req, write

pytestmark = pytest.mark.slow


async def test_growth_keeps_the_detail_pane_where_it_was_scrolled(tmp_path: Path) -> None:
    """Reading the middle of a long response while following: a new stderr row leaves the pane scrolled."""
    body = ",".join(f'{{"type":"text","text":"line {i}"}}' for i in range(200))
    events = [*handshake(), req(0.01, 1, "tools/call", '{"name":"x","arguments":{}}')]
    events.append(ok(0.02, 1, f'{{"content":[{body}]}}'))
    path = write(tmp_path / "live.jsonl", events)
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        await pilot.press("G")  # the long response
        await pilot.pause()
        app.detail.scroll_to(y=50, animate=False)
        await pilot.pause()
        assert app.detail.scroll_y == 50
        append(path, (0.03, "err", b"INFO tick\n"))
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 6)
        await settle(pilot)
        assert app.messages.current_row == 4
        assert app.detail.scroll_y == 50

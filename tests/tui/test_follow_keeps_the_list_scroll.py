"""--follow: new rows leave the list where the user scrolled it (docs/viewer.md: 'the selected row
and the scroll position do not move'); it snapped back to the cursor at every growth."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import settle, wait_for
from tests.tui.helpers import append
from tests.tui.transcripts import handshake, write

pytestmark = pytest.mark.slow


async def test_growth_keeps_the_lists_scroll_position(tmp_path: Path) -> None:
    """Scrolled 200 rows down (mouse wheel: the cursor stays on row 1), a new row does not scroll back up."""
    events = [*handshake(), *(Event(0.01 + i * 1e-4, "err", text=f"log {i}\n") for i in range(300))]
    path = write(tmp_path / "live.jsonl", events)
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        app.messages.scroll_to(y=200, animate=False)
        await pilot.pause()
        assert app.messages.scroll_offset.y == 200 and app.messages.current_row == 0
        append(path, (0.5, "err", b"tick\n"))
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 304)
        await settle(pilot)
        assert app.messages.current_row == 0
        assert app.messages.scroll_offset.y == 200

"""An empty stderr pane says it has no stderr line, not that filters (which it ignores) hide rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import forecast_session

pytestmark = pytest.mark.slow


async def test_focusing_an_empty_stderr_pane_does_not_blame_the_filters(tmp_path: Path) -> None:
    """A session without stderr: e then tab shows that the pane is empty, not 'no row matches the filters'."""
    app = ViewerApp(TranscriptIndex(forecast_session(tmp_path / "f.jsonl", sky="sunny")))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        await pilot.press("e", "tab")
        await pilot.pause()
        assert app.focused is app.stderr_list
        text = screen_text(app)
        assert "no row matches the filters" not in text and "no stderr line" in text

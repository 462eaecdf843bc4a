"""Unreadable transcript lines are not 'protocol': the header counts them and the cursor goes to the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import forecast_session

pytestmark = pytest.mark.slow


async def test_a_clean_session_with_damaged_lines_opens_on_the_first_one(tmp_path: Path) -> None:
    """Two lines that are not events: the verdict says so and the cursor is on the first, not on row 1."""
    path = forecast_session(tmp_path / "damaged.jsonl", sky="sunny")
    lines = path.read_bytes().split(b"\n")
    lines[4:4] = [b'{"t":0.1,"ch":"out","data":"cut', b"\xff\xfe not a record"]
    path.write_bytes(b"\n".join(lines))
    app = ViewerApp(TranscriptIndex(path))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        assert app.messages.current_row == 3
        header = screen_text(app).splitlines()[:3]
        assert "clean (no findings) · 2 transcript lines unreadable" in header[1]
        assert header[2].strip().startswith("cursor: first unreadable transcript line (row 4)")
        assert "every line is protocol" not in header[2]

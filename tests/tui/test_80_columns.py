"""On an 80-column terminal the lists still show what matters: the bytes of each row, both diff sides."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.replay.api import diff_files
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.diff_app import DiffApp
from mcptape.tui.model.rows import RowInfo, layout_for, row_text
from tests.tui.conftest import screen_text, settle
from tests.tui.helpers import list_lines
from tests.tui.transcripts import banner_session, forecast_session

pytestmark = pytest.mark.slow


async def test_rows_show_their_bytes_at_80_columns(tmp_path: Path) -> None:
    """At 80x24 the banner's bytes and the column header's `content` are on screen (they were cut off)."""
    app = ViewerApp(TranscriptIndex(banner_session(tmp_path / "banner.jsonl")))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        shown = list_lines(screen_text(app))
        assert "content" in shown[0] and "status" in shown[0]
        banner = next(line for line in shown if line.lstrip().startswith("5 "))
        assert "non-protocol-output" in banner and "Weather server v2.1" in banner
        await pilot.resize_terminal(150, 40)
        await pilot.pause()
        shown = list_lines(screen_text(app))
        assert "time" in shown[0] and "lat" in shown[0]  # a wide terminal gets every column back


def test_row_numbers_past_a_million_are_shown_whole() -> None:
    """Row 1,000,005 of a 2,000,000-row file shows as 1000005, aligned with the column header."""
    info = RowInfo(row=1_000_004, t=1.5, ch="out", size=10, preview="{}", status="response")
    layout = layout_for(150, 2_000_000)
    text = row_text(info, layout)
    assert text.split()[0] == "1000005"
    assert row_text(RowInfo(row=0, t=0.0, ch="in", size=1, preview="x"), layout).index("0.000") == text.index(
        "1.500"
    )


async def test_the_diff_shows_both_sides_of_a_change_at_80_columns(tmp_path: Path) -> None:
    """At 80 columns a changed pair shows its old and its new value on its row."""
    old = forecast_session(tmp_path / "old.jsonl", sky="sunny")
    new = forecast_session(tmp_path / "new.jsonl", sky="rainy")
    app = DiffApp(diff_files(old, new), old.name, new.name)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = list_lines(screen_text(app), "kind")
        assert "old" in shown[0] and "new" in shown[0]
        changed = next(line for line in shown if line.startswith("≠"))
        assert '"sunny"' in changed and '"rainy"' in changed

"""Snapshots of the viewer (pytest-textual-snapshot): the main view and the detail pane.

Update them after an intended visual change with `pytest tests/tui --snapshot-update` and look at
the SVGs before committing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import settle
from tests.tui.transcripts import banner_session, exec_after_reject_session

pytestmark = pytest.mark.slow

SnapCompare = Callable[..., bool]


def test_main_view_lands_on_the_banner(tmp_path: Path, snap_compare: SnapCompare) -> None:
    """The main view of a banner session: header verdict and reason, styled rows, cursor on the banner."""
    app = ViewerApp(TranscriptIndex(banner_session(tmp_path / "banner.jsonl")))
    assert snap_compare(app, terminal_size=(130, 32), run_before=settle)


def test_detail_pane_of_an_exec_after_reject(tmp_path: Path, snap_compare: SnapCompare) -> None:
    """The detail pane of an executor call made for a rejected request names the request and the error."""
    app = ViewerApp(TranscriptIndex(exec_after_reject_session(tmp_path / "deploy.jsonl")))

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("right_square_bracket")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(130, 40), run_before=run_before)


def test_detail_pane_of_a_request_with_its_response(tmp_path: Path, snap_compare: SnapCompare) -> None:
    """The detail pane of a tools/call request: pretty JSON, escaped raw bytes and the paired response."""
    app = ViewerApp(TranscriptIndex(banner_session(tmp_path / "banner.jsonl")))

    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        assert isinstance(pilot.app, ViewerApp)
        pilot.app.messages.select_row(7)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(130, 44), run_before=run_before)

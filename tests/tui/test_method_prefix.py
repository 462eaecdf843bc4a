"""The method filter takes a method or the start of one: `tools` shows every tools/* row."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.conftest import settle
from tests.tui.helpers import SIZE, viewer
from tests.tui.transcripts import banner_session

pytestmark = pytest.mark.slow


async def test_a_method_prefix_shows_every_method_it_begins(tmp_path: Path) -> None:
    """`m tools`: the tools/list and tools/call rows; `m tools/call`: only those; `m nope`: none."""
    app = viewer(banner_session(tmp_path / "banner.jsonl"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        def shown() -> list[int]:
            return [app.messages.view.row(i) for i in range(len(app.messages.view))]

        await pilot.press("m", *"tools", "enter")
        await pilot.pause()
        assert shown() == [3, 5, 7, 8]
        await pilot.press("m", "ctrl+u", *"tools/call", "enter")
        await pilot.pause()
        assert shown() == [7, 8]
        await pilot.press("m", "ctrl+u", *"nope", "enter")
        await pilot.pause()
        assert shown() == []

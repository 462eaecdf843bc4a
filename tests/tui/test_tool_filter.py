"""`t` filters by tool name: the tools/call requests naming that tool, and their answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import handshake, ok, req, write

pytestmark = pytest.mark.slow

SCHEMA = '"inputSchema":{"type":"object"}'
TOOLS = f'{{"tools":[{{"name":"forecast",{SCHEMA}}},{{"name":"alerts",{SCHEMA}}}]}}'


def two_tools_session(path: Path) -> Path:
    events = [
        *handshake(),
        req(0.010, 1, "tools/list"),
        ok(0.012, 1, TOOLS),
        req(0.020, 2, "tools/call", '{"name":"forecast","arguments":{"city":"Lyon"}}'),
        ok(0.031, 2, '{"content":[{"type":"text","text":"sunny"}]}'),
        req(0.040, 3, "tools/call", '{"name":"alerts","arguments":{"region":"Rhône"}}'),
        ok(0.045, 3, '{"content":[{"type":"text","text":"none"}]}'),
        req(0.050, 4, "tools/call", '{"name":"forecast","arguments":{"city":"Nice"}}'),
        ok(0.061, 4, '{"content":[{"type":"text","text":"rain"}]}'),
        Event(0.070, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)


def shown(app: ViewerApp) -> list[int]:
    view = app.messages.view
    return [view.row(i) for i in range(len(view))]


async def test_the_tool_filter_shows_the_calls_of_one_tool_and_their_answers(tmp_path: Path) -> None:
    """`t forecast` keeps the two forecast calls and their answers; the header says so; empty clears."""
    app = ViewerApp(TranscriptIndex(two_tools_session(tmp_path / "tools.jsonl")))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t", *"forecast", "enter")
        await pilot.pause()
        assert shown(app) == [5, 6, 9, 10]
        assert "tool forecast" in screen_text(app)
        await pilot.press("t", "ctrl+u", *"ert", "enter")  # part of a name: alerts
        await pilot.pause()
        assert shown(app) == [7, 8]
        await pilot.press("m", *"tools/list", "enter")  # with the method filter: both must pass
        await pilot.pause()
        assert shown(app) == []
        await pilot.press("m", "ctrl+u", "enter", "t", "ctrl+u", "enter")
        await pilot.pause()
        assert len(shown(app)) == 12


async def test_the_tool_prompt_lists_the_tools_seen(tmp_path: Path) -> None:
    """The prompt's hint names the tools called in the session."""
    app = ViewerApp(TranscriptIndex(two_tools_session(tmp_path / "tools.jsonl")))
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert "seen: forecast, alerts" in screen_text(app)

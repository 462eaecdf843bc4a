"""`mcptape view` on real HTTP transcripts (recorded through `mcptape record --http-upstream`), driven
headless with Pilot: rows name their exchange, the detail pane shows the exchange and its SSE stream,
the raw records can be filtered, and the viewer opens on the first HTTP transport finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.widgets.detail import render_detail
from tests.tui.conftest import planted_http_transcript, screen_text, settle

pytestmark = pytest.mark.slow

SIZE = (160, 60)


def channel(app: ViewerApp, row: int) -> str:
    event = app.index.event(row)
    assert isinstance(event, Event)
    return event.ch


def detail_text(app: ViewerApp) -> str:
    """Everything the detail pane holds (it scrolls: the screen shows its top)."""
    assert app.detail.detail is not None
    return render_detail(app.detail.detail, hex_mode=False).plain


def shown_rows(app: ViewerApp) -> list[int]:
    view = app.messages.view
    return [view.row(p) for p in range(len(view))]


async def test_an_sdk_session_over_http_shows_its_exchanges(sdk_http_transcript: Path) -> None:
    """The SDK's session: the header names the upstream, the verdict is clean; listed by record (`z`),
    rows say which exchange carried them; a progress event's detail shows its exchange's request and
    response heads and the stream's events under the tool call; `c` shows the raw HTTP records alone,
    escaped."""
    app = ViewerApp(TranscriptIndex(sdk_http_transcript))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "verdict: clean (no findings)" in text
        assert "sdk.jsonl — HTTP http://127.0.0.1:" in text and "/mcp → http://127.0.0.1:" in text
        assert " exchange " in text.splitlines()[3]  # the column header
        assert "server/discover #1   x1 POST /mcp 200 json" in text  # the exchange's row
        await pilot.press("z")  # by record (test_http_by_exchange.py: by exchange)
        text = screen_text(app)
        assert "http request        POST /mcp HTTP/1.1\\r\\nHost: 127.0.0.1:" in text

        progress = [r for r in shown_rows(app) if app.model.describe(r).label == "notifications/progress"]
        assert len(progress) == 3
        app.messages.select_row(progress[0])
        await pilot.pause()
        x = app.model.describe(progress[0]).exchange.split(" ")[0]
        assert f"exchange {x[1:]}: {x} POST /mcp 200 sse" in screen_text(app)
        held = detail_text(app)
        assert f"exchange {x[1:]} request (row " in held and "): POST /mcp HTTP/1.1" in held
        assert "  > mcp-protocol-version: 2025-11-25" in held
        assert "  < content-type: text/event-stream" in held
        stream = held[held.index(f"exchange {x[1:]} carried 5 messages") :].splitlines()[1:6]
        assert "count(n=3)" in stream[0]
        assert [
            f"row {r + 1} · out · event message" in line
            for line, r in zip(stream[1:4], progress, strict=True)
        ] == [True] * 3
        assert stream[1].endswith("◂ this row") and "counted to 3" in stream[4]

        await pilot.press("c", "c")  # all -> protocol -> raw HTTP
        assert "[filter: raw HTTP (http-in+http-out)]" in screen_text(app)
        rows = shown_rows(app)
        assert rows and {channel(app, r) for r in rows} == {"http-in", "http-out"}
        assert app.messages.current_row in rows


async def test_the_viewer_opens_on_the_first_http_finding(tmp_path: Path) -> None:
    """A server whose JSON body starts with a log line: the viewer opens on the response's raw row
    (`http-body-not-json`, exchange 1), says why, and `]` does not stop on the `out` line that
    carried it: the same fault, one finding (the session's only one)."""
    app = ViewerApp(TranscriptIndex(planted_http_transcript(tmp_path, "log-before-json")))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        row = app.messages.current_row
        assert row is not None and channel(app, row) == "http-out"
        text = screen_text(app)
        assert (
            "cursor: first non-protocol bytes on http-out (exchange 1, byte 0): exchange 1 (POST /mcp" in text
        )
        line = next(line for line in text.splitlines() if line.lstrip().startswith(f"{row + 1} "))
        assert "x1 POST /mcp 200 json" in line and "http-body-not-json" in line
        held = detail_text(app)
        assert "http-body-not-json (http-out line 1, byte 0): exchange 1 (" in held
        assert "debug: handling the request\\n{" in held  # the row's bytes, escaped
        await pilot.press("right_square_bracket")
        assert app.messages.current_row == row and channel(app, row) == "http-out"


@pytest.mark.node
async def test_server_everything_over_streamable_http_is_viewed(everything_http_transcript: Path) -> None:
    """@modelcontextprotocol/server-everything recorded in its Streamable HTTP mode: clean, and the
    long-running tool call's detail lists its SSE stream under it: three progress events (with the
    event ids the server gave) and the answer; listed by exchange, the GET stream is one row; by
    record, its rows name it."""
    app = ViewerApp(TranscriptIndex(everything_http_transcript))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "verdict: clean (no findings)" in screen_text(app)
        folded = [app.model.line(r, 200)[0] for r in shown_rows(app)]
        assert len([line for line in folded if " GET /mcp 200 sse " in line and "▸ exchange" in line]) == 1
        await pilot.press("z")
        call = next(
            r for r in shown_rows(app) if "trigger-long-running-operation(" in app.model.describe(r).preview
        )
        app.messages.select_row(call)
        await pilot.pause()
        x = app.model.describe(call).exchange.split(" ")[0][1:]
        held = detail_text(app)
        listed = held[held.index(f"exchange {x} carried 5 messages") :].splitlines()[1:6]
        assert listed[0].endswith("◂ this row") and "tools/call #" in listed[0]
        assert all(" · out · event message · id " in line for line in listed[1:])
        assert [
            ("notifications/progress" in line, f"{i}/3" in line) for i, line in enumerate(listed[1:4], 1)
        ] == [(True, True)] * 3
        assert "Long running operation completed" in listed[4]
        gets = [
            r for r in shown_rows(app) if app.model.describe(r).exchange.split(" ")[1:3] == ["GET", "/mcp"]
        ]
        assert gets and app.model.describe(gets[0]).exchange.endswith(" GET /mcp 200 sse")

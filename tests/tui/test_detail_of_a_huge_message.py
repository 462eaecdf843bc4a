"""The detail pane stays quick on a huge message: what it draws is bounded, and it says what it left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.widgets.detail import PRETTY_LIMIT, render_detail
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import handshake, req, write

pytestmark = pytest.mark.slow


def big_response_session(path: Path, items: int) -> Path:
    """A tools/call answered with `items` content blocks (a few MiB of JSON on one line)."""
    block = '{"type":"text","text":"%s"}' % ("Y" * 60)
    body = ",".join([block] * items)
    events = [
        *handshake(),
        req(0.010, 1, "tools/call", '{"name":"list_files","arguments":{}}'),
        Event(0.020, "out", text=f'{{"jsonrpc":"2.0","id":1,"result":{{"content":[{body}]}}}}\n'),
        Event(0.030, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)


async def test_pretty_json_of_a_huge_response_is_cut_and_says_so(tmp_path: Path) -> None:
    """A 6 MiB response shows at most PRETTY_LIMIT characters of pretty JSON, then how many were left out."""
    app = ViewerApp(TranscriptIndex(big_response_session(tmp_path / "big.jsonl", 70_000)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        detail = app.model.detail(4)
        assert detail.pretty is not None and len(detail.pretty) > 10 * PRETTY_LIMIT
        text = render_detail(detail, hex_mode=False).plain
        pretty_part = text[text.index("\nJSON\n") :]
        assert len(pretty_part) < PRETTY_LIMIT + 200
        assert f"...(+{len(detail.pretty) - PRETTY_LIMIT:,} characters)" in pretty_part
        app.messages.select_row(4)
        await pilot.pause()
        app.detail.scroll_end(animate=False)  # the end of the pane shows the note
        await pilot.pause()
        assert "characters)" in screen_text(app)

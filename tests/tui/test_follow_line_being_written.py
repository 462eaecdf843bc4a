"""--follow: a response still being written (its first piece recorded, the rest not yet) is a
finding in flight, like a request not yet answered: it does not take the cursor."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.helpers import append
from tests.tui.transcripts import handshake, write

pytestmark = pytest.mark.slow


async def test_a_line_still_being_written_does_not_take_the_cursor(tmp_path: Path) -> None:
    """A response's first piece arrives: the cursor stays; it goes to the first stray line later."""
    path = write(tmp_path / "live.jsonl", handshake())
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        assert app.messages.current_row == 0
        append(
            path,
            (0.010, "in", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'),
            (0.011, "out", b'{"jsonrpc":"2.0","id":1,'),  # the rest of the line is not written yet
        )
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 5)
        await settle(pilot)
        assert app.messages.current_row == 0, screen_text(app).splitlines()[2]
        append(path, (0.012, "out", b'"result":{"tools":[]}}\n'), (0.020, "out", b"stray log line\n"))
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 7)
        await settle(pilot)
        assert app.messages.current_row == 6
        assert "cursor: first non-protocol line on stdout" in screen_text(app)


async def test_a_line_cut_short_by_the_end_of_its_stream_takes_the_cursor(tmp_path: Path) -> None:
    """Once stdout's eof is recorded, the unfinished line is an incomplete frame: the cursor goes there."""
    path = write(tmp_path / "live.jsonl", handshake())
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        append(path, (0.011, "out", b'{"jsonrpc":"2.0","id":1,'))
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 4)
        with open(path, "ab") as fh:
            fh.write(b'{"t":0.02,"ch":"eof","of":"out"}\n')
        await wait_for(pilot, lambda: app.model.facts is not None and app.model.facts.rows == 5)
        await settle(pilot)
        assert app.messages.current_row == 3
        assert "incomplete-frame" in screen_text(app)

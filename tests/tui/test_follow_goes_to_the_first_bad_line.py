"""--follow on a session that starts clean: the first non-protocol line written later is where it goes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle, wait_for
from tests.tui.helpers import append
from tests.tui.transcripts import handshake, write

pytestmark = pytest.mark.slow


async def test_follow_moves_to_the_first_non_protocol_line_when_it_is_written(tmp_path: Path) -> None:
    """A clean start lands on row 1; a stray stdout line written later takes the cursor, once."""
    path = write(tmp_path / "live.jsonl", handshake())
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        assert app.messages.current_row == 0
        append(path, (0.010, "in", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'))
        await wait_for(pilot, lambda: len(app.index) == 4 and app.model.facts is not None)
        await settle(pilot)
        text = screen_text(app)
        assert "unanswered-request" in text  # in flight: the cursor does not chase it
        assert app.messages.current_row == 0 and "no rule found anything" not in text
        append(
            path,
            (0.011, "out", b"Loading model weights...\n"),
            (0.012, "out", b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n'),
        )
        await wait_for(pilot, lambda: app.messages.current_row == 4)
        await settle(pilot)
        assert "cursor: first non-protocol line on stdout" in screen_text(app)
        append(path, (0.020, "out", b"another stray line\n"))
        await wait_for(pilot, lambda: len(app.index) == 7)
        await settle(pilot)
        assert app.messages.current_row == 4
        assert screen_text(app).splitlines()[1].split("   ")[1].startswith("following")

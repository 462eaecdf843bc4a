"""A newline a server wrote apart from its line is not a row of its own: the line's row has it."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from mcptape.tui.model.facts import collect_facts
from mcptape.tui.model.viewer import Filters, ViewerModel
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import handshake, req, write


def split_newline_session(path: Path) -> Path:
    """tools/list answered in two writes: the JSON (row 5), then its newline alone (row 6)."""
    events = [
        *handshake(),
        req(0.010, 1, "tools/list"),
        Event(0.011, "out", text='{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'),
        Event(0.012, "out", text="\n"),
        Event(0.020, "exit", fields={"code": 0, "signal": None}),
    ]
    return write(path, events)


def test_the_newline_piece_is_left_out_of_every_view_and_its_line_keeps_the_bytes(tmp_path: Path) -> None:
    """Rows 1-5 and 7 are listed, row 6 (b"\\n") is not; the response row's frame ends in it."""
    index = TranscriptIndex(split_newline_session(tmp_path / "t.jsonl"))
    index.scan()
    model = ViewerModel(index)
    facts = collect_facts(index)
    assert facts is not None
    model.set_facts(facts)
    for filters in (Filters(), Filters(channels=frozenset({"out"}))):
        view = model.build_view(filters)
        rows = [view.row(i) for i in range(len(view))]
        assert 5 not in rows and 4 in rows
    assert model.newline_pieces == {5}
    assert model.shown_row(5) == 4
    assert model.frame_bytes(4, index.event(4)).endswith(b"}}\n")  # type: ignore[arg-type]


async def test_the_viewer_lists_the_response_once(tmp_path: Path) -> None:
    """On screen: no "(part of row 5)" row, and the response row is there."""
    app = ViewerApp(TranscriptIndex(split_newline_session(tmp_path / "t.jsonl")))
    async with app.run_test(size=(150, 30)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "(part of row 5)" not in text
        assert "tools/list #1" in text and "response" in text

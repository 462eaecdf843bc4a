"""Every diff row is one terminal line: a line feed in a method name, a request id or a changed
member's name (server-chosen strings) is shown escaped, never written to the terminal."""

from __future__ import annotations

from pathlib import Path

from mcptape.replay.api import diff_files
from mcptape.transcript import Event
from mcptape.tui.diff_app import DiffApp
from tests.tui.transcripts import handshake, write


def session(path: Path, answer: str) -> Path:
    request = r'{"jsonrpc":"2.0","id":"a\nb","method":"tools/\nlist","params":{}}' + "\n"
    response = r'{"jsonrpc":"2.0","id":"a\nb","result":{"x\ny":"' + answer + '"}}\n'
    events = [*handshake(), Event(0.010, "in", text=request), Event(0.011, "out", text=response)]
    events.append(Event(0.02, "exit", fields={"code": 0, "signal": None}))
    return write(path, events)


async def test_diff_rows_and_header_carry_no_line_feed(tmp_path: Path) -> None:
    """The changed pair's row, as drawn, holds no control character; the header's reason is one line."""
    old = session(tmp_path / "old.jsonl", "sunny")
    new = session(tmp_path / "new.jsonl", "rainy")
    app = DiffApp(diff_files(old, new), old.name, new.name)
    async with app.run_test(size=(150, 30)) as pilot:
        await pilot.pause()
        pairs = app.pairs_list
        drawn = [pairs.render_line(y).text for y in range(len(pairs.view))]
        changed = next(line for line in drawn if line.startswith("≠"))
        assert not any(ord(c) < 0x20 for c in changed), repr(changed)
        assert r"tools/\nlist" in changed
        assert "\n" not in app.reason and r"tools/\nlist" in app.reason

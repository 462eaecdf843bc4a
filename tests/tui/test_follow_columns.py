"""--follow shows the same columns as a plain view: time, size and latency stay while rows arrive."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.writer import encode_chunk
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle, wait_for

pytestmark = pytest.mark.slow


async def test_follow_from_an_empty_recording_keeps_the_time_size_and_latency_columns(tmp_path: Path) -> None:
    """A recording that has only its header when the viewer opens, then a request and its answer
    (the newline written apart): the column header and the rows keep time, size and latency."""
    path = tmp_path / "live.jsonl"
    header = {"mcptape": 1, "started": "2026-12-04T00:00:00Z", "command": ["srv"], "cwd": "/"}
    path.write_bytes(orjson.dumps(header) + b"\n")
    app = ViewerApp(TranscriptIndex(path), follow=True, poll=0.05)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause(0.2)
        with open(path, "ab") as fh:
            fh.write(encode_chunk(0.001, "in", b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'))
            fh.write(encode_chunk(0.002, "out", b'{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'))
            fh.write(encode_chunk(0.003, "out", b"\n"))
        await wait_for(pilot, lambda: len(app.index) == 3)
        await settle(pilot)
        lines = screen_text(app).splitlines()
        columns = next(line for line in lines if "method / id" in line)
        assert columns.split()[:3] == ["#", "time", "ch"] and "size" in columns and "lat" in columns
        response = next(line for line in lines if "tools/list #1" in line and "response" in line)
        assert "0.002" in response and "46B" in response and "1.00ms" in response
        assert "(part of row 2)" not in "\n".join(lines)

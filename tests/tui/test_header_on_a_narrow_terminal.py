"""The three header lines stay three lines: the verdict and the cursor's reason are never pushed off."""

from __future__ import annotations

from pathlib import Path

from mcptape.transcript import Event, Header
from mcptape.transcript.index import TranscriptIndex
from mcptape.transcript.writer import write_transcript
from mcptape.tui.app import ViewerApp
from tests.tui.conftest import screen_text, settle
from tests.tui.transcripts import error, handshake, req


async def test_header_keeps_verdict_and_reason_on_a_narrow_terminal(tmp_path: Path) -> None:
    """At 80 columns, with a long command and a cut last line, line 2 has the verdict, line 3 the reason."""
    long_command = ["/usr/bin/node", "/srv/app/node_modules/@acme/mcp-gateway/dist/index.js", "stdio", "-v"]
    header = Header(version=1, started="2026-01-01T00:00:00Z", command=long_command, cwd="/srv")
    events = [
        *handshake(),
        Event(0.006, "out", text="gateway: plugins loaded\n"),
        req(0.010, 1, "tools/call", '{"name":"deploy","arguments":{}}'),
        Event(0.011, "exec", text='{"action":"deploy","request_id":1}\n'),
        error(0.012, 1, "not authorised"),
    ]
    path = tmp_path / "gateway.jsonl"
    write_transcript(path, header, events)
    with open(path, "ab") as fh:
        fh.write(b'{"t":0.1,"ch":"out","data":"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":9')  # recorder killed
    app = ViewerApp(TranscriptIndex(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = [line.strip() for line in screen_text(app).splitlines()]
        assert lines[0].startswith("gateway.jsonl — /usr/bin/node")
        assert lines[1].startswith("verdict: ") and "findings" in lines[1]
        assert lines[2].startswith("cursor: first non-protocol line on stdout")
        assert lines[3].startswith("#")  # the column header follows at once

"""Must show (issue 27.7): an HTTP body that is not JSON is one fault, so `check` gives one finding,
`http-body-not-json` (with its exchange, body byte and party), not a second `non-protocol-input` or
`-output` for the `in`/`out` line `record --http-upstream` carries the same body on. The carried
line stays in the transcript; a line no body explains is still its own finding."""

from __future__ import annotations

from pathlib import Path

import httpx
import orjson
import pytest
from mcp import Client

from mcptape.check.analyze import analyze_file
from mcptape.transcript import open_transcript
from tests.e2e.realhttp.helpers import record_sweep
from tests.recorder.http.helpers import free_port, recording
from tests.recorder.http.upstreams import DISCOVER, DISCOVER_HEADERS, planted

pytestmark = pytest.mark.slow

NOT_JSON = b"hello, this is not JSON"
RAW_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _session_then_garbage(url: str) -> int:
    async with Client(url) as client:
        await client.list_tools()
    async with httpx.AsyncClient() as raw:
        return (await raw.post(url, content=NOT_JSON, headers=RAW_HEADERS)).status_code


def _carried(path: Path, channel: str) -> list[bytes]:
    return [e.data for e in open_transcript(path).events() if e.ch == channel]


def test_a_request_body_that_is_not_json_is_one_finding(tmp_path: Path) -> None:
    """The SDK's MCPServer (stateless, JSON answers) and a client that posts text after a good
    session: one `http-body-not-json` on the client's request, no `non-protocol-input`."""
    path = tmp_path / "garbage.jsonl"
    status, _, _ = record_sweep(path, _session_then_garbage, "--stateless", "--json")
    assert 400 <= status < 500
    assert NOT_JSON + b"\n" in _carried(path, "in")  # the recorder still carries it
    _, analysis = analyze_file(str(path))
    about = [f for f in analysis.findings if f.rule in ("http-body-not-json", "non-protocol-input")]
    assert [(f.rule, f.channel, f.offset, f.party) for f in about] == [
        ("http-body-not-json", "http-in", 0, "client")
    ]
    assert about[0].raw == NOT_JSON


def test_a_response_body_that_is_not_json_is_one_finding(tmp_path: Path) -> None:
    """A server that writes a log line before its JSON body: one `http-body-not-json` on its
    response, no `non-protocol-output`, and its request is not also unanswered (the POST got its
    answer, unreadable)."""
    port = free_port()
    path = tmp_path / "log.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", path, planted(port, "log-before-json")) as rec:
        with httpx.Client(timeout=10) as client:
            client.post(rec.url, content=orjson.dumps(DISCOVER), headers=DISCOVER_HEADERS)
        rec.stop()
    assert any(line.startswith(b"debug: handling the request ") for line in _carried(path, "out"))
    _, analysis = analyze_file(str(path))
    about = [
        f
        for f in analysis.findings
        if f.rule in ("http-body-not-json", "non-protocol-output", "unanswered-request")
    ]
    assert [(f.rule, f.channel, f.line, f.offset, f.party) for f in about] == [
        ("http-body-not-json", "http-out", 1, 0, "server")
    ]

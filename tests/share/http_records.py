"""HTTP transcripts for the redaction tests, built record by record: `record` (one record of an
exchange), `copied` (the shared copy `mcptape redact` writes of them), `wire` (an exchange's
bytes read back from a transcript), `response_body` (a response as h11 reads it)."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import h11
import orjson

from mcptape.share.copy import redact_file
from mcptape.share.rules import Rules
from mcptape.transcript.reader import open_transcript

HEADER = {"mcptape": 1, "started": "2026-12-06T00:00:00Z", "command": [], "cwd": "/", "recorder": {}}


SECRET = "hunter2-very-secret"


SSE_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"


def record(t: float, ch: str, data: bytes, x: int | None = 1) -> dict[str, Any]:
    line: dict[str, Any] = {"t": t, "ch": ch, "b64": base64.b64encode(data).decode()}
    if x is not None:
        line["x"] = x
    return line


def copied(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    source, copy = tmp_path / "t.jsonl", tmp_path / "shared.jsonl"
    source.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [HEADER, *records]))
    redact_file(source, copy, Rules.build((), ()), environ={})
    assert open_transcript(copy).problems == []
    return copy


def wire(path: Path, channel: str, x: int = 1) -> bytes:
    return b"".join(
        e.data for e in open_transcript(path).events() if e.ch == channel and (e.fields or {}).get("x") == x
    )


def response_body(raw: bytes) -> tuple[h11.Response, bytes, bool]:
    """A response read by h11: its head, its body, whether it ended."""
    conn = h11.Connection(h11.CLIENT)
    conn.send(h11.Request(method="POST", target="/", headers=[("host", "x")]))
    conn.send(h11.EndOfMessage())
    conn.receive_data(raw)
    head, body, ended = None, b"", False
    while (event := conn.next_event()) is not h11.NEED_DATA:
        if isinstance(event, h11.Response):
            head = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage):
            ended = True
            break
    assert head is not None
    return head, body, ended

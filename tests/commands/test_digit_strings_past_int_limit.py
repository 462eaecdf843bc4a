"""Digit strings a transcript holds that int() refuses: more than 4300 digits (Python's limit), or
digits that are not ASCII ('¹', '١'), which str.isdigit() accepts. A request id of such digits named
by an executor line (the check core's attribution), an SSE `retry` (the one SSE decoder), an HTTP
status or Content-Length (redact and report's HTTP copy) raised ValueError: a traceback in every
command reading the transcript. Each is now read as the text it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands.tapes import HEADER, assert_clean_run, line, message, record, run, write

BIG = "9" * 5000
ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'
BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'


def executor_tape(path: Path, rid: str) -> Path:
    """A call with a string id, an executor line naming it, its error; then a call the executor
    line names again."""
    naming = json.dumps({"action": "deploy", "request_id": rid}) + "\n"
    return write(
        path,
        [
            line(0.1, "in", message(id=rid, method="tools/call", params={"name": "deploy", "arguments": {}})),
            line(0.15, "exec", naming),
            line(0.2, "out", message(id=rid, error={"code": -32001, "message": "no"})),
            line(0.3, "in", message(id=5, method="tools/call", params={"name": "deploy", "arguments": {}})),
            line(0.35, "exec", naming),
            line(0.4, "out", message(id=5, result={"content": []})),
            record(t=0.5, ch="exit", code=0, signal=None),
        ],
    )


def http_tape(
    path: Path, *, status: str = "200 OK", length: str | None = None, events: str | None = None
) -> Path:
    """One POST and its answer: a JSON body, or `events` as an SSE stream."""
    media = "text/event-stream" if events is not None else "application/json"
    body = events if events is not None else ANSWER
    head = f"HTTP/1.1 {status}\r\ncontent-type: {media}\r\ncontent-length: {length or len(body)}\r\n\r\n"
    request = f"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: {length or len(BODY)}\r\n\r\n{BODY}"
    records = [(0.1, "http-in", request), (0.11, "in", BODY + "\n"), (0.2, "http-out", head + body)]
    records.append((0.21, "out", ANSWER + "\n"))
    lines = [json.dumps({"t": t, "ch": ch, "x": 1, "data": data}) for t, ch, data in records]
    lines.append(json.dumps({"t": 0.3, "ch": "eof", "of": "http-in"}))
    return write(path, lines, {**HEADER, "command": [], "http": {"upstream": "http://127.0.0.1:1/mcp"}})


def every_reader(tape: Path, tmp_path: Path) -> None:
    for argv in (
        ["check", str(tape)],
        ["export", str(tape), "--format", "har"],
        ["diff", str(tape), str(tape)],
        ["tools", "lock", str(tape)],
        ["redact", str(tape), "-o", str(tmp_path / "copy.jsonl"), "--overwrite"],
        ["report", str(tape), "-o", str(tmp_path / "bundle"), "--overwrite"],
    ):
        assert_clean_run(run(*argv))


@pytest.mark.parametrize("rid", [BIG, "\u00b9", "\u0661\u0662"], ids=["5000-digits", "superscript", "arabic"])
def test_an_executor_line_naming_an_id_int_cannot_read_is_judged(tmp_path: Path, rid: str) -> None:
    """The executor line's request id is compared as text; no ValueError."""
    every_reader(executor_tape(tmp_path / "t.jsonl", rid), tmp_path)


HTTP = {
    "sse-retry-of-5000-digits": {"events": f"retry: {BIG}\ndata: {ANSWER}\n\n"},
    "status-of-5000-digits": {"status": f"{BIG} OK"},
    "content-length-of-5000-digits": {"length": BIG},
    "superscript-content-length": {"length": "\u00b9\u00b2"},
}


@pytest.mark.parametrize("fields", HTTP.values(), ids=HTTP.keys())
def test_an_http_number_int_cannot_read_is_read_as_text(tmp_path: Path, fields: dict[str, str]) -> None:
    """Every reading command, redact and report included, exits 0, 1 or 2 without a traceback."""
    every_reader(http_tape(tmp_path / "h.jsonl", **fields), tmp_path)

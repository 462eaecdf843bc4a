"""An HTTP transcript's Host header, request target and recorded listening URL are the recording's
bytes, so anything: every export format writes them (escaped) and never raises on a URL urlsplit
refuses (a bracket left open, a port out of range)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.commands.tapes import HEADER, assert_clean_run, run, write

BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'


def http_tape(path: Path, *, target: str, host: str, listen: Any) -> Path:
    """One recorded POST and its JSON answer, with the given target, Host and header listen URL."""
    head = f"POST {target} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(BODY)}\r\n\r\n"
    answer = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(ANSWER)}\r\n\r\n"
    records = [
        (0.1, "http-in", head),
        (0.11, "http-in", BODY),
        (0.11, "in", BODY + "\n"),
        (0.2, "http-out", answer + ANSWER),
        (0.21, "out", ANSWER + "\n"),
    ]
    lines = [json.dumps({"t": t, "ch": ch, "x": 1, "data": data}) for t, ch, data in records]
    lines.append(json.dumps({"t": 0.3, "ch": "eof", "of": "http-in"}))
    header = {**HEADER, "command": [], "http": {"upstream": listen, "listen": listen}}
    return write(path, lines, header)


CASES = {
    "listen-bracket-open": ("/mcp", "127.0.0.1:8000", "http://[x/mcp"),
    "listen-brackets-reversed": ("/mcp", "127.0.0.1:8000", "http://a]b[/mcp"),
    "host-bracket-open": ("/mcp?a=1", "[::1", "http://127.0.0.1:1/mcp"),
    "absolute-target-bracket-open": ("http://[x/mcp?a=1", "h", "http://127.0.0.1:1/mcp"),
    "listen-not-a-string": ("/mcp", "h", 5),
}


@pytest.mark.parametrize(("target", "host", "listen"), CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("form", ["har", "otlp", "html"])
def test_export_of_an_http_transcript_with_a_url_urlsplit_refuses_is_written(
    tmp_path: Path, target: str, host: str, listen: Any, form: str
) -> None:
    """The export is written (exit 0, no traceback); the HAR entry keeps the recorded target and its
    query string."""
    tape = http_tape(tmp_path / "h.jsonl", target=target, host=host, listen=listen)
    result = run("export", str(tape), "--format", form)
    assert_clean_run(result, codes=[0])
    if form == "har":
        (entry,) = json.loads(result.stdout)["log"]["entries"]
        assert entry["request"]["url"].endswith(target.removeprefix("http://"))
        assert entry["request"]["queryString"] == ([{"name": "a", "value": "1"}] if "?a=1" in target else [])

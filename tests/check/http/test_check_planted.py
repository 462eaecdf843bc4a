"""Must show: planted bad servers recorded through `mcptape record --http-upstream`, each fault found by
`mcptape check` with the exchange, the byte offset in its body and the raw bytes named: a log line
before the JSON body, a malformed SSE event, an Mcp-Method header that disagrees with the body (and a
server that accepted it)."""

from __future__ import annotations

from pathlib import Path

import httpx
import orjson
import pytest

from mcptape.check.analyze import analyze_file
from mcptape.check.model import Finding
from mcptape.cli import main
from tests.recorder.http.helpers import exchanges, free_port, recording
from tests.recorder.http.upstreams import CALL, DISCOVER, DISCOVER_HEADERS, HEADERS, planted

pytestmark = pytest.mark.slow


def _record(tmp_path: Path, mode: str, headers: dict[str, str] = HEADERS) -> Path:
    """A discover and a tools/call against the planted server, recorded."""
    port = free_port()
    out = tmp_path / f"{mode}.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", out, planted(port, mode)) as rec:
        with httpx.Client(timeout=10) as client:
            client.post(rec.url, content=orjson.dumps(DISCOVER), headers=DISCOVER_HEADERS)
            client.post(rec.url, content=orjson.dumps(CALL), headers=headers)
        rec.stop()
    return out


def _http_findings(path: Path) -> list[Finding]:
    _, analysis = analyze_file(str(path))
    return [f for f in analysis.findings if f.rule.startswith("http-")]


def _report(path: Path, capsys: object) -> str:
    try:
        main(["check", str(path)])
    except SystemExit:
        pass
    out: str = capsys.readouterr().out  # type: ignore[attr-defined]
    return out


def test_a_log_line_before_the_json_body_is_found_at_byte_0_of_its_exchange(
    tmp_path: Path, capsys: object
) -> None:
    """The response body of exchange 1 (the discover) starts with a log line: `http-body-not-json`
    names exchange 1, body byte 0 and the log line's bytes; the report's first non-protocol section
    says the same."""
    out = _record(tmp_path, "log-before-json")
    found = _http_findings(out)
    assert [(f.rule, f.channel, f.line, f.offset, f.party) for f in found] == [
        ("http-body-not-json", "http-out", 1, 0, "server")
    ]
    assert found[0].raw.startswith(b"debug: handling the request\n{")
    assert "exchange 1 (POST /mcp server/discover -> 200 application/json)" in found[0].message
    raw = exchanges(out, "http-out")[1]
    assert found[0].raw in raw  # the bytes named are the bytes on the wire
    report = _report(out, capsys)
    assert "http-out: exchange 1, byte offset 0:" in report
    assert "bytes:     debug: handling the request\\n{" in report


def test_a_malformed_sse_event_is_found_with_its_line(tmp_path: Path) -> None:
    """The tools/call's SSE stream starts with `dta: oops` (no SSE field: a client drops it):
    `http-sse-malformed` names exchange 2, body byte 0 and that line."""
    out = _record(tmp_path, "bad-sse")
    found = _http_findings(out)
    assert [(f.rule, f.line, f.offset, f.raw) for f in found] == [("http-sse-malformed", 2, 0, b"dta: oops")]
    assert "not an SSE field ('dta')" in found[0].message


def test_an_mcp_method_header_that_disagrees_with_the_body_and_the_server_that_accepted_it(
    tmp_path: Path,
) -> None:
    """A tools/call body sent with `Mcp-Method: tools/list`: the client broke the rule
    (`http-header-mismatch`, the request line named), and the server answered 200 instead of 400 with
    -32020 (`http-mismatch-accepted`)."""
    out = _record(tmp_path, "no-validation", {**HEADERS, "mcp-method": "tools/list"})
    found = _http_findings(out)
    assert [(f.rule, f.channel, f.line, f.party) for f in found] == [
        ("http-header-mismatch", "http-in", 2, "client"),
        ("http-mismatch-accepted", "http-out", 2, "server"),
    ]
    assert "Mcp-Method is 'tools/list', method is 'tools/call'" in found[0].message
    assert found[0].raw == b"POST /mcp" and found[0].request_id == 1
    assert found[1].related[0].role == "request" and found[1].related[0].line == 2


def test_a_clean_planted_server_checks_clean(tmp_path: Path) -> None:
    """The same exchanges without a planted fault: no transport finding (JSON answers, an SSE answer)."""
    assert _http_findings(_record(tmp_path, "clean")) == []

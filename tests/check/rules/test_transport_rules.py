"""Each Streamable HTTP transport rule (check/http/transport.py) on a table of exchanges: what it finds, and
the clean twin it leaves alone. docs/http.md cites the spec sentence of each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.rules.transport import (
    CASES,
    HR_RULES,
    HTTP_RULES,
    INIT,
    INIT_OK,
    LIST,
    OK_JSON,
    answer,
    call,
    call_headers,
    http_findings,
    post,
    result,
    sse,
    transcript,
)


@pytest.mark.parametrize("case", CASES, ids=CASES.keys())
def test_each_transport_rule_finds_its_fault_and_leaves_its_twin_alone(tmp_path: Path, case: str) -> None:
    """The rule's finding names the exchange (as `line`), the byte offset and the bytes."""
    exchanges, expected = CASES[case]
    assert http_findings(transcript(tmp_path / "t.jsonl", exchanges)) == expected


def test_the_handshake_revisions_session_id_version_header_and_get_stream(tmp_path: Path) -> None:
    """2025-11-25: a request with a session id the server never assigned, one whose version header is
    not the negotiated version, and a response on the GET stream (not resuming) are each found."""
    assigned = "mcp-session-id: abc\r\n"
    exchanges = [
        (post(INIT), answer("200 OK", "application/json", INIT_OK, assigned)),
        (post(LIST, headers={"Mcp-Session-Id": "abc", "MCP-Protocol-Version": "2025-11-25"}), OK_JSON),
        (post(LIST, headers={"Mcp-Session-Id": "xyz", "MCP-Protocol-Version": "2025-11-25"}), OK_JSON),
        (post(LIST, headers={"Mcp-Session-Id": "abc", "MCP-Protocol-Version": "2025-06-18"}), OK_JSON),
        (
            b"GET /mcp HTTP/1.1\r\nHost: h\r\nAccept: text/event-stream\r\nMcp-Session-Id: abc\r\n"
            b"MCP-Protocol-Version: 2025-11-25\r\n\r\n",
            answer("200 OK", "text/event-stream", sse(result(2))),
        ),
    ]
    assert [(rule, x) for rule, x, _, _ in http_findings(transcript(tmp_path / "t.jsonl", exchanges))] == [
        ("http-session-changed", 3),
        ("http-header-mismatch", 4),
        ("http-mismatch-accepted", 4),
        ("http-wrong-stream", 5),
    ]


def test_every_transport_rule_has_a_positive_case() -> None:
    """No transport rule goes untested: each is found by a case of the table (or the handshake test,
    or the planted servers in test_check_planted.py; the session and status rules: test_hr_table.py)."""
    found = {rule for _, expected in CASES.values() for rule, _, _, _ in expected}
    assert found | {"http-session-changed", "http-mismatch-accepted"} | set(HR_RULES) == set(HTTP_RULES)


def test_memory_stays_bounded_however_many_exchanges_stay_open() -> None:
    """More exchanges open at once than the transport reads (requests never answered): the oldest are
    given up, a note says how many; the messages are still on in/out for every other rule."""
    from mcptape.check.analyze import analyze
    from mcptape.check.http.transport import MAX_OPEN
    from mcptape.transcript.events import Event

    request = post(call, headers=call_headers)
    events = [
        Event(i * 1e-4, "http-in", raw=request, fields={"x": i + 1}, index=i) for i in range(MAX_OPEN + 10)
    ]
    analysis = analyze(events)
    assert [f.rule for f in analysis.findings if f.rule.startswith("http-")] == []
    assert any("10 HTTP exchanges were not judged to the end" in note for note in analysis.notes)

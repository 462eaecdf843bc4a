"""The session and status rules of Streamable HTTP (check/http/session.py) on tables of exchanges:
what each finds, and the twins it leaves alone. docs/http.md cites the spec sentence of each;
the table itself: sessions.py; recorded sessions of real processes breaking and keeping each rule:
tests/check/http/test_hr_recorded.py; streams read side by side and hostile transcripts: test_hr_cases.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import found
from tests.check.rules.sessions import (
    CASES,
    errored,
)
from tests.check.rules.transport import (
    HR_RULES,
    http_findings,
    transcript,
)


@pytest.mark.parametrize("case", CASES, ids=CASES.keys())
def test_each_session_and_status_rule_finds_its_fault_and_leaves_its_twin_alone(
    tmp_path: Path, case: str
) -> None:
    """The finding names the exchange (as `line`); the twins of each rule are not findings."""
    exchanges, expected = CASES[case]
    assert [
        (rule, x) for rule, x, _, _ in http_findings(transcript(tmp_path / "t.jsonl", exchanges))
    ] == expected


def test_a_finding_names_the_offending_bytes_and_the_party(tmp_path: Path) -> None:
    """The session id's header on the response, the server's; the request line of a request without
    the session id, the client's; the error's JSON at its SSE event's offset."""
    from mcptape.check.analyze import analyze_file

    rows = {}
    for case in (
        "session-id-with-spaces",
        "session-missing-refused-400",
        "method-not-found-on-an-sse-stream",
    ):
        path = transcript(tmp_path / f"{case}.jsonl", CASES[case][0])
        _, analysis = analyze_file(str(path))
        rows.update(
            {f.rule: (f.party, f.channel, f.offset, f.raw) for f in analysis.findings if f.rule in HR_RULES}
        )
    assert rows == {
        "http-session-id-chars": ("server", "http-out", 0, b"Mcp-Session-Id: hr session 1"),
        "http-session-missing": ("client", "http-in", 0, b"POST /mcp"),
        "http-error-status": ("server", "http-out", 0, errored(2, -32601)),
    }


def test_an_error_response_without_an_id_is_a_message() -> None:
    """'The HTTP response body MAY comprise a JSON-RPC error response that has no id' (and the
    2025-11-25 schema's `id?: RequestId`): no finding; a result without an id still is one."""
    no_id = errored(None, -32600) + b"\n"
    assert found(("in", b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'), ("out", no_id)) == [
        "unanswered-request"
    ]
    assert found(("out", b'{"jsonrpc":"2.0","result":{}}\n')) == ["invalid-message"]

"""The text report groups findings by party: the server's first, then the client's, then the
recording's own (capture); each group says how many it holds."""

from __future__ import annotations

from mcptape.check.report import render_text
from tests.check.helpers import error, request, result, run

TOOLS = [
    {
        "name": "forecast",
        "inputSchema": {"type": "object", "properties": {"days": {"type": "integer", "maximum": 7}}},
    }
]


def test_findings_are_grouped_server_then_client_then_capture() -> None:
    """A client's bad arguments (refused: info), then a server's banner on stdout (error), in a
    recording without its exit record: three groups, in party order, whatever the time order."""
    analysis = run(
        ("in", request(1, "tools/list")),
        ("out", result(1, {"tools": TOOLS})),
        ("in", request(2, "tools/call", {"name": "forecast", "arguments": {"days": 9}})),
        ("out", error(2, -32602, "days must be at most 7")),
        ("out", b"server ready\n"),
        complete=False,
    )
    text = render_text(analysis)
    server = text.index("  server: the server broke these (1)")
    client = text.index("  client: the client broke these (1)")
    capture = text.index("  capture: the recording itself (1)")
    assert server < text.index("non-protocol-output") < client
    assert client < text.index("schema-violation") < capture < text.index("incomplete-capture")
    assert "Findings (3)" in text


def test_a_party_without_findings_has_no_group() -> None:
    """Only the server broke a rule: one group, no empty headings."""
    text = render_text(run(("in", request(1, "ping")), ("out", b"debug\n"), ("out", result(1))))
    assert "  server: the server broke these (1)" in text
    assert "client: the client" not in text and "capture: the recording" not in text

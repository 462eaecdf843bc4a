"""A `tools/call` sent before the `tools/list` answer arrived is judged once the schema is known
(a client that pipelines its first call after the listing), not skipped."""

from __future__ import annotations

from typing import Any

from mcptape.check.model import CLIENT, SERVER, Severity
from tests.check.helpers import Item, error, request, result, run

EXIT: Item = ("exit", {"code": 0})
TOOLS = [
    {
        "name": "forecast",
        "inputSchema": {
            "type": "object",
            "properties": {"days": {"type": "integer", "maximum": 7}},
            "required": ["days"],
        },
    }
]


def call(rid: int, arguments: dict[str, Any]) -> bytes:
    return request(rid, "tools/call", {"name": "forecast", "arguments": arguments})


def listing(rid: int) -> bytes:
    return result(rid, {"tools": TOOLS})


def test_a_call_answered_after_the_listing_is_judged_by_its_answer() -> None:
    """tools/list, then a call outside the schema before the list's answer; refused: info (client)."""
    analysis = run(
        ("in", request(1, "tools/list")),
        ("in", call(2, {"days": 9})),
        ("out", listing(1)),
        ("out", error(2, -32602, "days must be at most 7")),
        EXIT,
    )
    assert [(f.rule, f.severity, f.party, f.request_id) for f in analysis.findings] == [
        ("schema-violation", Severity.INFO, CLIENT, 2)
    ]
    assert "greater than the maximum of 7" in analysis.findings[0].message


def test_a_call_answered_before_the_listing_is_judged_when_the_listing_arrives() -> None:
    """The call's success comes before the list's answer: an error of the server, found late."""
    analysis = run(
        ("in", request(1, "tools/list")),
        ("in", call(2, {"days": 9})),
        ("out", result(2, {"content": []})),
        ("out", listing(1)),
        EXIT,
    )
    assert [(f.rule, f.severity, f.party) for f in analysis.findings] == [
        ("schema-violation", Severity.ERROR, SERVER)
    ]
    assert "answered it as a success" in analysis.findings[0].message


def test_a_refused_call_answered_before_the_listing_is_info() -> None:
    """The server refused it before the list's answer came: the client's mistake, handled well."""
    analysis = run(
        ("in", request(1, "tools/list")),
        ("in", call(2, {})),
        ("out", error(2, -32602, "days is required")),
        ("out", listing(1)),
        EXIT,
    )
    assert [(f.rule, f.severity, f.party) for f in analysis.findings] == [
        ("schema-violation", Severity.INFO, CLIENT)
    ]


def test_a_call_before_the_listing_inside_the_schema_is_clean() -> None:
    """Arguments the schema accepts, sent early: nothing to say."""
    analysis = run(
        ("in", request(1, "tools/list")),
        ("in", call(2, {"days": 3})),
        ("out", listing(1)),
        ("out", result(2, {"content": []})),
        EXIT,
    )
    assert analysis.findings == []


def test_an_action_for_an_early_call_refused_by_its_schema_is_after_a_reject() -> None:
    """The call is outside the schema learnt after it was sent and still in flight: an action for
    it is an action for rejected input, as for a call judged at once."""
    analysis = run(
        ("in", request(1, "tools/list")),
        ("in", call(2, {"days": 9})),
        ("out", listing(1)),
        ("exec", b'{"action": "forecast", "request_id": 2}\n'),
        ("out", result(2, {"content": []})),
        EXIT,
    )
    assert sorted((f.rule, f.severity) for f in analysis.findings) == [
        ("exec-after-reject", Severity.ERROR),
        ("schema-violation", Severity.ERROR),
    ]

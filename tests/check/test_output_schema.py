"""Must show: `output-schema` holds a tools/call success to the outputSchema its tool declared
("If an output schema is provided: Servers MUST provide structured results that conform to this
schema.", server/tools, 2025-06-18 onward), and judges nothing a server need not structure. The
recorded sessions are in test_real_verdicts.py (structured-*.tape, sdk-media-*.tape)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.check.helpers import Item, error, findings, initialize, request, result, tools_list

SCHEMA = {"type": "object", "properties": {"area": {"type": "number"}}, "required": ["area"]}
AREA = {"name": "area", "inputSchema": {"type": "object"}, "outputSchema": SCHEMA}


def _call(rid: int, answer: bytes, **params: Any) -> list[Item]:
    return [("in", request(rid, "tools/call", {"name": "area", "arguments": {}, **params})), ("out", answer)]


def _session(*items: Item, tool: dict[str, Any] = AREA) -> list[tuple[str, str, object]]:
    found = findings(*initialize("2025-11-25"), *tools_list(1, [tool]), *items)
    return [(f.rule, f.party, f.request_id) for f in found]


TEXT = [{"type": "text", "text": "6"}]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param({"content": TEXT, "structuredContent": {"area": 6}}, [], id="within"),
        pytest.param({"content": TEXT, "structuredContent": {"area": "6"}}, ["output-schema"], id="outside"),
        pytest.param({"content": TEXT}, ["output-schema"], id="missing"),
        pytest.param({"content": TEXT, "isError": True}, [], id="an-isError-result-need-not-be-structured"),
    ],
)
def test_a_success_is_held_to_the_declared_output_schema(answer: dict[str, Any], expected: list[str]) -> None:
    """A success fits the outputSchema or is the server's error; an isError result is not judged."""
    assert [rule for rule, _, _ in _session(*_call(2, result(2, answer)))] == expected


def test_the_finding_is_the_servers_at_the_result() -> None:
    """The finding points at the result line, names the request and blames the server."""
    [found] = findings(
        *initialize("2025-11-25"), *tools_list(1, [AREA]), *_call(2, result(2, {"content": TEXT}))
    )
    assert (found.rule, found.party, found.request_id, found.channel, found.line) == (
        "output-schema",
        "server",
        2,
        "out",
        3,
    )
    assert "area (request 2) succeeded without structuredContent" in found.message


def test_what_is_not_a_tools_result_is_not_judged() -> None:
    """A refusal, a task-augmented call answered with its task, and a tool relisted without an
    outputSchema give nothing."""
    task = {"task": {"taskId": "t1", "status": "working", "createdAt": "2026-01-01T00:00:00Z", "ttl": 1000}}
    assert _session(*_call(2, error(2, -32602, "bad")), *_call(3, result(3, task), task={"ttl": 1000})) == []
    relisted = {"name": "area", "inputSchema": {"type": "object"}}
    assert _session(*tools_list(4, [relisted]), *_call(5, result(5, {"content": TEXT}))) == []


def test_a_schema_that_cannot_judge_judges_no_content() -> None:
    """An outputSchema in an unknown dialect judges no structuredContent (a check that cannot be sure
    says nothing); a success without any is still found (no schema is needed to see that)."""
    odd = {**AREA, "outputSchema": {**SCHEMA, "$schema": "https://example.com/no-such-dialect"}}
    outside = result(2, {"content": TEXT, "structuredContent": {"area": "6"}})
    assert _session(*_call(2, outside), *_call(3, result(3, {"content": TEXT})), tool=odd) == [
        ("output-schema", "server", 3)
    ]

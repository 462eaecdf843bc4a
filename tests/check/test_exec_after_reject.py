"""exec-after-reject: an executor call for a rejected request, or after a rejected input frame.

Includes the seed's story end to end: a real server that deploys before checking authorisation,
then answers an error, recorded through the installed `mcptape record`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcptape.check.analyze import analyze_file
from mcptape.check.model import ExecCall
from tests.check.helpers import Item, error, findings, found, request, result, run, tools_list
from tests.clients import sdk_session
from tests.conftest import SERVERS


def exec_line(**fields: Any) -> bytes:
    import orjson

    return orjson.dumps({"action": "deploy", **fields}) + b"\n"


def call(rid: int, token: str = "x") -> bytes:
    return request(rid, "tools/call", {"name": "deploy", "arguments": {"token": token}})


STRICT = [
    {
        "name": "deploy",
        "inputSchema": {
            "type": "object",
            "properties": {"token": {"type": "string"}},
            "additionalProperties": False,
        },
    }
]

CASES: list[tuple[str, list[Item], list[str]]] = [
    (
        "exec naming a request later answered with an error",
        [("in", call(9)), ("exec", exec_line(request_id=9)), ("out", error(9, -32001, "not authorised"))],
        ["exec-after-reject"],
    ),
    (
        "exec by time during a request later answered with an error",
        [("in", call(9)), ("exec", exec_line()), ("out", error(9))],
        ["exec-after-reject"],
    ),
    (
        "exec recorded 300 µs after the error it preceded",
        [("in", call(9), 1.0), ("out", error(9), 1.0010), ("exec", exec_line(), 1.0013)],
        ["exec-after-reject"],
    ),
    (
        "exec naming a request answered long before with an error",
        [("in", call(9), 1.0), ("out", error(9), 1.001), ("exec", exec_line(request_id=9), 3.0)],
        ["exec-after-reject"],
    ),
    (
        "exec naming the id as a string",
        [("in", call(9)), ("exec", exec_line(request_id="9")), ("out", error(9))],
        ["exec-after-reject"],
    ),
    (
        "exec for a tools/call whose result has isError: true",
        [
            ("in", call(4)),
            ("exec", exec_line(request_id=4)),
            ("out", result(4, {"content": [], "isError": True})),
        ],
        ["exec-after-reject"],
    ),
    (
        "exec after a non-protocol input line",
        [("in", b"debug: hi\n"), ("in", call(2)), ("exec", exec_line(request_id=2)), ("out", result(2))],
        ["non-protocol-input", "exec-after-reject"],
    ),
    (
        "exec after an invalid input line, answered or not",
        [
            ("in", b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n'),
            ("out", error(None)),
            ("exec", exec_line()),
        ],
        ["invalid-message", "exec-after-reject"],
    ),
    (
        "a non-JSON exec line still counts",
        [("in", b"<html>\n"), ("exec", b"ssh deploy@host restart\n")],
        ["non-protocol-input", "exec-after-reject"],
    ),
    (
        "an http executor line counts too",
        [
            ("in", call(3)),
            ("http", b'{"method":"POST","target":"http://deploy.invalid/"}\n'),
            ("out", error(3)),
        ],
        ["exec-after-reject"],
    ),
    (
        "exec for a call outside the declared inputSchema",
        [
            *tools_list(1, STRICT),
            ("in", request(2, "tools/call", {"name": "deploy", "arguments": {"x": 1}})),
            ("exec", exec_line(request_id=2)),
            ("out", result(2, {"content": []})),
        ],
        ["schema-violation", "exec-after-reject"],
    ),
    (
        "exec for a request answered successfully is fine",
        [("in", call(9)), ("exec", exec_line(request_id=9)), ("out", result(9, {"content": []}))],
        [],
    ),
    (
        "exec before a later bad frame is fine",
        [
            ("in", call(1)),
            ("exec", exec_line(request_id=1)),
            ("out", result(1, {"content": []})),
            ("in", b"garbage\n"),
        ],
        ["non-protocol-input"],
    ),
    ("a rejected request without any exec is just a reject", [("in", call(9)), ("out", error(9))], []),
    (
        "exec of the next request after a reject is fine",
        [
            ("in", call(1), 1.0),
            ("out", error(1), 1.001),
            ("in", call(2), 1.5),
            ("exec", exec_line(), 1.6),
            ("out", result(2, {"content": []}), 1.7),
        ],
        [],
    ),
]


@pytest.mark.parametrize(("items", "expected"), [pytest.param(i, e, id=n) for n, i, e in CASES])
def test_exec_after_reject_table(items: list[Item], expected: list[str]) -> None:
    """Each case raises exactly the expected findings."""
    assert found(*items) == expected


def test_exec_after_reject_names_the_request_the_exec_line_and_the_error_response() -> None:
    """The finding points at the exec line and names the request and the error response that rejected it."""
    items: list[Item] = [
        ("in", call(9)),
        ("exec", exec_line(request_id=9)),
        ("out", error(9, -32001, "nope")),
    ]
    (finding,) = findings(*items)
    assert (finding.rule, finding.channel, finding.line, finding.request_id) == (
        "exec-after-reject",
        "exec",
        1,
        9,
    )
    assert finding.raw == exec_line(request_id=9)[:-1]
    assert finding.event == 1
    roles = {ref.role: (ref.channel, ref.line) for ref in finding.related}
    assert roles["request"] == ("in", 1)
    assert roles["error-response"] == ("out", 1)
    assert "error -32001: nope" in finding.message


def test_exec_calls_are_attributed_and_counted() -> None:
    """Every executor line counts as a call, attributed by request_id or by time."""
    calls: list[ExecCall] = []
    from mcptape.check.analyze import analyze
    from tests.check.helpers import events

    analysis = analyze(
        events(
            ("in", call(1)),
            ("exec", exec_line(request_id=1)),
            ("exec", b"not json\n"),
            ("out", result(1, {})),
        ),
        on_exec=calls.append,
    )
    assert analysis.exec_calls == 2
    assert [(c.request_id, c.attributed_to) for c in calls] == [(1, 1), (None, 1)]
    assert calls[1].value is None and calls[1].frame.body == b"not json"
    assert run(("exec", exec_line())).exec_calls == 1


async def _deploy(client: Client) -> dict[str, Any]:
    try:
        await client.call_tool("deploy_preview", {"target": "web", "token": "wrong"})
    except MCPError as exc:
        return {"error": exc.error.code}
    return {"error": None}


@pytest.mark.parametrize("check_first", [False, True])
def test_a_server_that_executes_before_its_authorisation_check_is_caught(
    tmp_path: Path, check_first: bool
) -> None:
    """Recorded for real: deploy-then-check is exec-after-reject; check-then-deploy is clean."""
    path = tmp_path / "deploy.jsonl"
    command = [
        sys.executable,
        str(SERVERS / "deploy_preview.py"),
        *(["--check-first"] if check_first else []),
    ]
    outcome = sdk_session(command, record_to=path, script=_deploy)
    assert outcome.results == {"error": -32001}
    _, analysis = analyze_file(str(path))
    assert analysis.rejects == 1
    if check_first:
        assert analysis.findings == []
        assert analysis.exec_calls == 0
        return
    assert analysis.exec_calls == 1
    (finding,) = analysis.findings
    assert finding.rule == "exec-after-reject"
    assert finding.channel == "exec"
    assert b'"action": "deploy-preview"' in finding.raw
    roles = {ref.role: ref for ref in finding.related}
    assert roles["request"].raw.count(b'"token":"wrong"') == 1
    assert b'"code":-32001' in roles["error-response"].raw
    assert orjson.loads(roles["request"].raw)["id"] == finding.request_id


def test_rejects_count_rejected_requests_and_rejected_input_lines_apart_from_executor_calls() -> None:
    """Rejects and executor calls are counted separately (the seed's two numbers)."""
    analysis = run(
        ("in", call(1)),
        ("out", error(1)),
        ("in", call(2)),
        ("out", result(2, {"content": [], "isError": True})),
        ("in", b"<html>\n"),
        ("in", call(3)),
        ("out", result(3, {"content": []})),
    )
    assert analysis.rejects == 3
    assert analysis.exec_calls == 0
    assert analysis.requests == 3

"""Every previous detection still holds under severity and party: the seed's zoo of planted
defects, each in a whole recording (with its exit record), is found by the rule aimed at it, as an
error or a warning (so `check` still exits 1), and of the party at fault."""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.check.model import Severity
from tests.check.helpers import Item, error, initialize, line, request, result, run, tools_list

PING, PONG = request(1, "ping"), result(1)
STRICT = [
    {
        "name": "deploy",
        "inputSchema": {
            "type": "object",
            "properties": {"target": {"type": "string"}},
            "additionalProperties": False,
        },
    }
]


def call(rid: Any, arguments: dict[str, Any] | None = None) -> bytes:
    return request(rid, "tools/call", {"name": "deploy", "arguments": arguments or {"target": "x"}})


def act(rid: Any = None) -> bytes:
    return line({"action": "deploy", **({"request_id": rid} if rid is not None else {})})


ZOO: dict[str, tuple[list[Item], str, str]] = {
    "banner": (
        [("out", b"\x1b[32mServer ready\x1b[0m\n"), ("in", PING), ("out", PONG)],
        "non-protocol-output",
        "server",
    ),
    "debug print": (
        [("in", PING), ("out", b"DEBUG: got ping\n"), ("out", PONG)],
        "non-protocol-output",
        "server",
    ),
    "merged stderr": (
        [("in", PING), ("out", b"Traceback (most recent call last):\n"), ("out", PONG)],
        "non-protocol-output",
        "server",
    ),
    "exec before auth": (
        [("in", call(2)), ("exec", act(2)), ("out", error(2, -32001, "unauthorised"))],
        "exec-after-reject",
        "server",
    ),
    "tolerant parser": (
        [
            ("in", b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy"}} trailing\n'),
            ("exec", act()),
            ("out", result(2, {"content": []})),
        ],
        "exec-after-reject",
        "server",
    ),
    "concatenated objects": (
        [("in", PING[:-1] + request(2, "ping")), ("out", PONG)],
        "non-protocol-input",
        "client",
    ),
    "boolean id": (
        [("in", line({"jsonrpc": "2.0", "id": True, "method": "ping"}))],
        "invalid-message",
        "client",
    ),
    "string params": (
        [("in", line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "{}"}))],
        "invalid-message",
        "client",
    ),
    "unknown arguments accepted": (
        [
            *tools_list(1, STRICT),
            ("in", call(2, {"target": "x", "extra": 1})),
            ("out", result(2, {"content": []})),
        ],
        "schema-violation",
        "server",
    ),
    "late action after a reject": (
        [("in", call(2)), ("out", error(2, -32602, "bad")), ("exec", act(2), 3.0)],
        "exec-after-reject",
        "server",
    ),
    "partial last frame": (
        [("in", PING), ("out", b'{"jsonrpc":"2.0","id":1,"res')],
        "incomplete-frame",
        "server",
    ),
    "invalid UTF-8": (
        [("in", PING), ("out", b'{"jsonrpc":"2.0","id":1,"result":{"t":"\xff"}}\n')],
        "non-protocol-output",
        "server",
    ),
    "pretty-printed JSON": (
        [("in", PING), ("out", b'{\n  "jsonrpc": "2.0",\n  "id": 1,\n  "result": {}\n}\n')],
        "non-protocol-output",
        "server",
    ),
    "batch": (
        [*initialize("2025-06-18"), ("in", line([{"jsonrpc": "2.0", "id": 2, "method": "ping"}]))],
        "batch-not-allowed",
        "client",
    ),
    "crash banner": (
        [("in", PING), ("out", PONG), ("out", b"Segmentation fault (core dumped)\n")],
        "non-protocol-output",
        "server",
    ),
}


@pytest.mark.parametrize(("items", "rule", "party"), ZOO.values(), ids=ZOO.keys())
def test_each_planted_defect_is_found_and_fails_the_default_gate(
    items: list[Item], rule: str, party: str
) -> None:
    """The rule aimed at the defect is among the findings, as an error or a warning of that party."""
    found = [(f.rule, f.party) for f in run(*items).findings if f.severity is not Severity.INFO]
    assert (rule, party) in found, found
    assert "incomplete-capture" not in [r for r, _ in found]  # a whole recording: the defect alone

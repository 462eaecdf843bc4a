"""Every public rule has a table: inputs that must raise it (with where), and inputs that must not.

The seed's hard inputs are all here: a debug line before a valid request; a valid request followed
by a banner on the same line; a truncated object then EOF; two objects concatenated; tools/call with
params as a string; an id that is `true`; unknown arguments; `{"jsonrpc":"1.0",...}`; `null`;
`<html>` noise.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcptape.check.rules import RULES
from tests.check.helpers import (
    Item,
    error,
    found,
    initialize,
    notification,
    request,
    result,
    run,
    tools_list,
)
from tests.check.rules.modern import TABLES as MODERN_RULE_TABLES
from tests.check.rules.modern_entry import TABLES as ENTRY_TABLES
from tests.check.rules.promises import PROMISE_TABLES
from tests.check.rules.transport import HTTP_RULES

MODERN_TABLES = {**MODERN_RULE_TABLES, **ENTRY_TABLES}  # the 2026-07-28 rules, in two files

# The required _meta of a 2026-07-28 request.
MODERN = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}

PING = request(1, "ping")
PONG = result(1)
EOF_IN: Item = ("eof", {"of": "in"})
EOF_OUT: Item = ("eof", {"of": "out"})
STRICT_ADD = {
    "name": "add",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
}
LOOSE_ADD = {
    "name": "add",
    "inputSchema": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}


def call(rid: int, arguments: object, name: str = "add") -> bytes:
    return request(rid, "tools/call", {"name": name, "arguments": arguments})


def test_the_public_rule_ids_are_registered_with_a_severity_and_an_explanation() -> None:
    """The ids are a public contract: exactly these, each with a one-line summary."""
    assert sorted(RULES) == sorted(
        [
            "non-protocol-output",
            "non-protocol-input",
            "incomplete-frame",
            "invalid-message",
            "batch-not-allowed",
            "duplicate-id",
            "unknown-response-id",
            "undeclared-capability",
            "client-capability",
            "unanswered-request",
            "schema-violation",
            "output-schema",
            "exec-after-reject",
            "incomplete-capture",
            "hint-read-only",
            "hint-open-world",
            "hint-idempotent",
            "hint-destructive",
            "ran-twice",
            "unknown-tool",
            "tools-drift",
            "tools-lock",
            *MODERN_TABLES,
            *HTTP_RULES,
        ]
    )
    for rule in RULES.values():
        assert rule.summary and "\n" not in rule.summary


NON_PROTOCOL_OUTPUT: list[tuple[str, list[Item], list[str]]] = [
    (
        "debug line before a valid response",
        [("in", PING), ("out", b"debug: ready\n"), ("out", PONG)],
        ["non-protocol-output"],
    ),
    ("<html> noise", [("out", b"<html><body>502 Bad Gateway</body></html>\n")], ["non-protocol-output"]),
    (
        "valid response followed by a banner",
        [("in", PING), ("out", PONG[:-1] + b" server ready\n")],
        ["unanswered-request", "non-protocol-output"],
    ),
    (
        "two objects concatenated",
        [("in", PING), ("out", PONG[:-1] + PONG)],
        ["unanswered-request", "non-protocol-output"],
    ),
    # An answer on a line refused for its bytes alone, that a lenient reader reads (a BOM skipped,
    # \r taken as whitespace): the line is the finding; the request was answered.
    ("a BOM", [("in", PING), ("out", b"\xef\xbb\xbf" + PONG)], ["non-protocol-output"]),
    ("CRLF line ending", [("in", PING), ("out", PONG[:-1] + b"\r\n")], ["non-protocol-output"]),
    (
        "invalid UTF-8",
        [("out", b'{"jsonrpc":"2.0","method":"x","params":{"a":"\xff"}}\n')],
        ["non-protocol-output"],
    ),
    ("an empty line", [("out", b"\n")], ["non-protocol-output"]),
    (
        "a Python traceback on stdout",
        [("out", b"Traceback (most recent call last):\n"), ("out", b'  File "server.py", line 1\n')],
        ["non-protocol-output", "non-protocol-output"],
    ),
    ("clean", [("in", PING), ("out", PONG)], []),
    (
        "the same noise on stderr is fine",
        [("in", PING), ("err", b"debug: ready\n<html>\n"), ("out", PONG)],
        [],
    ),
]

NON_PROTOCOL_INPUT: list[tuple[str, list[Item], list[str]]] = [
    (
        "debug line before a valid request",
        [("in", b"debug: hello\n"), ("in", PING), ("out", PONG)],
        ["non-protocol-input"],
    ),
    (
        "valid request followed by a banner on the same line",
        [("in", PING[:-1] + b" banner\n")],
        ["non-protocol-input"],
    ),
    ("two objects concatenated", [("in", PING[:-1] + request(2, "ping"))], ["non-protocol-input"]),
    ("<html> noise", [("in", b"<html>\n")], ["non-protocol-input"]),
    ("clean", [("in", PING), ("out", PONG)], []),
]

INCOMPLETE_FRAME: list[tuple[str, list[Item], list[str]]] = [
    ("truncated object then EOF", [("in", b'{"jsonrpc":"2.0","id":1,"meth'), EOF_IN], ["incomplete-frame"]),
    ("truncated at the end of the transcript", [("out", b'{"jsonrpc":"2.0","id":1,')], ["incomplete-frame"]),
    (
        "a whole response without its newline",
        [("in", PING), ("out", PONG[:-1]), EOF_OUT],
        ["unanswered-request", "incomplete-frame"],
    ),
    ("fragments joined into one line are fine", [("in", PING[:5]), ("in", PING[5:]), ("out", PONG)], []),
]

INVALID_MESSAGE: list[tuple[str, list[Item], list[str]]] = [
    (
        "tools/call with params as a string",
        [("in", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"add 1 2"}\n'), ("out", error(7))],
        ["invalid-message"],
    ),
    (
        "an id that is true",
        [("in", b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n'), ("out", error(None))],
        ["invalid-message"],
    ),
    ("an id that is null", [("in", b'{"jsonrpc":"2.0","id":null,"method":"ping"}\n')], ["invalid-message"]),
    (
        "an id with a fractional part",
        [("in", b'{"jsonrpc":"2.0","id":2.5,"method":"ping"}\n'), ("out", error(None))],
        ["invalid-message"],
    ),
    # RequestId is "type": ["string", "integer"] in the 2020-12 schema, where 1.0 is an integer
    (
        "an id of 1.0 is the integer 1, answered as 1",
        [("in", b'{"jsonrpc":"2.0","id":1.0,"method":"ping"}\n'), ("out", PONG)],
        [],
    ),
    (
        "an answer with id 1e0 answers request 1",
        [("in", PING), ("out", b'{"jsonrpc":"2.0","id":1e0,"result":{}}\n')],
        [],
    ),
    (
        '{"jsonrpc":"1.0"}',
        [("in", b'{"jsonrpc":"1.0","id":1,"method":"ping"}\n'), ("out", error(1))],
        ["invalid-message"],
    ),
    ("null", [("in", b"null\n")], ["invalid-message"]),
    ("null from the server", [("out", b"null\n")], ["invalid-message"]),
    ("a number", [("out", b"42\n")], ["invalid-message"]),
    ("no jsonrpc member", [("in", b'{"id":1,"method":"ping"}\n')], ["invalid-message"]),
    ("tools/call without a name", [("in", request(3, "tools/call", {"arguments": {}}))], ["invalid-message"]),
    ("tools/call arguments as a list", [("in", call(3, [1, 2]))], ["invalid-message"]),
    (
        "response with result and error",
        [("in", PING), ("out", b'{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}\n')],
        ["invalid-message"],
    ),
    (
        "error without a code",
        [("in", PING), ("out", b'{"jsonrpc":"2.0","id":1,"error":{"message":"x"}}\n')],
        ["invalid-message"],
    ),
    (
        "server sends tools/call to the client",
        [*initialize("2025-06-18"), ("out", call(9, {}))],
        ["invalid-message"],
    ),
    (
        "client sends sampling/createMessage",
        [("in", request(4, "sampling/createMessage", {}))],
        ["invalid-message"],
    ),
    (
        "server->client request in 2026-07-28",
        [
            (
                "in",
                request(1, "tools/list", MODERN),
            ),
            ("out", request(0, "roots/list")),
            ("out", result(1, {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "public"})),
        ],
        ["invalid-message"],
    ),
    (
        "server->client request in 2025-06-18 is fine",
        [*initialize("2025-06-18"), ("out", request(0, "roots/list")), ("in", result(0, {"roots": []}))],
        [],
    ),
    (
        "an error answering an unreadable line (id null) is fine",
        [("in", b"{oops\n"), ("out", error(None, -32700))],
        ["non-protocol-input"],
    ),
]

BATCH_NOT_ALLOWED: list[tuple[str, list[Item], list[str]]] = [
    (
        "batch in 2025-06-18",
        [*initialize("2025-06-18"), ("in", b"[" + PING[:-1] + b"]\n"), ("out", PONG)],
        ["batch-not-allowed"],
    ),
    ("batch before any handshake", [("in", b"[" + PING[:-1] + b"]\n"), ("out", PONG)], ["batch-not-allowed"]),
    (
        "batch in 2026-07-28",
        [
            (
                "in",
                b"[" + request(1, "tools/list", MODERN)[:-1] + b"]\n",
            )
        ],
        ["batch-not-allowed"],  # its request is part of a rejected line: not unanswered
    ),
    (
        "batch in 2025-03-26 is fine",
        [
            *initialize("2025-03-26"),
            ("in", b"[" + PING[:-1] + b"," + request(2, "ping")[:-1] + b"]\n"),
            ("out", b"[" + PONG[:-1] + b"," + result(2)[:-1] + b"]\n"),
        ],
        [],
    ),
    (
        "an empty batch is invalid even in 2025-03-26",
        [*initialize("2025-03-26"), ("in", b"[]\n")],
        ["invalid-message"],
    ),
]

DUPLICATE_ID: list[tuple[str, list[Item], list[str]]] = [
    (
        "request id reused while in flight",
        [("in", PING), ("in", PING), ("out", PONG), ("out", PONG)],
        ["duplicate-id"],
    ),
    (
        "server request id reused while in flight",
        [("out", request(5, "ping")), ("out", request(5, "ping")), ("in", result(5)), ("in", result(5))],
        ["duplicate-id"],
    ),
    (
        "same id after the answer, no revision known, is not judged",
        [("in", PING), ("out", PONG), ("in", PING), ("out", PONG)],
        [],
    ),
    # "The request ID MUST NOT have been previously used by the requestor within the same session"
    # (basic/index, 2025-03-26 to 2025-11-25; basic/messages, 2024-11-05)
    (
        "same id after the answer in a handshake revision",
        [*initialize("2025-06-18"), ("in", PING), ("out", PONG), ("in", PING), ("out", PONG)],
        ["duplicate-id"],
    ),
    (
        "same id after the answer in 2024-11-05",
        [*initialize("2024-11-05"), ("in", PING), ("out", PONG), ("in", PING), ("out", PONG)],
        ["duplicate-id"],
    ),
    (
        "same id after a cancel in a handshake revision",
        [
            *initialize("2025-11-25"),
            ("in", PING),
            ("in", notification("notifications/cancelled", {"requestId": 1})),
            ("in", PING),
            ("out", PONG),
        ],
        ["duplicate-id"],
    ),
    (
        "server request id reused after its answer in a handshake revision",
        [
            *initialize("2025-06-18"),
            ("out", request(5, "ping")),
            ("in", result(5)),
            ("out", request(5, "ping")),
            ("in", result(5)),
        ],
        ["duplicate-id"],
    ),
    (
        "the initialize of a new session may use the ids of the last one",
        [
            *initialize("2025-06-18"),
            ("in", PING),
            ("out", PONG),
            *initialize("2025-06-18"),
            ("in", PING),
            ("out", PONG),
        ],
        [],
    ),
    (
        # "MUST NOT match the ID of any other request the sender has issued and not yet received a
        # response for" (2026-07-28, basic/index): an answered id may come again
        "same id after the answer in 2026-07-28",
        [
            ("in", request(1, "tools/list", MODERN)),
            ("out", result(1, {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})),
            ("in", request(1, "tools/list", MODERN)),
            ("out", result(1, {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})),
        ],
        [],
    ),
    (
        "the same number as a string is another id",
        [("in", PING), ("in", request("1", "ping")), ("out", PONG), ("out", result("1"))],
        [],
    ),
]

DISCOVERED: dict[str, Any] = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "serverInfo": {},
}
DISCOVERED.update({"resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
PROMPTS = {"prompts": [{"name": "greet"}]}
BARE: list[Item] = [  # a handshake whose server declares nothing
    ("in", request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}})),
    ("out", result(0, {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {}})),
]
# "Servers that support tools/resources/prompts/completions MUST declare the ... capability"
UNDECLARED_CAPABILITY: list[tuple[str, list[Item], list[str]]] = [
    (
        "prompts served without the prompts capability",
        [*BARE, ("in", request(1, "prompts/list")), ("out", result(1, PROMPTS))],
        ["undeclared-capability"],
    ),
    (
        "once per feature",
        [
            *BARE,
            ("in", request(1, "prompts/list")),
            ("out", result(1, PROMPTS)),
            ("in", request(2, "prompts/get", {"name": "greet"})),
            ("out", result(2, {"messages": []})),
        ],
        ["undeclared-capability"],
    ),
    (
        "an empty listing is no support",
        [
            *initialize("2025-06-18"),
            ("in", request(1, "resources/list")),
            ("out", result(1, {"resources": []})),
        ],
        [],
    ),
    (
        "a refusal is no support",
        [*BARE, ("in", request(1, "prompts/list")), ("out", error(1, -32601))],
        [],
    ),
    (
        "completions had no capability in 2024-11-05",
        [
            *BARE[:1],
            ("out", result(0, {"protocolVersion": "2024-11-05", "capabilities": {}, "serverInfo": {}})),
            ("in", request(1, "completion/complete", {"ref": {}, "argument": {}})),
            ("out", result(1, {"completion": {"values": []}})),
        ],
        [],
    ),
    (
        "2026-07-28: the capabilities of server/discover",
        [
            ("in", request(1, "server/discover", MODERN)),
            ("out", result(1, DISCOVERED)),
            ("in", request(2, "prompts/list", MODERN)),
            ("out", result(2, {**PROMPTS, "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})),
        ],
        ["undeclared-capability"],
    ),
    (
        "no declaration seen, nothing judged",
        [("in", request(1, "prompts/list")), ("out", result(1, PROMPTS))],
        [],
    ),
]


def _declaring(client: dict[str, Any], version: str = "2025-11-25") -> list[Item]:
    """A handshake whose client declares `client`."""
    asked = {"protocolVersion": version, "capabilities": client, "clientInfo": {}}
    return [
        ("in", request(0, "initialize", asked)),
        ("out", result(0, {"protocolVersion": version, "capabilities": {}, "serverInfo": {}})),
    ]


FORM = request(7, "elicitation/create", {"message": "name?", "requestedSchema": {"type": "object"}})
URL = request(
    7, "elicitation/create", {"mode": "url", "message": "go", "url": "https://x", "elicitationId": "e"}
)
ANSWERED: Item = ("in", result(7, {"action": "cancel"}))
TOOLED = request(7, "sampling/createMessage", {"messages": [], "maxTokens": 9, "tools": [{"name": "t"}]})
# "Servers MUST NOT send elicitation requests with modes that are not supported by the client";
# "Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support
# for tool use via the sampling.tools capability" (2025-11-25)
CLIENT_CAPABILITY: list[tuple[str, list[Item], list[str]]] = [
    (
        "form mode to a client declaring {} (form)",
        [*_declaring({"elicitation": {}}), ("out", FORM), ANSWERED],
        [],
    ),
    (
        "url mode to a client declaring {} (form only)",
        [*_declaring({"elicitation": {}}), ("out", URL), ANSWERED],
        ["client-capability"],
    ),
    (
        "form mode to a url-only client",
        [*_declaring({"elicitation": {"url": {}}}), ("out", FORM), ANSWERED],
        ["client-capability"],
    ),
    (
        "an elicitation to a client without the capability",
        [*_declaring({}), ("out", FORM), ANSWERED],
        ["client-capability"],
    ),
    (
        "url mode to a client declaring it",
        [*_declaring({"elicitation": {"url": {}}}), ("out", URL), ANSWERED],
        [],
    ),
    (
        "tool-enabled sampling without sampling.tools",
        [*_declaring({"sampling": {}}), ("out", TOOLED), ANSWERED],
        ["client-capability"],
    ),
    (
        "tool-enabled sampling with sampling.tools",
        [*_declaring({"sampling": {"tools": {}}}), ("out", TOOLED), ANSWERED],
        [],
    ),
    ("2025-06-18 had no modes: not judged", [*_declaring({}, "2025-06-18"), ("out", URL), ANSWERED], []),
]

UNKNOWN_RESPONSE_ID: list[tuple[str, list[Item], list[str]]] = [
    ("response to an id never sent", [("out", result(99))], ["unknown-response-id"]),
    ("answered twice", [("in", PING), ("out", PONG), ("out", PONG)], ["unknown-response-id"]),
    ("client answers a request the server never sent", [("in", result(3))], ["unknown-response-id"]),
    (
        "late answer to a cancelled request is fine",
        [("in", PING), ("in", notification("notifications/cancelled", {"requestId": 1})), ("out", PONG)],
        [],
    ),
]

UNANSWERED_REQUEST: list[tuple[str, list[Item], list[str]]] = [
    ("client request never answered", [("in", PING), EOF_IN], ["unanswered-request"]),
    (
        "server request never answered",
        [*initialize("2025-06-18"), ("out", request(0, "roots/list"))],
        ["unanswered-request"],
    ),
    (
        "cancelled request",
        [("in", PING), ("in", notification("notifications/cancelled", {"requestId": 1}))],
        [],
    ),
    ("subscriptions/listen stays open by design", [("in", request(1, "subscriptions/listen", {}))], []),
    ("notifications need no answer", [("in", notification("notifications/initialized"))], []),
]

SCHEMA_VIOLATION: list[tuple[str, list[Item], list[str]]] = [
    (
        "unknown arguments (additionalProperties false)",
        [*tools_list(1, [STRICT_ADD]), ("in", call(2, {"a": 1, "b": 2, "c": 3})), ("out", error(2))],
        ["schema-violation"],
    ),
    (
        "unknown arguments are allowed when the schema does not forbid them",
        [*tools_list(1, [LOOSE_ADD]), ("in", call(2, {"a": 1, "b": 2, "c": 3})), ("out", result(2))],
        [],
    ),
    (
        "a missing required argument",
        [*tools_list(1, [LOOSE_ADD]), ("in", call(2, {"a": 1})), ("out", error(2))],
        ["schema-violation"],
    ),
    (
        "a wrong type",
        [*tools_list(1, [LOOSE_ADD]), ("in", call(2, {"a": "1", "b": 2})), ("out", error(2))],
        ["schema-violation"],
    ),
    (
        "a boolean is not an integer",
        [*tools_list(1, [LOOSE_ADD]), ("in", call(2, {"a": True, "b": 2})), ("out", error(2))],
        ["schema-violation"],
    ),
    (
        "no arguments at all",
        [*tools_list(1, [LOOSE_ADD]), ("in", request(2, "tools/call", {"name": "add"})), ("out", error(2))],
        ["schema-violation"],
    ),
    (
        "arguments that fit",
        [*tools_list(1, [STRICT_ADD]), ("in", call(2, {"a": 1, "b": 2})), ("out", result(2))],
        [],
    ),
    (
        "a tool not declared in tools/list is not judged",
        [("in", call(2, {"zzz": 1})), ("out", result(2))],
        [],
    ),
]
TYPED_ADD = {**LOOSE_ADD, "outputSchema": {"type": "object", "properties": {"sum": {"type": "integer"}}}}
OUTPUT_SCHEMA: list[tuple[str, list[Item], list[str]]] = [
    (
        "structured content that fits the outputSchema",
        [
            *tools_list(1, [TYPED_ADD]),
            ("in", call(2, {"a": 1, "b": 2})),
            ("out", result(2, {"structuredContent": {"sum": 3}})),
        ],
        [],
    ),
    (
        "structured content outside the outputSchema",
        [
            *tools_list(1, [TYPED_ADD]),
            ("in", call(2, {"a": 1, "b": 2})),
            ("out", result(2, {"structuredContent": {"sum": "3"}})),
        ],
        ["output-schema"],
    ),
    (
        "no structured content though an outputSchema was declared",
        [*tools_list(1, [TYPED_ADD]), ("in", call(2, {"a": 1, "b": 2})), ("out", result(2, {"content": []}))],
        ["output-schema"],
    ),
    (
        "an isError result need not be structured",
        [
            *tools_list(1, [TYPED_ADD]),
            ("in", call(2, {"a": 1, "b": 2})),
            ("out", result(2, {"isError": True})),
        ],
        [],
    ),
]

TABLES = {
    "non-protocol-output": NON_PROTOCOL_OUTPUT,
    "non-protocol-input": NON_PROTOCOL_INPUT,
    "incomplete-frame": INCOMPLETE_FRAME,
    "invalid-message": INVALID_MESSAGE,
    "batch-not-allowed": BATCH_NOT_ALLOWED,
    "duplicate-id": DUPLICATE_ID,
    "unknown-response-id": UNKNOWN_RESPONSE_ID,
    "undeclared-capability": UNDECLARED_CAPABILITY,
    "client-capability": CLIENT_CAPABILITY,
    "unanswered-request": UNANSWERED_REQUEST,
    "schema-violation": SCHEMA_VIOLATION,
    "output-schema": OUTPUT_SCHEMA,
}
CASES = [
    pytest.param(items, expected, id=f"{rule}: {name}")
    for rule, table in TABLES.items()
    for name, items, expected in table
]


@pytest.mark.parametrize(("items", "expected"), CASES)
def test_rule_table(items: list[Item], expected: list[str]) -> None:
    """Each input raises exactly the expected findings, in time order."""
    assert found(*items) == expected


def test_every_rule_has_a_table_with_a_positive_case() -> None:
    """No rule goes untested (exec-after-reject has its own file, test_exec_after_reject.py)."""
    # the 2026-07-28 rules have their tables in tests/check/rules/modern.py and modern_entry.py,
    # incomplete-capture in tests/check/test_incomplete_capture.py
    # and the HTTP transport rules in tests/check/rules/transport.py
    # and the promise rules in tests/check/rules/promises.py
    # and the tool surface's in tests/surface/test_check_surface.py
    assert set(TABLES) | {"exec-after-reject", "incomplete-capture", "tools-drift", "tools-lock"} | set(
        MODERN_TABLES
    ) | set(HTTP_RULES) | set(PROMISE_TABLES) == set(RULES)
    for rule, table in TABLES.items():
        assert any(rule in expected for _, _, expected in table), rule


def test_a_finding_names_its_line_offset_raw_bytes_and_request_id() -> None:
    """The finding points at the exact bytes: 1-based line, byte offset in the channel, raw line."""
    analysis = run(("in", PING), ("in", b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}\n'))
    bad = next(f for f in analysis.findings if f.rule == "invalid-message")
    assert (bad.channel, bad.line, bad.offset) == ("in", 2, len(PING))
    assert bad.raw == b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}'
    assert bad.request_id == 7
    assert bad.event == 1
    assert "params of tools/call must be an object, not a string" in bad.message


def test_first_non_protocol_line_per_direction_names_the_line_before_it() -> None:
    """The report's headline: where each direction stopped being protocol, and what came before."""
    analysis = run(("in", PING), ("out", PONG), ("out", b"debug: oops\n"), ("out", b"<html>\n"))
    first = analysis.first_non_protocol["out"]
    assert first is not None
    assert (first.frame.line, first.frame.offset, first.frame.body) == (2, len(PONG), b"debug: oops")
    assert first.previous is not None and first.previous.body == PONG[:-1]
    assert first.previous.line == 1 and first.previous.offset == 0
    assert analysis.first_non_protocol["in"] is None


def test_every_rule_id_is_in_the_docs() -> None:
    """docs/check.md names every registered rule id (the public contract), in backquotes."""
    from tests.conftest import ROOT

    text = (ROOT / "docs" / "check.md").read_text(encoding="utf-8")
    assert [rule for rule in RULES if f"`{rule}`" not in text] == []

"""Must show: the rules the handshake revisions (2024-11-05 to 2025-11-25) share with 2026-07-28, and
the version a refused switch leaves, each on a session that breaks it and one that does not (the
recorded sessions they were found on: tests/check/test_real_verdicts.py).

- `cancel-unknown-request`: "Cancellation notifications **MUST** only reference requests that:
  Were previously issued in the same direction" (basic/utilities/cancellation), either direction.
- `unrequested-log`: "Servers that emit log message notifications **MUST** declare the `logging`
  capability" (server/utilities/logging).
- `progress-after-completion`: "Progress notifications **MUST** only reference tokens that: Were
  provided in an active request" and "**MUST** stop after completion" (basic/utilities/progress).
- `unanswered-request` is its receiver's: the client's for a server request.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.check.helpers import SERVES, Item, error, findings, notification, request, result, run


def handshake(version: str, server: dict[str, Any] | None = None) -> list[Item]:
    """A handshake negotiating `version`, the server declaring `server` capabilities beside the
    features it serves (SERVES: tools, resources, prompts, completions)."""
    declared = {**SERVES, **(server or {})}
    return [
        ("in", request(0, "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": {}})),
        ("out", result(0, {"protocolVersion": version, "capabilities": declared, "serverInfo": {}})),
        ("in", notification("notifications/initialized")),
    ]


LOG = notification("notifications/message", {"level": "info", "data": "step 1"})


def progress(token: Any, step: int) -> bytes:
    return notification("notifications/progress", {"progressToken": token, "progress": step})


MODERN = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}

CASES: list[tuple[str, list[Item], list[tuple[str, str]]]] = [
    (
        "a client cancels a request it never sent",
        [*handshake("2025-06-18"), ("in", notification("notifications/cancelled", {"requestId": 99}))],
        [("cancel-unknown-request", "client")],
    ),
    (
        "a client cancels its request in flight, then one already answered",
        [
            *handshake("2025-06-18"),
            ("in", request(1, "tools/call", {"name": "slow", "arguments": {}})),
            ("in", request(2, "ping")),
            ("out", result(2)),
            ("in", notification("notifications/cancelled", {"requestId": 1})),
            ("in", notification("notifications/cancelled", {"requestId": 2})),
        ],
        [],
    ),
    (
        "a server cancels a request it never sent",
        [*handshake("2024-11-05"), ("out", notification("notifications/cancelled", {"requestId": 5}))],
        [("cancel-unknown-request", "server")],
    ),
    (
        "a server cancels its own roots/list in flight",
        [
            *handshake("2025-11-25"),
            ("out", request(5, "roots/list")),
            ("out", notification("notifications/cancelled", {"requestId": 5})),
        ],
        [],
    ),
    (
        "log messages without the logging capability",
        [*handshake("2025-03-26", {"tools": {}}), ("out", LOG)],
        [("unrequested-log", "server")],
    ),
    (
        "log messages with the logging capability",
        [*handshake("2025-03-26", {"tools": {}, "logging": {}}), ("out", LOG)],
        [],
    ),
    (
        "log messages before any initialize result is seen are not judged",
        [("out", LOG)],
        [],
    ),
    (
        "progress that goes back, in a handshake revision",
        [
            *handshake("2025-11-25"),
            ("in", request(1, "tools/call", {"name": "n", "arguments": {}, "_meta": {"progressToken": 7}})),
            ("out", progress(7, 2)),
            ("out", progress(7, 1)),
            ("out", result(1, {"content": []})),
        ],
        [("progress-not-increasing", "server")],
    ),
    (
        "progress for a request in flight, then after its answer",
        [
            *handshake("2025-06-18"),
            (
                "in",
                request(1, "tools/call", {"name": "count", "arguments": {}, "_meta": {"progressToken": "t"}}),
            ),
            ("out", progress("t", 1)),
            ("out", result(1, {"content": []})),
            ("out", progress("t", 2)),
        ],
        [("progress-after-completion", "server")],
    ),
    (
        "progress for a token no request provided",
        [*handshake("2025-03-26"), ("out", progress(42, 1))],
        [("progress-after-completion", "server")],
    ),
    (
        "progress for a cancelled call still running, never answered",
        [
            *handshake("2025-06-18"),
            (
                "in",
                request(1, "tools/call", {"name": "slow", "arguments": {}, "_meta": {"progressToken": 1}}),
            ),
            ("in", notification("notifications/cancelled", {"requestId": 1})),
            ("out", progress(1, 2)),
        ],
        [],
    ),
    (
        "progress before any initialize result is seen is not judged",
        [("out", progress("t", 1))],
        [],
    ),
    (
        "a server request the client never answered is the client's",
        [*handshake("2025-06-18"), ("out", request(3, "roots/list")), ("eof", {"of": "in"})],
        [("unanswered-request", "client")],
    ),
    (
        "a client request the server never answered is the server's",
        [*handshake("2025-06-18"), ("in", request(3, "ping")), ("eof", {"of": "out"}), ("eof", {"of": "in"})],
        [("unanswered-request", "server")],
    ),
    (
        # stdio's shutdown: "First, closing the input stream to the child process" (basic/lifecycle)
        "a client request in flight when the client closed stdin was abandoned by the client",
        [*handshake("2025-06-18"), ("in", request(3, "ping")), ("eof", {"of": "in"})],
        [("unanswered-request", "client")],
    ),
]


@pytest.mark.parametrize(("items", "expected"), [pytest.param(i, e, id=n) for n, i, e in CASES])
def test_handshake_rule_table(items: list[Item], expected: list[tuple[str, str]]) -> None:
    """Each session gives exactly these findings (rule, party), in time order."""
    assert [(f.rule, f.party) for f in findings(*items)] == expected


def test_a_refused_initialize_negotiates_nothing() -> None:
    """2026-07-28 in force, an initialize refused: the session stays 2026-07-28, and the legacy
    client's requests after it are judged there (missing _meta)."""
    analysis = run(
        ("in", request(0, "server/discover", MODERN)),
        (
            "out",
            result(
                0,
                {
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {},
                    "serverInfo": {"name": "s", "version": "1"},
                    "ttlMs": 0,
                    "cacheScope": "private",
                },
            ),
        ),
        (
            "in",
            request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}}),
        ),
        ("out", error(1, -32022, "the initialize handshake is not accepted")),
        ("in", request(2, "tools/list")),
        ("out", error(2, -32602, "missing _meta")),
    )
    assert analysis.protocol_version == "2026-07-28" and analysis.stateless
    assert [(f.rule, f.request_id) for f in analysis.findings] == [("missing-meta", 2)]


def test_a_2026_request_refused_on_a_handshake_connection_keeps_the_handshakes_revision() -> None:
    """2025-11-25 by handshake, a 2026-07-28 request refused: the handshake's requests after it are
    not judged by 2026-07-28 (no missing-meta, no removed-method for ping)."""
    analysis = run(
        *handshake("2025-11-25", {"tools": {}}),
        ("in", request(1, "tools/list", MODERN)),
        ("out", error(1, -32600, "this connection serves the handshake protocol era")),
        ("in", request(2, "ping")),
        ("out", result(2)),
    )
    assert (analysis.protocol_version, analysis.stateless) == ("2025-11-25", False)
    assert analysis.findings == []


def test_a_2026_request_served_on_a_handshake_connection_switches() -> None:
    """The same request served (a dual-era server "MAY serve both eras"): 2026-07-28 is in force."""
    analysis = run(
        *handshake("2025-11-25", {"tools": {}}),
        ("in", request(1, "tools/list", MODERN)),
        ("out", result(1, {"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})),
    )
    assert (analysis.protocol_version, analysis.stateless) == ("2026-07-28", True)

"""Promises against evidence: each rule of check/promises.py on small recorded sessions, one that
breaks it and ones that must stay clean (a read-only tool that GETs, a correct idempotent upsert called
twice, a cancelled call the server did not run, identical calls that ran once each by design)."""

from __future__ import annotations

from typing import Any

import orjson

from tests.check.helpers import Item, error, notification, request, result

Table = list[tuple[str, list[Item], list[str]]]
SCHEMA = {"type": "object"}


def tool(name: str, **hints: bool) -> dict[str, Any]:
    """A listed tool, with these annotations (none: no `annotations` at all)."""
    found: dict[str, Any] = {"name": name, "inputSchema": SCHEMA}
    if hints:
        found["annotations"] = hints
    return found


def listing(rid: int, *tools: dict[str, Any], cursor: str | None = None) -> list[Item]:
    page: dict[str, Any] = {"tools": list(tools)}
    if cursor is not None:
        page["nextCursor"] = cursor
    return [("in", request(rid, "tools/list")), ("out", result(rid, page))]


def call(rid: int, name: str, **arguments: Any) -> Item:
    return ("in", request(rid, "tools/call", {"name": name, "arguments": arguments}))


def call_at(t: float, rid: int, name: str) -> Item:
    """A call at `t` seconds: a tap line naming no request, 5 ms or less after an answer, counts for
    that answer's request (check/attribution.py), so such lines come well after the listing."""
    return ("in", request(rid, "tools/call", {"name": name, "arguments": {}}), t)


def done(rid: int) -> Item:
    return ("out", result(rid, {"content": []}))


def tap(rid: Any, action: str = "write", **fields: Any) -> Item:
    return ("exec", orjson.dumps({"action": action, "request_id": rid, **fields}) + b"\n")


def http(method: str, target: str, **fields: Any) -> Item:
    return ("http", orjson.dumps({"method": method, "target": target, **fields}) + b"\n")


def stub(*argv: str) -> Item:
    line = {"action": "exec", "source": "stub", "stub": argv[0], "argv": list(argv), "outcome": "failed"}
    return ("exec", orjson.dumps(line) + b"\n")


def cancel(rid: int) -> Item:
    return ("in", notification("notifications/cancelled", {"requestId": rid}))


READ_ONLY_TOOL = tool("lookup", readOnlyHint=True)
# readOnlyHint: "If true, the tool does not modify its environment." (schema.ts, ToolAnnotations)
READ_ONLY: Table = [
    (
        "a tap action without a kind",
        [*listing(1, READ_ONLY_TOOL), call(2, "lookup"), tap(2), done(2)],
        ["hint-read-only"],
    ),
    (
        "a tap action of kind update",
        [*listing(1, READ_ONLY_TOOL), call(2, "lookup"), tap(2, kind="update"), done(2)],
        ["hint-read-only"],
    ),
    (
        "an HTTP POST",
        [*listing(1, READ_ONLY_TOOL), call(2, "lookup"), http("POST", "http://api.example.test/x"), done(2)],
        ["hint-read-only"],
    ),
    (
        "a run of a stubbed command",
        [
            *listing(1, READ_ONLY_TOOL),
            call_at(1.0, 2, "lookup"),
            stub("ssh", "prod", "rm", "-rf", "/srv"),
            done(2),
        ],
        ["hint-read-only"],
    ),
    (
        "two writes: one finding per call",
        [*listing(1, READ_ONLY_TOOL), call(2, "lookup"), tap(2, "a"), tap(2, "b"), done(2)],
        ["hint-read-only"],
    ),
    (
        "GET, HEAD and OPTIONS are reads",
        [
            *listing(1, READ_ONLY_TOOL),
            call(2, "lookup"),
            http("GET", "http://api.example.test/robots.txt"),
            http("HEAD", "http://api.example.test/page"),
            http("OPTIONS", "http://api.example.test/page"),
            done(2),
        ],
        [],
    ),
    (
        "a CONNECT hides the request it tunnels",
        [*listing(1, READ_ONLY_TOOL), call(2, "lookup"), http("CONNECT", "api.example.test:443"), done(2)],
        [],
    ),
    (
        "a tap action of kind read",
        [*listing(1, READ_ONLY_TOOL), call(2, "lookup"), tap(2, kind="read"), done(2)],
        [],
    ),
    (
        "a stubbed command asked for its version",
        [*listing(1, READ_ONLY_TOOL), call_at(1.0, 2, "lookup"), stub("node", "-v"), done(2)],
        [],
    ),
    (
        "a tool without annotations is judged by nothing",
        [*listing(1, tool("lookup")), call(2, "lookup"), tap(2), done(2)],
        [],
    ),
    (
        "readOnlyHint false",
        [*listing(1, tool("lookup", readOnlyHint=False)), call(2, "lookup"), tap(2), done(2)],
        [],
    ),
    (
        "a call sent before the listing is judged by none",
        [
            ("in", request(1, "tools/list")),
            call(2, "lookup"),
            ("out", result(1, {"tools": [READ_ONLY_TOOL]})),
            tap(2),
            done(2),
        ],
        [],
    ),
    (
        "the annotations of the last listing before the call",
        [
            *listing(1, READ_ONLY_TOOL),
            *listing(2, tool("lookup", readOnlyHint=False)),
            call(3, "lookup"),
            tap(3),
            done(3),
        ],
        [],
    ),
]

CLOSED_TOOL = tool("remember", openWorldHint=False)
# openWorldHint: "If true, this tool may interact with an "open world" of external entities. If false,
# the tool's domain of interaction is closed."
OPEN_WORLD: Table = [
    (
        "an HTTP request to a remote host",
        [*listing(1, CLOSED_TOOL), call(2, "remember"), http("GET", "http://api.example.test/"), done(2)],
        ["hint-open-world"],
    ),
    (
        "an HTTPS tunnel to a remote host",
        [*listing(1, CLOSED_TOOL), call(2, "remember"), http("CONNECT", "api.example.test:443"), done(2)],
        ["hint-open-world"],
    ),
    (
        "a tap action of kind external",
        [*listing(1, CLOSED_TOOL), call(2, "remember"), tap(2, "email", kind="external"), done(2)],
        ["hint-open-world"],
    ),
    (
        "HTTP to loopback is inside",
        [
            *listing(1, CLOSED_TOOL),
            call(2, "remember"),
            http("POST", "http://127.0.0.1:9200/index"),
            http("GET", "http://localhost/"),
            http("CONNECT", "[::1]:443"),
            done(2),
        ],
        [],
    ),
    (
        "a tap action of kind create",
        [*listing(1, CLOSED_TOOL), call(2, "remember"), tap(2, kind="create"), done(2)],
        [],
    ),
    (
        "openWorldHint true",
        [
            *listing(1, tool("fetch", openWorldHint=True)),
            call(2, "fetch"),
            http("GET", "http://a.test/"),
            done(2),
        ],
        [],
    ),
]

ADDITIVE_TOOL = tool("append", destructiveHint=False)
# destructiveHint: "If true, the tool may perform destructive updates to its environment. If false, the
# tool performs only additive updates."
DESTRUCTIVE: Table = [
    (
        "a tap action of kind delete",
        [*listing(1, ADDITIVE_TOOL), call(2, "append"), tap(2, kind="delete"), done(2)],
        ["hint-destructive"],
    ),
    (
        "a tap action of kind update (an overwrite)",
        [*listing(1, ADDITIVE_TOOL), call(2, "append"), tap(2, kind="update"), done(2)],
        ["hint-destructive"],
    ),
    (
        "a tap action of kind create",
        [*listing(1, ADDITIVE_TOOL), call(2, "append"), tap(2, kind="create"), done(2)],
        [],
    ),
    ("a tap action without a kind", [*listing(1, ADDITIVE_TOOL), call(2, "append"), tap(2), done(2)], []),
    (
        "destructiveHint true",
        [*listing(1, tool("drop", destructiveHint=True)), call(2, "drop"), tap(2, kind="delete"), done(2)],
        [],
    ),
]

UPSERT = tool("put", idempotentHint=True)
# idempotentHint: "If true, calling the tool repeatedly with the same arguments will have no additional
# effect on its environment."
IDEMPOTENT: Table = [
    (
        "called again with the same arguments, a new action",
        [
            *listing(1, UPSERT),
            call(2, "put", key="k"),
            tap(2, "insert", row=1),
            done(2),
            call(3, "put", key="k"),
            tap(3, "insert", row=2),
            done(3),
        ],
        ["hint-idempotent"],
    ),
    (
        "a correct upsert called twice",
        [
            *listing(1, UPSERT),
            call(2, "put", key="k", value="v"),
            tap(2, "upsert", key="k", kind="create"),
            done(2),
            call(3, "put", key="k", value="v"),
            tap(3, "upsert", key="k", kind="update"),
            done(3),
        ],
        [],
    ),
    (
        "the second call does less",
        [
            *listing(1, UPSERT),
            call(2, "put", key="k"),
            tap(2, "a"),
            tap(2, "b"),
            done(2),
            call(3, "put", key="k"),
            tap(3, "a"),
            done(3),
        ],
        [],
    ),
    (
        "the first call did nothing (refused): nothing to compare",
        [
            *listing(1, UPSERT),
            call(2, "put", key="k"),
            ("out", error(2, -32000, "busy")),
            call(3, "put", key="k"),
            tap(3),
            done(3),
        ],
        [],
    ),
    (
        "other arguments",
        [
            *listing(1, UPSERT),
            call(2, "put", key="a"),
            tap(2, key="a"),
            done(2),
            call(3, "put", key="b"),
            tap(3, key="b"),
            done(3),
        ],
        [],
    ),
    (
        "sent while the first was still in flight",
        [
            *listing(1, UPSERT),
            call(2, "put", key="k"),
            call(3, "put", key="k"),
            tap(2, row=1),
            tap(3, row=2),
            done(2),
            done(3),
        ],
        [],
    ),
    (
        "a tool not declared idempotent",
        [
            *listing(1, tool("put")),
            call(2, "put", key="k"),
            tap(2, row=1),
            done(2),
            call(3, "put", key="k"),
            tap(3, row=2),
            done(3),
        ],
        [],
    ),
]

RAN_TWICE: Table = [
    (
        "one request's action twice",
        [call(1, "deploy"), tap(1, "deploy", target="web"), tap(1, "deploy", target="web"), done(1)],
        ["ran-twice"],
    ),
    (
        "one request's POST twice, with the same body (a cassette keeps bodies)",
        [
            call(1, "post"),
            http("POST", "http://a.test/m", body="hi"),
            http("POST", "http://a.test/m", body="hi"),
            done(1),
        ],
        ["ran-twice"],
    ),
    (
        "two POSTs through the sink (no body kept: not told apart)",
        [
            call(1, "post"),
            http("POST", "http://a.test/m", body_size=2),
            http("POST", "http://a.test/m", body_size=2),
            done(1),
        ],
        [],
    ),
    (
        "two different actions of one request",
        [call(1, "deploy"), tap(1, "deploy", target="web"), tap(1, "deploy", target="api"), done(1)],
        [],
    ),
    (
        "a stubbed command tried twice (it never ran)",
        [call(1, "ship"), stub("ssh", "prod"), stub("ssh", "prod"), done(1)],
        [],
    ),
    (
        "a failed action tried again",
        [call(1, "deploy"), tap(1, "deploy", outcome="failed"), tap(1, "deploy", outcome="failed"), done(1)],
        [],
    ),
    (
        "cancelled, sent again, both ran",
        [
            call(1, "deploy", target="web"),
            tap(1, "deploy"),
            cancel(1),
            call(2, "deploy", target="web"),
            tap(2, "deploy"),
            done(2),
        ],
        ["ran-twice"],
    ),
    (
        "never answered (timed out), sent again, both ran",
        [
            call(1, "deploy", target="web"),
            tap(1, "deploy"),
            call(2, "deploy", target="web"),
            tap(2, "deploy"),
            done(2),
        ],
        ["unanswered-request", "ran-twice"],
    ),
    (
        "cancelled, then acted on naming it, sent again",
        [
            call(1, "deploy", target="web"),
            cancel(1),
            tap(1, "deploy"),
            call(2, "deploy", target="web"),
            tap(2, "deploy"),
            done(2),
        ],
        ["ran-twice"],
    ),
    (
        "a cancelled call the server did not run, sent again",
        [
            call(1, "deploy", target="web"),
            cancel(1),
            call(2, "deploy", target="web"),
            tap(2, "deploy"),
            done(2),
        ],
        [],
    ),
    (
        "cancelled, sent again with other arguments",
        [
            call(1, "deploy", target="web"),
            tap(1, "deploy"),
            cancel(1),
            call(2, "deploy", target="api"),
            tap(2, "deploy"),
            done(2),
        ],
        [],
    ),
    (
        "identical calls that ran once each by design",
        [
            call(1, "deploy", target="web"),
            tap(1, "deploy"),
            done(1),
            call(2, "deploy", target="web"),
            tap(2, "deploy"),
            done(2),
        ],
        [],
    ),
]

LISTED = [tool("lookup")]
UNKNOWN_TOOL: Table = [
    (
        "a call of a tool the listing left out",
        [*listing(1, *LISTED), call(2, "deploy"), ("out", error(2, -32602, "Unknown tool: deploy"))],
        ["unknown-tool"],
    ),
    (
        "an action performed for it",
        [*listing(1, *LISTED), call(2, "deploy"), tap(2, "deploy"), done(2)],
        ["unknown-tool", "unknown-tool"],
    ),
    ("no tools/list in the session", [call(2, "deploy"), tap(2, "deploy"), done(2)], []),
    (
        "a listing whose next page is still due",
        [*listing(1, *LISTED, cursor="p2"), call(2, "deploy"), tap(2, "deploy"), done(2)],
        [],
    ),
    (
        "a paginated listing, the tool on its last page",
        [
            *listing(1, *LISTED, cursor="p2"),
            *listing(2, tool("deploy")),
            call(3, "deploy"),
            call(4, "lookup"),
            done(3),
            done(4),
        ],
        [],
    ),
    (
        "after notifications/tools/list_changed",
        [
            *listing(1, *LISTED),
            ("out", notification("notifications/tools/list_changed")),
            call(2, "deploy"),
            tap(2),
            done(2),
        ],
        [],
    ),
    ("a listed tool", [*listing(1, *LISTED), call(2, "lookup"), tap(2), done(2)], []),
]

PROMISE_TABLES: dict[str, Table] = {
    "hint-read-only": READ_ONLY,
    "hint-open-world": OPEN_WORLD,
    "hint-destructive": DESTRUCTIVE,
    "hint-idempotent": IDEMPOTENT,
    "ran-twice": RAN_TWICE,
    "unknown-tool": UNKNOWN_TOOL,
}

"""Promises against evidence: each rule of check/promises.py on small recorded sessions, one that
breaks it and ones that must stay clean (a read-only tool that GETs, a correct idempotent upsert called
twice, a cancelled call the server did not run, identical calls that ran once each by design)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from mcptape.check.model import Severity
from tests.check.helpers import Item, error, notification, request, result, run

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
CASES = [
    pytest.param(items, expected, id=f"{rule}: {name}")
    for rule, table in PROMISE_TABLES.items()
    for name, items, expected in table
]


@pytest.mark.parametrize(("items", "expected"), CASES)
def test_promise_rule_table(items: list[Item], expected: list[str]) -> None:
    """Each session raises exactly the expected findings, in time order."""
    assert [f.rule for f in run(*items).findings] == expected


def test_every_promise_rule_has_a_breaking_and_a_clean_case() -> None:
    """No rule without both sides."""
    for rule, table in PROMISE_TABLES.items():
        assert any(rule in expected for _, _, expected in table), rule
        assert any(expected == [] for _, _, expected in table), rule


def test_a_read_only_tool_that_writes_is_the_servers_error_at_the_action_naming_the_promise() -> None:
    """The finding points at the action, names the request and the tools/list answer that promised."""
    analysis = run(*listing(1, READ_ONLY_TOOL), call(2, "lookup"), tap(2, kind="delete"), done(2))
    (found,) = analysis.findings
    assert (found.severity, found.party, found.channel, found.line, found.request_id) == (
        Severity.ERROR,
        "server",
        "exec",
        1,
        2,
    )
    assert [(r.role, r.channel, r.line) for r in found.related] == [
        ("exec", "exec", 1),
        ("request", "in", 2),
        ("tools/list", "out", 1),
    ]
    assert "readOnlyHint: true" in found.message and "kind delete" in found.message


def test_a_re_sent_call_that_ran_twice_shows_both_requests_and_both_actions() -> None:
    """Warning, party client: the tool is not idempotent; at the second request, with the first
    request, its action, the cancel and the second action beside it."""
    analysis = run(
        call(1, "deploy", target="web"),
        tap(1, "deploy"),
        cancel(1),
        call(2, "deploy", target="web"),
        tap(2, "deploy"),
        done(2),
    )
    (found,) = analysis.findings
    assert (found.rule, found.severity, found.party, found.channel, found.request_id) == (
        "ran-twice",
        Severity.WARNING,
        "client",
        "in",
        2,
    )
    assert [(r.role, r.channel, r.line) for r in found.related] == [
        ("request", "in", 1),
        ("exec", "exec", 1),
        ("cancel", "in", 2),
        ("retry", "in", 3),
        ("exec", "exec", 2),
    ]


def test_a_re_sent_call_of_an_idempotent_tool_that_ran_twice_is_info() -> None:
    """The tool says a repeat has no additional effect: the client may send it again."""
    analysis = run(
        *listing(0, UPSERT),
        call(1, "put", key="k"),
        tap(1, "upsert"),
        cancel(1),
        call(2, "put", key="k"),
        tap(2, "upsert"),
        done(2),
    )
    assert [(f.rule, f.severity, f.party) for f in analysis.findings] == [
        ("ran-twice", Severity.INFO, "client")
    ]


def test_one_requests_action_twice_is_the_servers_error() -> None:
    """The same tap line twice for one request: an error at the second, naming the first."""
    analysis = run(call(1, "deploy"), tap(1, "deploy"), tap(1, "deploy"), done(1))
    (found,) = analysis.findings
    assert (found.severity, found.party, found.channel, found.line) == (Severity.ERROR, "server", "exec", 2)
    assert ("exec", "exec", 1) in [(r.role, r.channel, r.line) for r in found.related]


def test_an_unknown_tool_is_info_for_the_client_and_its_action_an_error_for_the_server() -> None:
    """The call is the client's mistake; acting on it is the server's."""
    analysis = run(*listing(1, *LISTED), call(2, "deploy"), tap(2, "deploy"), done(2))
    assert [(f.severity, f.party, f.channel) for f in analysis.findings] == [
        (Severity.INFO, "client", "in"),
        (Severity.ERROR, "server", "exec"),
    ]


def test_an_idempotent_tool_that_acts_anew_is_warned_at_the_second_request() -> None:
    """The warning points at the repeated request and shows the new action and the first request."""
    analysis = run(
        *listing(1, UPSERT),
        call(2, "put", key="k"),
        tap(2, "insert", row=1),
        done(2),
        call(3, "put", key="k"),
        tap(3, "insert", row=2),
        done(3),
    )
    (found,) = analysis.findings
    assert (found.severity, found.party, found.channel, found.line, found.request_id) == (
        Severity.WARNING,
        "server",
        "in",
        3,
        3,
    )
    roles = [(r.role, r.channel, r.line) for r in found.related]
    assert roles[:3] == [("exec", "exec", 2), ("first-request", "in", 2), ("exec", "exec", 1)]


def test_a_stub_run_excuses_only_itself_when_the_request_is_refused() -> None:
    """A request ran a stubbed command (failed: not run) and made an HTTP POST the sink let through,
    then got an error: the POST is exec-after-reject, the stub run is not."""
    analysis = run(
        call(1, "deploy"),
        stub("kubectl", "apply", "-f", "web.yaml"),
        http("POST", "http://deploy.example.test/previews", outcome="ok", reply=200),
        ("out", result(1, {"content": [], "isError": True})),
    )
    (found,) = analysis.findings
    assert (found.rule, found.severity, found.channel) == ("exec-after-reject", Severity.ERROR, "http")
    assert "went through" in found.message


def test_the_tap_writes_kind_after_the_request_id_only_when_given() -> None:
    """`tap.executed(..., kind=...)`'s line: `kind` third; absent when not given; KINDS documented."""
    from mcptape import tap as helper

    assert (
        helper.encode("put", 9, {"key": "k"}, "update")
        == b'{"action":"put","request_id":9,"kind":"update","key":"k"}\n'
    )
    assert helper.encode("put", 9, {"key": "k"}) == b'{"action":"put","request_id":9,"key":"k"}\n'
    assert helper.KINDS == ("read", "create", "update", "delete", "external")


def test_hostile_executor_lines_are_judged_without_raising() -> None:
    """Lines a server controls: a spoofed stub line with a list for an argument, a kind that is a
    list, a method that is a number, a target that is no URL, a line nested past orjson's writer, a
    line that is not JSON; each against a tool with every hint, called twice."""
    every = tool("t", readOnlyHint=False, idempotentHint=True, openWorldHint=False, destructiveHint=False)
    deep = b"[" * 300 + b'"x"' + b"]" * 300  # orjson reads 1024 levels, writes 254
    lines: list[Item] = [
        (
            "exec",
            orjson.dumps({"action": "exec", "source": "stub", "argv": ["ssh", [1]], "request_id": 2}) + b"\n",
        ),
        tap(2, kind=["delete"]),
        http("7", "http://[::1"),
        ("http", orjson.dumps({"method": 7, "target": {"a": 1}}) + b"\n"),
        ("exec", b'{"action":"deep","request_id":2,"x":' + deep + b"}\n"),
        ("exec", b"\xff not json\n"),
    ]
    analysis = run(*listing(1, every), call(2, "t"), *lines, done(2), call(3, "t"), *lines, done(3))
    assert analysis.exec_calls == 2 * len(lines)
    assert {f.rule for f in analysis.findings} <= {"hint-open-world", "ran-twice", "hint-idempotent"}

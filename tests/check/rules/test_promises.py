"""The promise rules' tables (tests/check/rules/promises.py) through the analysis, and what a table
cannot say: where each finding is, and at which severity and party; hostile executor lines."""

from __future__ import annotations

import orjson
import pytest

from mcptape.check.model import Severity
from tests.check.helpers import Item, result, run
from tests.check.rules.promises import (
    LISTED,
    PROMISE_TABLES,
    READ_ONLY_TOOL,
    UPSERT,
    call,
    cancel,
    done,
    http,
    listing,
    stub,
    tap,
    tool,
)

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

"""The session's shortcuts for the 2026-07-28 rules have a twin: every message sent to `Modern`.

`check/session.py` does not call `Modern` for a plain request (only its progress token is told),
a `complete` result of a method without caching hints (only what a rule kept for its request is
closed) or a progress notification for a token in flight. With the three constants that recognise
them set so that none applies, every message goes to `Modern`; the findings must be the same, on
every table of the 2026-07-28 rules and on generated sessions mixing what the rules watch.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcptape.check import notices as notices_module
from mcptape.check import session as session_module
from mcptape.check.analyze import analyze
from mcptape.check.modern import Modern
from mcptape.transcript import Event
from tests.check.helpers import error, line, notification, request, result
from tests.check.rules.modern import TABLES as RULE_TABLES
from tests.check.rules.modern_entry import TABLES as ENTRY_TABLES

V = "io.modelcontextprotocol/protocolVersion"
CAPS = "io.modelcontextprotocol/clientCapabilities"
LOG = "io.modelcontextprotocol/logLevel"
META = {V: "2026-07-28", CAPS: {}}

Items = list[tuple[str, bytes]]
TABLES = {**RULE_TABLES, **ENTRY_TABLES}  # the 2026-07-28 rules' tables, in two files


@contextmanager
def no_shortcuts() -> Iterator[None]:
    """Every message goes to `Modern`: no request carries the shortcut's capability key, no result
    is `complete` in its eyes, no notification is progress."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(session_module, "_CAPABILITIES", "mcptape-test/never-sent")
        patch.setattr(session_module, "_COMPLETE", object())
        patch.setattr(notices_module, "_PROGRESS", object())
        yield


def findings(items: Items, times: list[float] | None = None) -> list[tuple[Any, ...]]:
    """(rule, severity, party, event, message, request) of every finding of the session `items`."""
    ts = times or [0.05 * (i + 1) for i in range(len(items))]
    events = [Event(ts[i], ch, raw=data, index=i) for i, (ch, data) in enumerate(items)]
    analysis = analyze(events)
    return [(f.rule, f.severity, f.party, f.event, f.message, f.request_id) for f in analysis.findings]


Found = list[tuple[Any, ...]]


def both(items: Items, times: list[float] | None = None) -> tuple[Found, Found]:
    fast = findings(items, times)
    with no_shortcuts():
        slow = findings(items, times)
    return fast, slow


@pytest.mark.parametrize(
    "items", [pytest.param(i, id=f"{rule}: {name}") for rule, t in TABLES.items() for name, i, _ in t]
)
def test_every_rule_table_finds_the_same_with_and_without_the_shortcuts(items: Items) -> None:
    """Each table of tests/check/rules/modern.py and modern_entry.py: the same findings, at
    the same events."""
    fast, slow = both(items)
    assert fast == slow


def test_without_the_shortcuts_every_message_reaches_modern() -> None:
    """The twin really is the plain version: after the first stateless request (which sets the
    version), a request with a progress token, its progress and its complete result go to `Modern`."""
    calls: list[str] = []
    items = [
        ("in", request(0, "server/discover", {"_meta": META})),
        ("in", request(1, "tools/call", {"name": "t", "_meta": {**META, "progressToken": 1}})),
        ("out", notification("notifications/progress", {"progressToken": 1, "progress": 1})),
        ("out", result(1, {"resultType": "complete"})),
    ]
    original = {name: getattr(Modern, name) for name in ("client_request", "answer")}
    original["server_notification"] = Modern.server_notification

    def spy(name: str) -> Any:
        def call(self: Any, *args: Any) -> Any:
            calls.append(name)
            return original[name](self, *args)

        return call

    with pytest.MonkeyPatch.context() as patch:
        for name in original:
            patch.setattr(Modern, name, spy(name))
        findings(items)
        assert calls == ["client_request"]
        calls.clear()
        with no_shortcuts():
            findings(items)
    assert calls == ["client_request", "client_request", "server_notification", "answer"]


def _meta(step: dict[str, Any]) -> dict[str, Any]:
    meta: dict[str, Any] = {V: "2026-07-28"}
    if step["caps"]:
        meta[CAPS] = {"elicitation": {}} if step["caps"] == 2 else {}
    if step["token"] is not None:
        meta["progressToken"] = step["token"]
    if step["log"]:
        meta[LOG] = "info"
    return meta


METHODS = ["tools/call", "tools/list", "resources/read", "ping", "subscriptions/listen", "prompts/get"]
step = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["request", "answer", "progress", "cancel", "log", "error", "listen-note"]),
        "rid": st.integers(1, 4),
        "method": st.sampled_from(METHODS),
        "caps": st.sampled_from([0, 1, 1, 2]),
        "token": st.sampled_from([None, None, 1, 2, "1", True]),
        "log": st.booleans(),
        "state": st.sampled_from([None, None, "s-1", "s-2"]),
        "result": st.sampled_from(
            [
                {"resultType": "complete"},
                {"resultType": "complete"},
                {},
                {"resultType": "complete", "ttlMs": 5, "cacheScope": "private"},
                {
                    "resultType": "input_required",
                    "inputRequests": {"q": {"method": "elicitation/create"}},
                    "requestState": "s-1",
                },
                {"resultType": "input_required", "requestState": "s-2"},
                {"resultType": "complete", "isError": True},
            ]
        ),
        "code": st.sampled_from([-32602, -32002, -32050, -32603]),
        "gap": st.sampled_from([0.001, 0.2]),
    }
)


def _item(s: dict[str, Any]) -> tuple[str, bytes]:
    rid, kind = s["rid"], s["kind"]
    if kind == "request":
        params: dict[str, Any] = {"name": "t", "_meta": _meta(s)}
        if s["state"] is not None:
            params["requestState"] = s["state"]
            params["inputResponses"] = {"q": {}, "x": {}}
        return "in", request(rid, s["method"], params)
    if kind == "answer":
        return "out", result(rid, s["result"])
    if kind == "progress":
        return "out", notification("notifications/progress", {"progressToken": s["token"], "progress": 1})
    if kind == "cancel":
        return ("in" if s["log"] else "out"), notification("notifications/cancelled", {"requestId": rid})
    if kind == "log":
        return "out", notification("notifications/message", {"level": "info", "data": "x"})
    if kind == "error":
        return "out", error(rid, s["code"])
    changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {}}}
    return "out", line(changed)


def _one_request_per_id_in_flight(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`steps` without the requests that reuse the id of a request still in flight."""
    in_flight: set[int] = set()
    kept = []
    for s in steps:
        if s["kind"] == "request":
            if s["rid"] in in_flight:
                continue
            in_flight.add(s["rid"])
        elif s["kind"] in ("answer", "error"):
            in_flight.discard(s["rid"])
        kept.append(s)
    return kept


@settings(max_examples=150, deadline=None)
@given(st.lists(step, min_size=1, max_size=25))
def test_generated_sessions_find_the_same_with_and_without_the_shortcuts(steps: list[dict[str, Any]]) -> None:
    """Requests with and without progress tokens, log levels and retries, answers of every kind,
    late and early cancels, unknown tokens, logs and subscriptions, in any order: the same findings.
    A request never reuses the id of one still in flight (answered or refused ends it; a cancel does
    not): two requests in flight under one id are the client's `duplicate-id`, and which of them an
    answer belongs to is not defined, so the rules' per-request findings are not compared there."""
    steps = _one_request_per_id_in_flight(steps)
    discover = ("in", request(0, "server/discover", {"_meta": META}))
    items = [discover, *(_item(s) for s in steps)]
    times = [0.0]
    for s in steps:
        times.append(times[-1] + s["gap"])
    fast, slow = both(items, times)
    assert fast == slow

"""Executor attribution where time alone cannot decide: a line that reaches the analysis after the
answer to the request it happened during, and a line that happened while a rejected request was in
flight beside another one."""

from __future__ import annotations

from typing import Any

import orjson

from mcptape.check.analyze import Analyzer
from mcptape.check.model import ExecCall, Severity
from tests.check.helpers import Item, error, request, result, run

EXIT: Item = ("exit", {"code": 0})


def call(rid: Any, name: str = "fetch") -> bytes:
    return request(rid, "tools/call", {"name": name, "arguments": {}})


def http_line(**fields: Any) -> bytes:
    return orjson.dumps({"method": "GET", "url": "http://example.test/", **fields}) + b"\n"


def exec_line(**fields: Any) -> bytes:
    return orjson.dumps({"action": "deploy", **fields}) + b"\n"


def late_http(answer: bytes) -> tuple[list[ExecCall], list[Any]]:
    """Request 1 at 1.0 s, its answer at 2.0 s, request 2 at 3.0 s; then an `http` line timed 1.5 s
    (when the HTTP exchange began) that reaches the analysis after the answer, as the cassette
    writes it. A tiny byte budget makes the analyzer process each record as soon as it can."""
    calls: list[ExecCall] = []
    analyzer = Analyzer(on_exec=calls.append, flush_bytes=1)
    records: list[tuple[float, str, bytes | dict[str, Any]]] = [
        (1.0, "in", call(1)),
        (2.0, "out", answer),
        (3.0, "in", call(2, "other")),
        (1.5, "http", http_line()),
        (3.1, "out", result(2, {"content": []})),
        (3.2, "exit", {"code": 0}),
    ]
    for index, (t, ch, payload) in enumerate(records):
        analyzer.push(t, ch, payload if isinstance(payload, dict) else payload.decode(), index)
    analysis = analyzer.finish()
    return calls, analysis.findings


def test_an_http_line_written_after_the_answer_it_caused_is_attributed_to_that_request() -> None:
    """request.t <= t <= answer.t: the request was in flight when the exchange began."""
    calls, findings = late_http(result(1, {"content": []}))
    assert [c.attributed_to for c in calls] == [1]
    assert [f.rule for f in findings] == []


def test_an_http_line_written_after_the_error_it_caused_is_an_action_for_a_rejected_request() -> None:
    """The same line, its request refused with invalid params: an action for a certain reject."""
    calls, findings = late_http(error(1, -32602, "bad url"))
    assert [c.attributed_to for c in calls] == [1]
    assert [(f.rule, f.severity, f.request_id) for f in findings] == [
        ("exec-after-reject", Severity.ERROR, 1)
    ]


def test_an_unattributable_action_while_a_rejected_request_was_in_flight_is_a_warning() -> None:
    """Request 1 (later refused) and request 2 (later answered) in flight; an exec line naming no
    request is counted for the newest, request 2, but it may have been request 1's: a warning."""
    analysis = run(
        ("in", call(1, "deploy"), 1.0),
        ("in", call(2, "status"), 1.1),
        ("exec", exec_line(), 1.2),
        ("out", result(2, {"content": []}), 1.3),
        ("out", error(1, -32602, "not authorised"), 1.4),
        EXIT,
    )
    assert [(f.rule, f.severity, f.request_id) for f in analysis.findings] == [
        ("exec-after-reject", Severity.WARNING, 1)
    ]
    message = analysis.findings[0].message
    assert "names no request" in message and "cannot be told" in message and "request 2" in message


def test_the_warning_also_comes_when_the_rejected_request_was_answered_first() -> None:
    """The rejecting answer arrives before the line is judged: the warning is given at once."""
    analysis = run(
        ("in", call(1, "deploy"), 1.0),
        ("in", call(2, "status"), 1.1),
        ("exec", exec_line(), 1.2),
        ("out", error(1, -32602, "not authorised"), 1.2001),
        ("out", result(2, {"content": []}), 1.3),
        EXIT,
    )
    assert [(f.rule, f.severity) for f in analysis.findings] == [("exec-after-reject", Severity.WARNING)]


def test_an_action_naming_an_unknown_request_while_a_rejected_one_was_in_flight_is_a_warning() -> None:
    """A line naming request 77, which was never sent, while request 1 was in flight and refused."""
    analysis = run(
        ("in", call(1, "deploy"), 1.0),
        ("exec", exec_line(request_id=77), 1.1),
        ("out", error(1, -32602, "not authorised"), 1.2),
        EXIT,
    )
    assert [(f.rule, f.severity, f.request_id) for f in analysis.findings] == [
        ("exec-after-reject", Severity.WARNING, 1)
    ]
    assert "names request 77, which was not in flight" in analysis.findings[0].message


def test_no_warning_when_every_request_in_flight_succeeded() -> None:
    """Two requests in flight, both answered with a success: the guess by time hides no reject."""
    analysis = run(
        ("in", call(1, "deploy"), 1.0),
        ("in", call(2, "status"), 1.1),
        ("exec", exec_line(), 1.2),
        ("out", result(2, {"content": []}), 1.3),
        ("out", result(1, {"content": []}), 1.4),
        EXIT,
    )
    assert analysis.findings == []


def test_a_line_naming_its_request_is_never_ambiguous() -> None:
    """A line that names request 2, in flight beside request 1 (later refused), is request 2's."""
    analysis = run(
        ("in", call(1, "deploy"), 1.0),
        ("in", call(2, "status"), 1.1),
        ("exec", exec_line(request_id=2), 1.2),
        ("out", result(2, {"content": []}), 1.3),
        ("out", error(1, -32602, "not authorised"), 1.4),
        EXIT,
    )
    assert analysis.findings == []


def test_an_action_attributed_to_the_rejected_request_is_one_error_not_also_a_warning() -> None:
    """The line is counted for request 2 (the newest) which is refused, request 1 too: one finding."""
    analysis = run(
        ("in", call(1, "deploy"), 1.0),
        ("in", call(2, "deploy"), 1.1),
        ("exec", exec_line(), 1.2),
        ("out", error(2, -32602, "not authorised"), 1.3),
        ("out", error(1, -32602, "not authorised"), 1.4),
        EXIT,
    )
    assert [(f.rule, f.severity, f.request_id) for f in analysis.findings] == [
        ("exec-after-reject", Severity.ERROR, 2)
    ]

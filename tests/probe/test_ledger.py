"""The ledger: which executor/HTTP lines that name no request belong to the valid calls sent before
them (probe/ledger.py). Transcripts as the check core reads them, built here line by line."""

from __future__ import annotations

import itertools
from typing import Any

import orjson

from mcptape.check.model import IN, OUT, ExecCall, Frame, Kind, Message
from mcptape.probe.cases import Call
from mcptape.probe.ledger import OneCall, owed_lines

CALL = Call("deploy", {"target": "x"})
TOKEN = "c0ffee42"
EVENTS = itertools.count()
ONE = OneCall(1, 1, whole=True)  # one valid call makes one line, naming no request


class Transcript:
    """Requests, answers and action lines at given times."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls: list[ExecCall] = []

    def _frame(self, channel: str, value: Any, t: float) -> Frame:
        return Frame(channel, 1, 0, orjson.dumps(value) + b"\n", t, events=(next(EVENTS),))

    def request(self, rid: Any, t: float, call: Call = CALL, answer: str | None = "result") -> None:
        value = call.request(rid)
        self.messages.append(Message(self._frame(IN, value, t), Kind.REQUEST, value["method"], rid, value))
        if answer == "result":
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "result": {"content": []}}
            self.messages.append(Message(self._frame(OUT, reply, t + 0.01), Kind.RESPONSE, None, rid, reply))
        elif answer == "error":
            reply = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no"}}
            kind = Kind.ERROR_RESPONSE
            self.messages.append(Message(self._frame(OUT, reply, t + 0.01), kind, None, rid, reply))

    def action(self, t: float, **extra: Any) -> ExecCall:
        value = {"action": "deploy", **extra}
        line = ExecCall(self._frame("exec", value, t), value, extra.get("request_id"), None)
        self.calls.append(line)
        return line

    def owed(self, one: OneCall | None = ONE) -> set[int]:
        return owed_lines(self.messages, self.calls, CALL, TOKEN, one)


def test_a_late_line_of_a_valid_call_is_the_valid_calls_not_the_next_frames() -> None:
    """The valid call answered at 1.0, its line at 1.5 (after the hard input sent at 1.2): it owes
    one, so the line is its own."""
    t = Transcript()
    t.request("probe-after-1", 1.0)
    t.request(f"mcptape-probe-batch-{TOKEN}", 1.2, answer="error")
    late = t.action(1.5)
    assert t.owed() == {late.frame.event}


def test_a_line_beyond_what_the_valid_calls_owe_is_left_to_the_windows() -> None:
    """Two lines after one valid call that owes one: the first is its own, the second is free."""
    t = Transcript()
    t.request(3, 1.0)
    first, second = t.action(1.1), t.action(1.3)
    assert t.owed() == {first.frame.event} and second.frame.event not in t.owed()


def test_a_line_before_the_valid_call_was_sent_is_never_its_own() -> None:
    """A frame's line at 0.5, the valid call sent at 1.0 (and acting at 1.1): only the later one is owed."""
    t = Transcript()
    early = t.action(0.5)
    t.request("probe-after", 1.0)
    own = t.action(1.1)
    assert t.owed() == {own.frame.event} and early.frame.event not in t.owed()


def test_named_and_marked_lines_are_never_owed() -> None:
    """A line naming a request, or carrying the run's token (a hard input's marker), is not nameless."""
    t = Transcript()
    t.request("probe-after", 1.0)
    first = t.action(1.1)
    t.action(1.2, request_id="probe-after")
    t.request("probe-after-1", 2.0)
    t.action(2.1, target=f"mcptape-probe-7-{TOKEN}-undeclared")
    second = t.action(2.2)
    assert t.owed() == {first.frame.event, second.frame.event}


def test_a_hard_input_or_an_unanswered_or_refused_call_owes_nothing() -> None:
    """Only the valid call answered with a result owes: not a frame with the token, not one the
    server refused, not one it never answered."""
    t = Transcript()
    t.request(f"mcptape-probe-oversized-line-{TOKEN}", 1.0)
    t.request("probe-after", 2.0, answer="error")
    t.request("probe-after-1", 3.0, answer=None)
    t.action(1.1)
    t.action(2.1)
    t.action(3.1)
    assert t.owed() == set()


def test_when_the_valid_calls_make_fewer_lines_than_they_owe_nothing_is_owed() -> None:
    """Three valid calls owe three lines; the transcript has two (a cache: later calls make none):
    owing would hide a hard input's line, so none is owed and the windows decide."""
    t = Transcript()
    t.request(3, 1.0)
    t.action(1.1)
    t.request(f"mcptape-probe-batch-{TOKEN}", 1.5, answer="error")
    t.action(1.6)  # the hard input acted
    t.request("probe-after", 2.0)
    t.request("probe-after-1", 3.0)
    assert t.owed() == set()


def test_nothing_is_owed_without_a_count_or_when_a_valid_call_names_its_lines() -> None:
    """No clean start's count, or one whose lines all name their request: no nameless line is owed."""
    t = Transcript()
    t.request(3, 1.0)
    t.action(1.5)
    assert t.owed(None) == set() and t.owed(OneCall(1, 0, whole=True)) == set()


def test_a_request_of_another_tool_or_other_arguments_is_no_valid_call() -> None:
    """A base call of another tool answered with a result owes nothing (its count is unknown)."""
    t = Transcript()
    t.request("mcptape-probe-base", 1.0, call=Call("notify", {"text": "x"}))
    t.request("probe-x", 2.0, call=Call("deploy", {"target": "y"}))
    t.action(1.1)
    t.action(2.1)
    assert t.owed() == set()

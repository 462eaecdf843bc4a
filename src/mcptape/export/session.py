"""One transcript as the export formats see it: its calls (a request and its answer), the actions
each caused, the findings each raised, and what belongs to the session as a whole.

Built by `load(path)` from what the check core says (`check.analyze.analyze_file` and its
callbacks: every message, every request/answer pair, every executor line, every finding), so no
format frames lines or classifies JSON-RPC itself. The writers (`otlp.py`, `har.py`, `html.py`) are
pure functions of the `Session` values this returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from mcptape.check.analyze import analyze_file
from mcptape.check.model import IN, OUT, Analysis, ExecCall, Finding, Kind, Message
from mcptape.export.wire import HttpExchange, read_exchanges
from mcptape.transcript.events import Header

STDIO, HTTP = "pipe", "tcp"  # network.transport, as the OpenTelemetry conventions name them
UNANSWERED = "unanswered"
TOOL_ERROR = "tool_error"


@dataclass(slots=True)
class Call:
    """A request and its answer (None when it never came), with what it caused.

    `sender` is `client` for a request on `in` (the server answers it), `server` for one on `out`
    (sampling, elicitation: the client answers it). `error` is the JSON-RPC error code as a
    string, `tool_error` for a tools/call result with `isError: true`, `unanswered`, or None."""

    request: Message
    response: Message | None = None
    actions: list[ExecCall] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    exchange: int | None = None  # the HTTP exchange that carried the request

    @property
    def sender(self) -> str:
        return "client" if self.request.channel == IN else "server"

    @property
    def method(self) -> str:
        return self.request.method or ""

    @property
    def start(self) -> float:
        return self.request.frame.t

    @property
    def end(self) -> float | None:
        return None if self.response is None else max(self.response.frame.t, self.start)

    @property
    def params(self) -> dict[str, Any]:
        value = self.request.value
        params = value.get("params") if type(value) is dict else None
        return params if type(params) is dict else {}

    @property
    def target(self) -> str | None:
        """The tool or prompt a call names (the span name's target), else None."""
        if self.method in ("tools/call", "prompts/get"):
            name = self.params.get("name")
            return name if type(name) is str else None
        return None

    @property
    def error(self) -> str | None:
        response = self.response
        if response is None:
            return UNANSWERED
        value = response.value
        if response.kind is Kind.ERROR_RESPONSE and type(value) is dict:
            error = value.get("error")
            code = error.get("code") if type(error) is dict else None
            return str(code)
        if type(value) is dict:
            result = value.get("result")
            if type(result) is dict and result.get("isError") is True:
                return TOOL_ERROR
        return None

    @property
    def error_message(self) -> str | None:
        response = self.response
        value = response.value if response is not None else None
        if type(value) is dict and type(value.get("error")) is dict:
            message = value["error"].get("message")
            return message if type(message) is str else None
        return None


@dataclass
class Session:
    """One transcript, ready for the writers."""

    path: Path
    header: Header
    analysis: Analysis
    messages: list[Message]
    calls: list[Call]
    actions: list[ExecCall]  # every executor line, in time order
    unattached_actions: list[ExecCall]  # those no call accounts for
    unattached_findings: list[Finding]  # findings no call accounts for
    exchanges: list[HttpExchange]  # an HTTP transcript's exchanges, read from their raw bytes
    end: float  # the time of the last record
    _by_x: dict[int, HttpExchange] | None = None

    @property
    def transport(self) -> str:
        return HTTP if self.http else STDIO

    @property
    def http(self) -> bool:
        return isinstance(self.header.extra.get("http"), dict) or bool(self.exchanges)

    @cached_property
    def started_ns(self) -> int:
        """When the recording started, in nanoseconds since the epoch (0 when the header has no
        readable `started`)."""
        return started_ns(self.header.started)

    def wall_ns(self, t: float) -> int:
        """The wall-clock time, in nanoseconds since the epoch, of a record's `t`."""
        return max(0, self.started_ns + round(t * 1e9))  # a negative t with no start: the epoch

    def session_id(self, call: Call) -> str | None:
        """The `Mcp-Session-Id` of the exchange that carried `call` (HTTP before 2026-07-28: the one
        the client sent, or the one the server assigned in its answer), else None."""
        if call.exchange is None:
            return None
        if self._by_x is None:
            self._by_x = {exchange.x: exchange for exchange in self.exchanges}
        exchange = self._by_x.get(call.exchange)
        if exchange is None:
            return None
        head = exchange.request.head
        sent = head.get("mcp-session-id") if head is not None else None
        return sent or exchange.response_header("mcp-session-id")


def started_ns(started: str) -> int:
    try:
        moment = datetime.fromisoformat(started.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        return 0
    ns = int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000
    # Before 1970 or after 2500: no recording's start (a header is anyone's to write), and a date a
    # record's t (up to 1e9 s, about 31 years) would carry past what OTLP's unsigned 64-bit
    # nanoseconds hold (year 2554) or a datetime takes (9999).
    return ns if 0 <= ns <= LATEST_START_NS else 0


LATEST_START_NS = 16_725_225_600 * 1_000_000_000  # 2500-01-01T00:00:00Z


def load(path: str | Path) -> Session:
    """Analyse the transcript at `path` and gather what the formats need (raises TranscriptError
    for a file that is not a readable transcript). Over 60 lines on purpose: one pass over every
    message of the export, reading their fields directly, its locals shared (bench/bench_export.py)."""
    heard: list[Message] = []
    acted: list[ExecCall] = []
    answered: dict[int, int] = {}  # a request's event -> its answer's event

    def on_pair(request: int, response: int, _latency: float) -> None:
        answered[request] = response

    header, analysis = analyze_file(str(path), on_message=heard.append, on_exec=acted.append, on_pair=on_pair)
    # The analyzer's state is a reference cycle that holds its callbacks, so these lists too, until
    # a garbage collection (a third of a large export's time, at exit): moved out of the lists it
    # holds, the messages are freed by reference counting when the session is.
    messages, actions = heard[:], acted[:]
    heard.clear()
    acted.clear()
    exchanges, carried = read_exchanges(Path(path)) if _is_http(header) else ([], {})
    # One pass over the messages, reading each one's fields directly (no property per message):
    # the calls in the order of their (time, event) and the answers by their event.
    responses = set(answered.values())
    by_event: dict[int, Message] = {}
    calls: dict[int, Call] = {}
    request = Kind.REQUEST
    last = 0.0
    in_order = True
    previous = (float("-inf"), -1)
    for message in messages:
        frame = message.frame
        events = frame.events
        event = events[0] if events else -1
        t = frame.t
        if t > last:
            last = t
        if event in responses:
            by_event[event] = message
        if message.kind is request and frame.channel in (IN, OUT):
            calls[event] = Call(message, None, [], [], carried.get(event))
            if in_order and (t < previous[0] or (t == previous[0] and event < previous[1])):
                in_order = False
            previous = (t, event)
    for event, call in calls.items():
        answer = answered.get(event)
        if answer is not None:
            call.response = by_event.get(answer)
    ordered = list(calls.values())
    if not in_order:
        ordered.sort(key=lambda c: (c.start, c.request.frame.event))
    ids = _by_id(ordered) if actions or analysis.findings else {}
    unattached_actions = _attach_actions(ids, actions)
    unattached_findings = _attach_findings(ordered, ids, analysis.findings)
    # every call ends at one of the messages' times, so the last record is the session's end
    for action in actions:
        if action.frame.t > last:
            last = action.frame.t
    return Session(
        Path(path),
        header,
        analysis,
        messages,
        ordered,
        actions,
        unattached_actions,
        unattached_findings,
        exchanges,
        last,
    )


def _is_http(header: Header) -> bool:
    return isinstance(header.extra.get("http"), dict)


def _by_id(calls: list[Call]) -> dict[str, list[Call]]:
    """Client requests by their id's text (an executor may write the id 9 as "9")."""
    found: dict[str, list[Call]] = {}
    for call in calls:
        request = call.request
        rid = request.id
        if rid is not None and request.frame.channel == IN:
            key = str(rid)
            same = found.get(key)
            if same is None:
                found[key] = [call]
            else:
                same.append(call)
    return found


def _latest(candidates: list[Call], t: float) -> Call | None:
    """The last of `candidates` sent at or before `t` (else the first one)."""
    chosen = None
    for call in candidates:
        if call.start <= t + 1e-6 or chosen is None:
            chosen = call
    return chosen


def _attach_actions(ids: dict[str, list[Call]], actions: list[ExecCall]) -> list[ExecCall]:
    """Each action goes to the request the check core attributed it to (`ids`: the client's
    requests by id, `_by_id`); the rest are returned."""
    rest = []
    for action in actions:
        owner = action.attributed_to
        call = _latest(ids.get(str(owner), []), action.frame.t) if owner is not None else None
        if call is None:
            rest.append(action)
        else:
            call.actions.append(action)
    return rest


def _attach_findings(calls: list[Call], ids: dict[str, list[Call]], findings: list[Finding]) -> list[Finding]:
    """Each finding goes to the call whose request, answer or action it is on, else to the call it
    names by id; the rest are returned."""
    if not findings:
        return []
    at: dict[int, Call] = {}
    for call in calls:
        at[call.request.frame.event] = call
        if call.response is not None:
            at[call.response.frame.event] = call
        for action in call.actions:
            at[action.frame.event] = call
    rest: list[Finding] = []
    for found in findings:
        owner = at.get(found.event) if found.event >= 0 else None
        if owner is None and found.request_id is not None:
            owner = _latest(ids.get(str(found.request_id), []), found.t or 0.0)
        if owner is None:
            rest.append(found)
        else:
            owner.findings.append(found)
    return rest

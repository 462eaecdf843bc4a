"""What to replay of an HTTP transcript (pure): its exchanges, in the order their requests began,
and what the recorded client had seen before it sent each one.

* `steps`: each exchange's recorded request (`RecordedRequest`), when it began, whether and when
  its response ended (`end`; `whole`: h11 read the response to its end, else the connection was
  closed under it, as a client closes a stream it no longer wants), and the session id it assigned.
* Causal pacing, as stdio replay's (`replay.stdio.plan`): a step carries how many of the recorded
  server's responses to the client's requests had arrived before it began (`ready`, into
  `responses`) and how many of the server's own requests (`asked`, into `server_requests`).
* The server's requests the client answered (`answers`: a POST whose body is a response): the
  method and the how-manieth of that method, so the new server's id can be put in its place.
* Server-minted values (`mcptape.diff.minted`): the values a step's body sends back that the
  recorded server had minted (`uses`), and where they were minted (`sources`, keyed as the diff
  aligns messages).

Framing and classification are the check core's (`messages`), alignment and minted values the
diff's (`Side`), the request and response bytes read by h11 (`http.wire`).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mcptape.check.analyze import messages
from mcptape.check.hints import ToolHints
from mcptape.check.model import IN, OUT, Kind, Message, RequestId
from mcptape.diff.minted import Use
from mcptape.diff.sessions import Side
from mcptape.recorder.http.clientread import ResponseReader
from mcptape.replay.guard import Call, RecordedGuard
from mcptape.replay.http.wire import RecordedRequest
from mcptape.replay.kinds import Key
from mcptape.replay.timeline import Timeline
from mcptape.transcript.events import Event
from mcptape.transcript.wire import EXCHANGE, HTTP_IN, HTTP_OUT


@dataclass(frozen=True)
class Answer:
    """A client's answer to the server's request: the recorded id, the request's method, and which
    request of that method it was (1 for the first)."""

    id: RequestId
    method: str
    nth: int


@dataclass
class Step:
    """One exchange to send again."""

    x: int
    request: RecordedRequest
    start: float
    end: float | None = None  # the time of its response's last byte (None: no response at all)
    whole: bool = False  # the response ended by itself (h11 read it to its end)
    assigned: str | None = None  # the Mcp-Session-Id its response assigned
    carried: int = 0  # the messages its response carried (on `out`)
    ready: int = 0  # the client had seen responses[:ready] when it began
    asked: int = 0  # ... and server_requests[:asked]
    requests: tuple[Message, ...] = ()  # the client requests its body carries
    uses: tuple[Use, ...] = ()  # the minted values its body sends back
    answers: tuple[Answer, ...] = ()  # the server requests its body answers
    calls: tuple[Call, ...] = ()  # the tools/call its body carries, which may change data (replay.guard)


@dataclass
class HttpPlan:
    steps: list[Step] = field(default_factory=list)
    responses: list[RequestId] = field(default_factory=list)  # ids the server answered, in time order
    carriers: dict[RequestId, list[int]] = field(default_factory=dict)  # id -> exchanges carrying it
    server_requests: list[str] = field(default_factory=list)  # their methods, in time order
    sources: set[Key] = field(default_factory=set)
    hints: ToolHints = field(default_factory=ToolHints)  # what the recorded listings say (replay.guard)
    asked_at: list[float] = field(default_factory=list)  # when the server sent server_requests


class _Exchange:
    """An exchange read from the records: the request's bytes, the response read as it came."""

    def __init__(self, x: int, t: float) -> None:
        self.x = x
        self.start = t
        self.raw = bytearray()
        self.reader: ResponseReader | None = None
        self.end: float | None = None

    def response(self, data: bytes, t: float) -> None:
        if self.reader is None:
            self.reader = ResponseReader(RecordedRequest.read(bytes(self.raw)).method)
        self.reader.feed(data)
        self.end = t


def make_http_plan(events: Callable[[], Iterable[Event]]) -> HttpPlan:
    """The replay plan of an HTTP transcript (`events` gives its events afresh: read twice)."""
    plan = HttpPlan()
    x_of: dict[int, int] = {}  # `in`/`out` event index -> its exchange
    found: dict[int, _Exchange] = {}
    for event in events():
        x = (event.fields or {}).get(EXCHANGE)
        if type(x) is not int:
            continue
        if event.ch == IN or event.ch == OUT:
            x_of[event.index] = x
        elif event.ch == HTTP_IN:
            item = found.get(x)
            if item is None:
                item = found[x] = _Exchange(x, event.t)
            item.raw += event.data
        elif event.ch == HTTP_OUT and x in found:
            found[x].response(event.data, event.t)
    steps: dict[int, Step] = {}
    for x in sorted(found, key=lambda k: (found[k].start, k)):
        item = found[x]
        reader = item.reader
        if reader is not None:
            reader.close()
        steps[x] = Step(
            x,
            RecordedRequest.read(bytes(item.raw)),
            item.start,
            item.end,
            whole=reader is not None and reader.ended,
            assigned=reader.header("mcp-session-id") if reader is not None else None,
        )
    plan.steps = list(steps.values())
    _messages(plan, steps, x_of, events)
    return plan


def _messages(
    plan: HttpPlan, steps: dict[int, Step], x_of: dict[int, int], events: Callable[[], Iterable[Event]]
) -> None:
    """What the messages say: responses and server requests in time order, each step's requests,
    answers and minted values."""
    side = Side()
    seen = Timeline()
    guard = RecordedGuard()
    for msg in messages(events()):
        side.on_message(msg)
        carrier = steps.get(x_of.get(msg.frame.event, -1))
        if msg.channel == OUT and carrier is not None:
            carrier.carried += 1  # a line (a batch is one)
        for one in msg.items if msg.kind is Kind.BATCH else (msg,):
            if one.channel == OUT:
                seen.server_message(one)
                guard.server(one)
            elif one.channel == IN and carrier is not None:
                call = guard.client(one)
                if call is not None:
                    carrier.calls += (call,)
                _client_message(plan, carrier, seen, one)
    for use in side.minted.uses:
        step = steps.get(x_of.get(use.event, -1))
        if step is not None:
            step.uses += (use,)
            plan.sources.add(use.source)
    seen.in_time_order()
    for step in plan.steps:
        step.calls = tuple(guard.judge(c) for c in step.calls)
    plan.hints = guard.hints
    plan.asked_at = seen.asked_at
    plan.responses, plan.server_requests = seen.responses, seen.server_requests
    for step in plan.steps:
        step.ready = bisect_left(seen.answered_at, step.start)  # seen strictly before it began
        step.asked = bisect_left(seen.asked_at, step.start)


def _client_message(plan: HttpPlan, step: Step, seen: Timeline, one: Message) -> None:
    """A message the client sent in `step`'s body: a request it carries, or an answer to the
    server's request."""
    if seen.client_request(one):
        assert one.id is not None
        step.requests += (one,)
        plan.carriers.setdefault(one.id, []).append(step.x)
    elif (answered := seen.answered(one)) is not None:
        assert one.id is not None
        step.answers += (Answer(one.id, *answered),)

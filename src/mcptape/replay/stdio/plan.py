"""What to replay, read from the recorded session (pure): the client's bytes, when to send each
chunk, and the client's answers to the server's own requests.

* `sends`: every `in` event, in file order, as its original bytes (malformed lines included),
  except the client's responses to server->client requests (those are given back when the new
  server asks, with its id).
* Causal pacing: each send carries how many of the original server's responses the client had
  received before it wrote that chunk (`ready`, an index into `responses`): the driver waits
  until the new server has sent responses to those same request ids. It also carries how many of
  the server's own requests (`roots/list`, ...) the recording shows before it (`asked`, an index
  into `server_requests`): the driver waits for those too (bounded), and answers them first.
* `answers`: the client's responses to `roots/list`, `sampling/createMessage`, `elicitation/create`,
  `ping`, ... by method, in order.
* Server-minted values (`mcptape.diff.minted`): each send lists the values it sends back that the
  recorded server had minted (`uses`), with where they came from (`sources`, keyed as the diff
  aligns messages): the driver sends the new server's value from the same place instead. A client
  line that sends one back and was recorded in several pieces is sent as one chunk.

Framing and classification are the check core's (`messages`); the alignment keys and the minted
values are the diff's (`Side`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from mcptape.check.analyze import messages
from mcptape.check.hints import ToolHints
from mcptape.check.model import IN, OUT, Kind, Message, RequestId
from mcptape.diff.minted import Use
from mcptape.diff.sessions import Side
from mcptape.replay.guard import Call, RecordedGuard
from mcptape.replay.kinds import Key
from mcptape.replay.timeline import Timeline
from mcptape.transcript.events import EOF_, Event


@dataclass
class Send:
    """One chunk of client bytes: its bytes, its time in the recording, what it waits for."""

    data: bytes
    t: float
    ready: int  # the client had received responses[:ready] when it wrote this chunk
    event: int  # transcript event index in the recording
    asked: int = 0  # the server had sent server_requests[:asked] (its own requests) before it
    requests: tuple[Message, ...] = ()  # the client requests this chunk completes
    uses: tuple[Use, ...] = ()  # the minted values it sends back
    calls: tuple[Call, ...] = ()  # the tools/call it carries, which may change data (replay.guard)


@dataclass
class Plan:
    sends: list[Send] = field(default_factory=list)
    responses: list[RequestId] = field(default_factory=list)  # ids the server answered, in time order
    answers: dict[str, deque[Message]] = field(default_factory=dict)
    stdin_closed: bool = False  # the original client closed the server's stdin (an `eof` of `in`)
    server_requests: list[str] = field(
        default_factory=list
    )  # methods of the server's requests, in time order
    sources: set[Key] = field(default_factory=set)  # where the minted values sent back were minted
    hints: ToolHints = field(default_factory=ToolHints)  # what the recorded listings say (replay.guard)
    asked_at: list[float] = field(default_factory=list)  # when the server sent server_requests


@dataclass
class _Read:
    """What the first pass over the messages found (dropped once the plan is made)."""

    side: Side = field(default_factory=Side)  # the diff's keys and minted values
    answer_events: set[int] = field(default_factory=set)  # events of the client's answers
    answered_at: list[float] = field(default_factory=list)
    asked_at: list[float] = field(default_factory=list)
    completes: dict[int, list[Message]] = field(default_factory=dict)  # event -> client requests it completes
    calls: dict[int, list[Call]] = field(default_factory=dict)  # event -> the calls whose line it carries


def make_plan(events: Sequence[Event] | Callable[[], Iterable[Event]]) -> Plan:
    """The replay plan of a recorded session: its events in file order, as a sequence or as a
    callable giving them afresh (e.g. `Transcript.events`: read twice, never held whole)."""
    again: Callable[[], Iterable[Event]] = events if callable(events) else (lambda: events)
    plan = Plan()
    read = _read_messages(plan, again())
    uses, joined = _minted_uses(plan, read)
    _sends(plan, read, uses, joined, again())
    return plan


def _read_messages(plan: Plan, events: Iterable[Event]) -> _Read:
    """Responses and server requests in time order, the client's answers to those, and which event
    completes which client request."""
    read = _Read()
    seen = Timeline()
    guard = RecordedGuard()
    for msg in messages(events):
        read.side.on_message(msg)
        for one in msg.items if msg.kind is Kind.BATCH else (msg,):
            if one.channel == OUT:
                seen.server_message(one)
                guard.server(one)
                continue
            if one.channel != IN:
                continue
            call = guard.client(one)
            if call is not None:
                for event in one.frame.events or msg.frame.events:
                    read.calls.setdefault(event, []).append(call)
            if seen.client_request(one):
                last = one.frame.events[-1] if one.frame.events else -1
                read.completes.setdefault(last, []).append(one)
            elif msg.kind is not Kind.BATCH and (answered := seen.answered(one)) is not None:
                plan.answers.setdefault(answered[0], deque()).append(one)
                read.answer_events.update(one.frame.events)
    plan.responses, plan.server_requests = seen.responses, seen.server_requests
    read.answered_at, read.asked_at = seen.answered_at, seen.asked_at
    judged: dict[int, Call] = {}  # one judged Call a call, shared by the pieces of its line
    for event, calls in read.calls.items():
        read.calls[event] = [judged.get(id(c)) or judged.setdefault(id(c), guard.judge(c)) for c in calls]
    plan.hints = guard.hints
    plan.asked_at = seen.asked_at
    return read


def _minted_uses(plan: Plan, read: _Read) -> tuple[dict[int, list[Use]], dict[int, int]]:
    """The minted values each client line sends back (by its first event), and the later events of
    such a line (-> its first event)."""
    uses: dict[int, list[Use]] = {}
    joined: dict[int, int] = {}
    for use in read.side.minted.uses:
        if use.event in read.answer_events:
            continue  # an answer to a server request is sent by the driver, as recorded
        uses.setdefault(use.event, []).append(use)
        plan.sources.add(use.source)
        for later in use.events[1:]:
            joined[later] = use.event
    return uses, joined


def _sends(
    plan: Plan, read: _Read, uses: dict[int, list[Use]], joined: dict[int, int], events: Iterable[Event]
) -> None:
    """The client's chunks in file order, each with what the client had seen before it."""
    starts = set(joined.values())
    k = asked = 0
    by_event: dict[int, Send] = {}
    for event in events:
        if event.ch == EOF_ and event.get("of") == IN:
            plan.stdin_closed = True
        if event.ch != IN or event.index in read.answer_events:
            continue
        first = by_event.get(joined.get(event.index, -1))
        if first is not None:  # the rest of a line that sends a minted value back: one chunk
            first.data += event.data
            first.requests += tuple(read.completes.get(event.index, ()))
            first.calls += tuple(read.calls.get(event.index, ()))
            continue
        while k < len(read.answered_at) and read.answered_at[k] < event.t:
            k += 1
        while asked < len(read.asked_at) and read.asked_at[asked] < event.t:
            asked += 1
        requests = tuple(read.completes.get(event.index, ()))
        send = Send(
            event.data,
            event.t,
            k,
            event.index,
            asked,
            requests,
            tuple(uses.get(event.index, ())),
            tuple(read.calls.get(event.index, ())),
        )
        if event.index in starts:
            by_event[event.index] = send
        plan.sends.append(send)

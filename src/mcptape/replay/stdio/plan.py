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
from typing import Any

from mcptape.check.analyze import messages
from mcptape.check.model import IN, OUT, Kind, Message, RequestId
from mcptape.diff.minted import Use
from mcptape.diff.sessions import Side
from mcptape.transcript.events import EOF_, Event

Key = tuple[Any, ...]


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


def is_answer(msg: Message) -> bool:
    """A response-shaped message (result or error, maybe invalid) that names an id."""
    if msg.kind is Kind.RESPONSE or msg.kind is Kind.ERROR_RESPONSE:
        return msg.id is not None
    return msg.kind is Kind.INVALID and msg.method is None and type(msg.value) is dict and msg.id is not None


def is_server_request(msg: Message) -> bool:
    """A request-shaped message with a method and an id (judging it is the diff's job, not the driver's)."""
    return msg.method is not None and msg.id is not None and msg.kind in (Kind.REQUEST, Kind.INVALID)


def make_plan(events: Sequence[Event] | Callable[[], Iterable[Event]]) -> Plan:
    """The replay plan of a recorded session: its events in file order, as a sequence or as a
    callable giving them afresh (e.g. `Transcript.events`: read twice, never held whole)."""
    again: Callable[[], Iterable[Event]] = events if callable(events) else (lambda: events)
    plan = Plan()
    client_ids: set[RequestId] = set()
    server_requests: dict[RequestId, str] = {}
    answer_events: set[int] = set()
    answered_at: list[float] = []
    asked_at: list[float] = []
    completes: dict[int, list[Message]] = {}  # event index -> the client requests it completes
    side = Side()  # the diff's keys and minted values (dropped once the plan is made)
    for msg in messages(again()):
        side.on_message(msg)
        for one in msg.items if msg.kind is Kind.BATCH else (msg,):
            if one.channel == IN:
                if one.kind is Kind.REQUEST and one.id is not None:
                    client_ids.add(one.id)
                    completes.setdefault(one.frame.events[-1] if one.frame.events else -1, []).append(one)
                elif msg.kind is not Kind.BATCH and one.id in server_requests and is_answer(one):
                    assert one.id is not None
                    method = server_requests.pop(one.id)
                    plan.answers.setdefault(method, deque()).append(one)
                    answer_events.update(one.frame.events)
            elif one.channel == OUT:
                if one.id is not None and one.id in client_ids and is_answer(one):
                    plan.responses.append(one.id)
                    answered_at.append(one.frame.t)
                elif one.id is not None and one.method is not None and is_server_request(one):
                    server_requests[one.id] = one.method
                    plan.server_requests.append(one.method)
                    asked_at.append(one.frame.t)
    uses: dict[int, list[Use]] = {}  # first event of a client line -> the minted values it sends back
    joined: dict[int, int] = {}  # a later event of such a line -> its first event
    for use in side.minted.uses:
        if use.event in answer_events:
            continue  # an answer to a server request is sent by the driver, as recorded
        uses.setdefault(use.event, []).append(use)
        plan.sources.add(use.source)
        for later in use.events[1:]:
            joined[later] = use.event
    del side
    starts = set(joined.values())
    k = asked = 0
    by_event: dict[int, Send] = {}
    for event in again():
        if event.ch == EOF_ and event.get("of") == IN:
            plan.stdin_closed = True
        if event.ch != IN or event.index in answer_events:
            continue
        first = by_event.get(joined.get(event.index, -1))
        if first is not None:  # the rest of a line that sends a minted value back: one chunk
            first.data += event.data
            first.requests += tuple(completes.get(event.index, ()))
            continue
        while k < len(answered_at) and answered_at[k] < event.t:
            k += 1
        while asked < len(asked_at) and asked_at[asked] < event.t:
            asked += 1
        send = Send(
            event.data,
            event.t,
            k,
            event.index,
            asked,
            tuple(completes.get(event.index, ())),
            tuple(uses.get(event.index, ())),
        )
        if event.index in starts:
            by_event[event.index] = send
        plan.sends.append(send)
    return plan

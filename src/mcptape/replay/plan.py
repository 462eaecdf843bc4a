"""What to replay, read from the recorded session (pure): the client's bytes, when to send each
chunk, and the client's answers to the server's own requests.

* `sends`: every `in` event, in file order, as its original bytes (malformed lines included),
  except the client's responses to server->client requests (those are given back when the new
  server asks, with its id).
* Causal pacing: each send carries how many of the original server's responses the client had
  received before it wrote that chunk (`ready`, an index into `responses`): the driver waits
  until the new server has sent responses to those same request ids.
* `answers`: the client's responses to `roots/list`, `sampling/createMessage`, `elicitation/create`,
  `ping`, ... by method, in order.

Framing and classification are the check core's (`messages`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from mcptape.check.analyze import messages
from mcptape.check.model import IN, OUT, Kind, Message, RequestId
from mcptape.transcript.events import EOF_, Event


@dataclass(frozen=True)
class Send:
    """One chunk of client bytes: its bytes, its time in the recording, the responses seen before it."""

    data: bytes
    t: float
    ready: int  # the client had received responses[:ready] when it wrote this chunk
    event: int  # transcript event index in the recording


@dataclass
class Plan:
    sends: list[Send] = field(default_factory=list)
    responses: list[RequestId] = field(default_factory=list)  # ids the server answered, in time order
    answers: dict[str, deque[Message]] = field(default_factory=dict)
    stdin_closed: bool = False  # the original client closed the server's stdin (an `eof` of `in`)


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
    for msg in messages(again()):
        for one in msg.items if msg.kind is Kind.BATCH else (msg,):
            if one.channel == IN:
                if one.kind is Kind.REQUEST and one.id is not None:
                    client_ids.add(one.id)
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
    k = 0
    for event in again():
        if event.ch == EOF_ and event.get("of") == IN:
            plan.stdin_closed = True
        if event.ch != IN or event.index in answer_events:
            continue
        while k < len(answered_at) and answered_at[k] < event.t:
            k += 1
        plan.sends.append(Send(event.data, event.t, k, event.index))
    return plan

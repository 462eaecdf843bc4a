"""Executor attribution: which request each `exec`/`http` line belongs to, and whether it came
after a reject.

An executor line is attributed to the client request it names (`request_id`), else by time to the
request in flight when it happened. Because the tap is recorded by its own thread, an executor line
written just before a response can carry a time slightly after it: a request answered within
`TOLERANCE` seconds before the line still counts as in flight. A line can also reach the analysis
after the answer to the request it happened during (the HTTP cassette writes its line when the
exchange ends, timed when it began): a request answered since, whose request came before the line
(`request.t <= t <= answer.t`), was in flight then and counts as well.

An executor call is *after a reject* when the request it is attributed to was rejected (a JSON-RPC
error, a `tools/call` result with `isError: true`, arguments outside the declared inputSchema), or
when it happens after a rejected input frame, as the policy says:

* `session` (the default, the seed's policy): after a rejected input frame, any executor call
  counts: a peer that lost framing must not cause any action, and a server should close;
* `request`: after a rejected input frame, only a call that no valid request accounts for counts
  (a server may go on serving the next valid request, which then executes only itself; what
  `mcptape probe` accepts).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from mcptape.check import rules
from mcptape.check.findings import finding, frame_ref
from mcptape.check.model import HTTP, ExecCall, Finding, Frame, Ref, RequestId, Severity
from mcptape.check.pairing import Pending

TOLERANCE = 0.005  # seconds
POLICIES = ("session", "request")
_SCAN = 64  # in-flight requests looked at, newest first
_new = tuple.__new__
_REJECTED_KEPT = 4096
RECENT_ANSWERS = 32  # answers looked at when attributing an executor line by time or by its id
REQUEST_ID_KEYS = ("request_id", "requestId")
"""Where an executor line names its request (the tap's documented key, and the camelCase one)."""


class Closed(NamedTuple):
    """A client request that got its answer (the hot path builds one with `tuple.__new__`)."""

    t: float  # the answer's time
    request_id: RequestId
    request: Pending
    reason: str | None  # why it counts as rejected, None when it does not
    response: Ref | None  # the rejecting answer
    soft: bool = False  # an error that may report the action's own failure (isError, a non-input code)


# An answer as the session keeps it in `recent`, once per answer: a plain tuple in `Closed`'s order
# (building the NamedTuple costs ~1,400 instructions more); `newest` names them as they are read.
Answered = tuple[float, RequestId, Pending, "str | None", "Ref | None", bool]


def newest(recent: deque[Answered]) -> Iterator[Closed]:
    """The recent answers, newest first, each named as it is read (only executor lines read them)."""
    for row in reversed(recent):
        yield _new(Closed, row)


class RejectPoint(NamedTuple):
    """The first rejected input frame of the session."""

    t: float
    ref: Ref
    problem: str


# An executor line waiting for its request's answer: (the line, its ExecCall).
Waiting = tuple[Ref, ExecCall]


def named_request_id(value: Any) -> RequestId | None:
    """The request an executor line names (`request_id`, or `requestId`), if it names one."""
    if type(value) is dict:
        for key in REQUEST_ID_KEYS:
            rid = value.get(key)
            if type(rid) is int or type(rid) is str:
                return rid
    return None


def named_value(value: Any) -> Any:
    """Whatever an executor line gives under the first request-id key it has, of any JSON type
    (None when it has none): `named_request_id` keeps only ids, a probe also matches the bogus ids
    it sent itself (`"id": true`)."""
    if type(value) is dict:
        for key in REQUEST_ID_KEYS:
            if key in value:
                return value[key]
    return None


class Attributor:
    """Attributes executor lines and emits `exec-after-reject` findings."""

    def __init__(
        self, emit: Callable[[Finding], None], policy: str = "session", recent: deque[Answered] | None = None
    ) -> None:
        """`recent`: the last answers to client requests, newest last, kept by the session (the
        attributor reads it; it is told of the answers that reject a request, or that executor
        lines wait for, through `answered`)."""
        if policy not in POLICIES:
            raise ValueError(f"unknown policy {policy!r} (one of {', '.join(POLICIES)})")
        self.emit = emit
        self.per_request = policy == "request"
        self.reject_point: RejectPoint | None = None
        self.waiting: dict[RequestId, list[Waiting]] = {}
        self.recent: deque[Answered] = deque(maxlen=RECENT_ANSWERS) if recent is None else recent
        self.rejected: dict[RequestId, Closed] = {}
        # Lines attributed by a guess (by time, or naming no request in flight) that may instead
        # belong to another request in flight when they happened: judged when that one is answered.
        self.suspects: dict[RequestId, list[Waiting]] = {}
        self.reported: dict[int, None] = {}  # the events of executor lines already reported (bounded)
        self.calls = 0

    def frame_rejected(self, t: float, ref: Ref, problem: str) -> None:
        """A rejected input frame: from here on, no executor call is acceptable."""
        if self.reject_point is None:
            self.reject_point = RejectPoint(t, ref, problem)

    def answered(self, closed: Closed) -> None:
        """A client request got an answer that rejects it (`closed.reason` says why; `soft`: the
        refusal may report a failed action rather than refuse the input), or one that executor
        lines are waiting for. (Every answer is in `recent` already: the session keeps it.)"""
        rid, reason = closed.request_id, closed.reason
        if reason is not None:
            self.rejected[rid] = closed
            if len(self.rejected) > _REJECTED_KEPT:
                del self.rejected[next(iter(self.rejected))]
        if self.waiting:
            waiting = self.waiting.pop(rid, None)
            # Each action on its own: one the sink or a stub says failed is excused by an error that
            # may report that failure (`_flag_request`); any other effect of the request still counts.
            if waiting and reason is not None:
                for ref, call in waiting:
                    self._flag_request(ref, call, closed)
        if self.suspects:
            suspects = self.suspects.pop(rid, None)
            if suspects and reason is not None:
                for ref, call in suspects:
                    self._flag_ambiguous(ref, call, closed)

    def executor(self, frame: Frame, value: Any, in_flight: dict[RequestId, Pending]) -> ExecCall:
        """Attribute one executor line; flag it now, or when its request is answered."""
        self.calls += 1
        t = frame.t
        named = named_request_id(value)
        target: RequestId | None = None
        closed: Closed | None = None
        if named is not None:
            target = _find(named, in_flight)
            if target is None:
                closed = self._closed(named)
        else:
            # The HTTP sink records a request before answering it: its time does not lag.
            lag = 0.0 if frame.channel == HTTP else TOLERANCE
            target, closed = self._by_time(t, in_flight, lag)
        attributed = target if target is not None else (closed.request_id if closed is not None else None)
        call = ExecCall(frame, value if type(value) is dict else None, named, attributed)
        ref = frame_ref(frame.channel, frame)
        point = self.reject_point
        # A line naming a request answered before the bad frame was written before it, whatever its
        # recorded time; a line attributed only by time gets no such benefit of the doubt.
        excused = named is not None and closed is not None and closed.t <= point.t if point else False
        after_frame_reject = point is not None and t > point.t and not excused
        if after_frame_reject and self.per_request and (target is not None or closed is not None):
            after_frame_reject = False  # a valid request accounts for it: judged as that request
        if after_frame_reject:
            assert point is not None
            self._flag_session(ref, call, point)
        elif target is not None:
            self.waiting.setdefault(target, []).append((ref, call))
        elif closed is not None and closed.reason is not None:
            self._flag_request(ref, call, closed)
        if not after_frame_reject and (named is None or attributed is None):
            self._others(ref, call, in_flight)
        return call

    def _others(self, ref: Ref, call: ExecCall, in_flight: dict[RequestId, Pending]) -> None:
        """A line attributed by a guess: the other requests in flight when it happened. One that is
        (or will be) rejected makes it a warning: the action may have been for that one."""
        t, attributed = call.frame.t, call.attributed_to
        lag = 0.0 if call.frame.channel == HTTP else TOLERANCE  # as in `executor`
        for i, rid in enumerate(reversed(in_flight)):
            if i >= _SCAN:
                break
            if in_flight[rid].t <= t and rid != attributed:
                self.suspects.setdefault(rid, []).append((ref, call))
        for closed in newest(self.recent):
            if closed.t < t - lag:
                break
            if closed.reason is not None and closed.request.t <= t and closed.request_id != attributed:
                self._flag_ambiguous(ref, call, closed)
                return

    def _closed(self, rid: RequestId) -> Closed | None:
        key = str(rid)
        for closed in newest(self.recent):
            if str(closed.request_id) == key:
                return closed
        found = self.rejected.get(rid)
        if found is None and type(rid) is str and rid.isascii() and rid.isdigit() and len(rid) <= 4300:
            found = self.rejected.get(int(rid))
        if found is None and type(rid) is int:
            found = self.rejected.get(key)
        return found

    def _by_time(
        self, t: float, in_flight: dict[RequestId, Pending], tolerance: float = TOLERANCE
    ) -> tuple[RequestId | None, Closed | None]:
        started: RequestId | None = None
        started_at = 0.0
        for i, rid in enumerate(reversed(in_flight)):
            if i >= _SCAN:
                break
            pending = in_flight[rid]
            if pending.t <= t:
                started, started_at = rid, pending.t
                break
        just_closed: Closed | None = None
        spanning: Closed | None = None  # answered later than `t`, but in flight at `t`
        for closed in newest(self.recent):
            if closed.t >= t - tolerance:
                if closed.request.t <= t:
                    if closed.t <= t + tolerance:
                        just_closed = closed
                        break
                    if spanning is None or closed.request.t > spanning.request.t:
                        spanning = closed
            else:
                break
        if started is not None and (just_closed is None or t - started_at > tolerance):
            if spanning is None or spanning.request.t <= started_at:
                return started, None
            return None, spanning
        if just_closed is not None:
            return None, just_closed
        # A line that reached the analysis after the answer to the request it happened during (the
        # cassette writes an `http` line when the exchange ends, timed when it began): the request
        # in flight at `t` that started last, as for one still in flight.
        return None, spanning

    def _flag_request(self, ref: Ref, call: ExecCall, closed: Closed) -> None:
        rid, pending, response = closed.request_id, closed.request, closed.response
        related = (ref, pending.ref()) + ((response,) if response is not None else ())
        where = f"out line {response.line}" if response is not None else "its own arguments"
        severity: Severity | None = None
        why = "which was rejected"
        if closed.soft:
            known = outcome(call)
            if known == FAILED:
                return  # the error reports this action's own failure
            if known == OK:
                why = "which the server refused after the action went through (the refusal came after acting)"
            else:
                severity = Severity.WARNING
                why = (
                    "which the server answered with an error after this action; whether the action itself "
                    "failed is unknown (its line records no outcome), so this may be a refusal after acting"
                )
        self._flag(
            ref,
            call,
            f"executor call ({ref.channel} line {ref.line}) for request {rid!r} "
            f"({pending.method}, in line {pending.line}), {why}: {closed.reason} ({where})",
            rid,
            related,
            severity,
        )

    def _flag_ambiguous(self, ref: Ref, call: ExecCall, closed: Closed) -> None:
        """A warning: an executor line that names no request (or none in flight) happened while
        `closed`, a request that was rejected, was in flight; which request it served is unknown."""
        if (ref.event >= 0 and ref.event in self.reported) or (closed.soft and outcome(call) == FAILED):
            return
        rid, pending, response = closed.request_id, closed.request, closed.response
        guess = call.attributed_to
        if call.request_id is not None:
            named = f"names request {call.request_id!r}, which was not in flight"
        else:
            named = "names no request"
        also = f"; it is counted for request {guess!r}, by time" if guess is not None else ""
        self._flag(
            ref,
            call,
            f"executor call ({ref.channel} line {ref.line}) {named}, and happened while request "
            f"{rid!r} ({pending.method}, in line {pending.line}) was in flight, which was rejected: "
            f"{closed.reason}; it cannot be told whether the action was for it{also}",
            rid,
            (ref, pending.ref()) + ((response,) if response is not None else ()),
            Severity.WARNING,
        )

    def _reported(self, event: int) -> None:
        if event < 0:
            return  # a line of unknown place: never taken for another
        self.reported[event] = None
        if len(self.reported) > _REJECTED_KEPT:
            del self.reported[next(iter(self.reported))]

    def _flag_session(self, ref: Ref, call: ExecCall, point: RejectPoint) -> None:
        bad = point.ref
        self._flag(
            ref,
            call,
            f"executor call ({ref.channel} line {ref.line}) after the rejected input frame "
            f"on in line {bad.line} ({point.problem})",
            call.attributed_to,
            (ref, bad),
        )

    def _flag(
        self,
        ref: Ref,
        call: ExecCall,
        message: str,
        request_id: RequestId | None,
        related: tuple[Ref, ...],
        severity: Severity | None = None,
    ) -> None:
        """An exec-after-reject finding on the executor line at `ref` (then never reported again)."""
        self._reported(ref.event)
        self.emit(
            finding(
                rules.EXEC_AFTER_REJECT,
                channel=ref.channel,
                line=ref.line,
                offset=ref.offset,
                raw=ref.raw,
                message=message,
                request_id=request_id,
                t=call.frame.t,
                event=ref.event,
                related=related,
                severity=severity,
            )
        )


OK, FAILED = "ok", "failed"  # an executor line's `outcome`, written by the HTTP sink and the stubs


def outcome(call: ExecCall) -> str | None:
    """What the line says of its action's outcome ("ok", "failed"), or None when it says nothing."""
    value = call.value
    found = value.get("outcome") if value is not None else None
    return found if found in (OK, FAILED) else None


def _find(rid: RequestId, in_flight: dict[RequestId, Pending]) -> RequestId | None:
    """The in-flight id `rid` names (an executor may write the id 9 as "9")."""
    if rid in in_flight:
        return rid
    if type(rid) is str and rid.isascii() and rid.isdigit() and len(rid) <= 4300 and int(rid) in in_flight:
        return int(rid)
    if type(rid) is int and str(rid) in in_flight:
        return str(rid)
    return None

"""Drive a new build over Streamable HTTP with a recorded client (`http.plan.HttpPlan`).

Each recorded exchange's request is sent on a connection of its own to the recording proxy in front
of the new server, and its response read as it comes (`recorder.http.clientread.ResponseReader`): the
messages a JSON body or SSE events carry are classified by the check core and aligned as the diff aligns them,
so that what the recorded client sent back of the recorded server's values is replaced by what the
new server sent at the same place (`diff.minted`), the id of a server request it answers by the new
server's id for that request, and its `Mcp-Session-Id` by the one the new server assigned.

Pacing is causal. The recording's timeline is walked in order: a request is sent once the new
server has answered the requests whose responses the recorded client had seen (or the exchange that
carried one has ended without it), has sent the server requests the client had seen (bounded: a
warning when one never comes), and once each exchange whose response had ended by itself before the
request began has ended again. An exchange the recorded client closed (its response cut, as a client
closes a stream it no longer wants) is closed at its place in that timeline, once it carried as many
messages as it did then. What is still open at the end is closed.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from collections.abc import Callable

from mcptape.check.classify import classify_line
from mcptape.check.model import Kind, RequestId
from mcptape.recorder.http.clientread import ResponseReader
from mcptape.replay.guard import Call, HeldCall, LiveGuard, settled_by
from mcptape.replay.http.live import READ, Live, body_of, shut
from mcptape.replay.http.plan import HttpPlan, Step
from mcptape.replay.kinds import Key, is_answer, is_server_request
from mcptape.replay.minted import Carrier, with_id
from mcptape.replay.outcome import (
    MISSING_SERVER_REQUEST,
    SERVER_EXITED,
    STEP_TIMEOUT,
    UNANSWERABLE_REQUEST,
    Issue,
    Run,
)
from mcptape.replay.settings import CAUSAL, RECORDED

LAUNCH, CUT = 1, 0  # at the same time, a close comes before a send


class HttpDriver:
    """Replays `plan` through the proxy at `host`:`port`; `gone` is set when the server exited."""

    def __init__(
        self,
        plan: HttpPlan,
        host: str,
        port: int,
        run: Run,
        *,
        step_timeout: float = 10.0,
        recorded_host: str | None = None,
        gone: threading.Event | None = None,
        pace: str = CAUSAL,
        transform: Callable[[bytes], bytes] | None = None,
        allow_mutating: bool = False,
    ) -> None:
        self.plan = plan
        self.guard = LiveGuard(allow_mutating, plan.hints)  # holds back calls that may change data
        self.waived: Counter[str] = Counter()  # server requests a held exchange would have caused
        self.address = (host, port)
        self.authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        self.recorded_host = recorded_host
        self.run = run
        self.step_timeout = step_timeout
        self.gone = gone or threading.Event()
        self.cond = threading.Condition()
        self.answered: Counter[RequestId] = Counter()  # responses the new server sent, by id
        self.asked: dict[str, list[RequestId]] = {}  # its own requests, by method, in order
        self.sessions: dict[str, str] = {}  # recorded Mcp-Session-Id -> the new server's
        self.carrier = Carrier(plan.sources, run)  # the new server's minted values, carried over
        self.live: dict[int, Live] = {}
        self.stopped = False
        self.pace = pace
        self.transform = transform  # e.g. verified secrets put back into a redacted request's body
        self.started = time.monotonic()  # the recording's first exchange is sent at this time

    def server_exited(self) -> None:
        """The server started for the replay exited: every wait ends now."""
        with self.cond:
            self.gone.set()
            self.cond.notify_all()

    # -- the timeline ------------------------------------------------------------------------
    def drive(self) -> None:
        self.started = time.monotonic()
        timeline = sorted(
            [(s.start, LAUNCH, k) for k, s in enumerate(self.plan.steps)]
            + [(s.end, CUT, k) for k, s in enumerate(self.plan.steps) if not s.whole and s.end is not None],
        )
        ended = sorted(
            (s for s in self.plan.steps if s.whole and s.end is not None),
            key=lambda s: s.end or 0.0,
        )
        waited = 0  # ended[:waited] have been waited for
        for t, kind, k in timeline:
            step = self.plan.steps[k]
            if kind == LAUNCH and not self._ready(step):
                self.stopped = True
                break
            while waited < len(ended) and (ended[waited].end or 0.0) <= t:
                self._wait_ended(ended[waited], t)
                waited += 1
            if kind == CUT:
                self._cut(step)
            else:
                self._launch(step)
        if not self.stopped and self._wait_responses(len(self.plan.responses), "at the end"):
            for step in ended[waited:]:
                self._wait_ended(step, None)
            self.run.completed = not self.gone.is_set()
        self.run.ran_writers = list(self.guard.ran)
        self.close()

    def close(self) -> None:
        """Close every connection still open and let the readers end."""
        time.sleep(0.05)
        for live in list(self.live.values()):
            shut(live.sock)
        for live in list(self.live.values()):
            if live.thread is not None:
                live.thread.join(self.step_timeout)

    # -- waiting -----------------------------------------------------------------------------
    def _wait(self, done: Callable[[], bool]) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: done() or self.gone.is_set(), self.step_timeout) and done()

    def _wait_ended(self, step: Step, before: float | None) -> None:
        live = self.live.get(step.x)
        if live is None or self._wait(live.done.is_set):
            return
        if self.gone.is_set():
            return
        when = "before the end" if before is None else "before the requests after it"
        message = (
            f"exchange {step.x} ({step.request.method} {step.request.target}) did not end within "
            f"{self.step_timeout:g}s (--step-timeout); the recorded one had ended {when}"
        )
        self.run.issues.append(Issue(STEP_TIMEOUT, message, error=False))

    def _responded(self, upto: int) -> bool:
        required: Counter[RequestId] = Counter(self.plan.responses[:upto])
        # each answered, or past answering (its exchange ended without it)
        return all(self.answered[rid] >= n or self._carried_out(rid) for rid, n in required.items())

    def _carried_out(self, rid: RequestId) -> bool:
        """Every exchange that carried request `rid` was sent and has ended."""
        carriers = [self.live.get(x) for x in self.plan.carriers.get(rid, ())]
        return bool(carriers) and all(c is not None and c.done.is_set() for c in carriers)

    def _wait_responses(self, upto: int, when: str) -> bool:
        if self._wait(lambda: self._responded(upto)):
            return True
        with self.cond:
            required: Counter[RequestId] = Counter(self.plan.responses[:upto])
            missing = sorted((r for r, n in required.items() if self.answered[r] < n), key=str)
        ids = ", ".join(repr(r) for r in missing[:10]) + (" ..." if len(missing) > 10 else "")
        if self.gone.is_set():
            why = f"the new server exited: it never answered request {ids}"
            self.run.issues.append(Issue(SERVER_EXITED, f"{why}; replay stopped after {self._sent()}"))
        else:
            message = (
                f"no response to request {ids} within {self.step_timeout:g}s (--step-timeout) {when}; "
                f"replay stopped after {self._sent()}"
            )
            self.run.issues.append(Issue(STEP_TIMEOUT, message))
        return False

    def _sent(self) -> str:
        return f"{self.run.sent} of {self.run.total} requests"

    def _wait_asked(self, step: Step) -> None:
        """Wait (bounded) for the server requests the recorded client had seen; a warning for one
        that never came (the replay goes on)."""
        wanted: Counter[str] = Counter(self.plan.server_requests[: step.asked])

        def have() -> bool:
            return all(len(self.asked.get(m, ())) + self.waived[m] >= n for m, n in wanted.items())

        if self._wait(have) or self.gone.is_set():
            return
        with self.cond:
            short = {m: n for m, n in wanted.items() if len(self.asked.get(m, ())) + self.waived[m] < n}
        for method, n in sorted(short.items()):
            message = (
                f"the recording shows the server's {method} request #{n} before exchange {step.x}; the "
                f"new server sent {len(self.asked.get(method, ()))} within {self.step_timeout:g}s "
                "(--step-timeout), and the replay went on without it"
            )
            if not any(i.message == message for i in self.run.issues):
                self.run.issues.append(Issue(MISSING_SERVER_REQUEST, message, error=False))

    # -- sending -----------------------------------------------------------------------------
    def _ready(self, step: Step) -> bool:
        """Wait until the new server answered what the recorded client had seen before `step`
        (False: it did not, the replay stops), then for the server requests and minted values.
        With recorded pacing, wait until its recorded time instead (and, bounded, for the minted
        values it sends back and the server requests it answers)."""
        if self.pace == RECORDED:
            return self._at_recorded_time(step)
        if self.gone.is_set() or not self._wait_responses(step.ready, f"before exchange {step.x}"):
            if self.gone.is_set() and not any(i.kind == SERVER_EXITED for i in self.run.issues):
                message = f"the new server exited; replay stopped after {self._sent()}"
                self.run.issues.append(Issue(SERVER_EXITED, message))
            return False
        if step.calls:
            with self.cond:
                if self._decide(step) is not None:  # held: nothing its answer would bring is awaited
                    return True
        self._wait_asked(step)
        self._wait_minted(step)
        return True

    def _at_recorded_time(self, step: Step) -> bool:
        first = self.plan.steps[0].start
        self.gone.wait(max(0.0, self.started + (step.start - first) - time.monotonic()))
        if self.gone.is_set():
            self.run.issues.append(
                Issue(SERVER_EXITED, f"the new server exited; replay stopped after {self._sent()}")
            )
            return False
        self._wait_minted(step)
        self._wait(lambda: all(len(self.asked.get(a.method, ())) >= a.nth for a in step.answers))
        return True

    def _wait_minted(self, step: Step) -> None:
        if step.uses:
            wanted = {use.source for use in step.uses}
            values = self.carrier.sources.values
            self._wait(lambda: all(key in values or self._settled(key) for key in wanted))

    def _settled(self, key: Key) -> bool:
        """A response that can no longer come: every exchange that carried its request has ended."""
        return key[0] == "id" and self._carried_out(key[1])

    def _decide(self, step: Step) -> str | None:
        """Why `step` is held back (`replay.guard`; None: it is sent), decided once (holding the lock)."""
        return self.guard.decide(step.calls)

    def _hold(self, step: Step, calls: tuple[Call, ...], why: str) -> None:
        """Hold back an exchange whose body may make the server change data: not sent, its requests
        taken as answered and the values their answers would have minted as settled, the server's
        requests the recording shows while it was in flight waived (holding the lock)."""
        self.run.held.append(HeldCall(step.x, calls, why))
        span = (step.start, step.end)
        keys, waived = settled_by(calls, span, self.plan.server_requests, self.plan.asked_at)
        for key in keys:
            self.carrier.settle(key)
        self.waived.update(waived)
        for request in step.requests:
            self.answered[request.id] += 1  # type: ignore[index]
        self.cond.notify_all()

    def _launch(self, step: Step) -> None:
        with self.cond:
            why = self._decide(step) if step.calls else None
            if why is not None:
                self._hold(step, step.calls, why)
                return
            data = self._request(step)
            if step.request.body and (changed := self.guard.sending(body_of(data))) is not None:
                self._hold(step, step.calls or (changed[1],), changed[0])  # a value put in names a writer
                return
            for request in step.requests:  # before any answer is read: the diff's numbering
                self.carrier.on_message(request)
            self.guard.sent(step.requests)
            reader = ResponseReader(step.request.method, on_line=lambda line: self._line(live, line))
            live = Live(step, reader)
            self.live[step.x] = live
        try:  # sent from here, one after the other: the proxy numbers the exchanges as recorded
            live.sock = socket.create_connection(self.address, timeout=self.step_timeout)
            live.sock.sendall(data)
            live.sock.settimeout(None)
        except OSError as exc:
            why = exc.strerror or str(exc) or type(exc).__name__
            self.run.issues.append(Issue(STEP_TIMEOUT, f"exchange {step.x} could not be sent: {why}"))
            self._finished(live)
            return
        thread = threading.Thread(target=self._exchange, args=(live,), name="mcptape-replay-http")
        thread.daemon = True
        live.thread = thread
        thread.start()
        self.run.sent += 1

    def _request(self, step: Step) -> bytes:
        """The recorded request with the new session's values (holding the lock)."""
        request = step.request
        body: bytes | None = None
        swapped: dict[str, str] = {}
        if request.whole and (step.uses or step.answers or self.transform is not None):
            recorded = request.body if self.transform is None else self.transform(request.body)
            body, swapped = self.carrier.carry(recorded, step.uses)
            for answer in step.answers:
                ids = self.asked.get(answer.method, [])
                if len(ids) < answer.nth:
                    message = (
                        f"exchange {step.x} answers the server's {answer.method} request #{answer.nth}; "
                        "the new server did not send it, so the answer went with the recorded id"
                    )
                    self.run.issues.append(Issue(UNANSWERABLE_REQUEST, message, error=False))
                    continue
                body = with_id(body, answer.id, ids[answer.nth - 1])
                self.run.answered += 1
            if body == request.body:
                body = None
        origin = (self.recorded_host, self.authority) if self.recorded_host else None
        data = request.rebuilt(
            host=self.authority, session=self.sessions.get, body=body, values=swapped, origin=origin
        )
        if request.whole and self.transform is not None:  # the head too (`Authorization: Bearer ...`)
            head, sep, rest = data.partition(b"\r\n\r\n")
            data = self.transform(head + sep) + rest
        return data

    def _cut(self, step: Step) -> None:
        """The recorded client closed this exchange here: close it once it carried as much."""
        live = self.live.get(step.x)
        if live is None:
            return
        if (
            not self._wait(lambda: live.done.is_set() or live.delivered >= step.carried)
            and not self.gone.is_set()
        ):
            message = (
                f"exchange {step.x} ({step.request.method} {step.request.target}): the recorded client "
                f"closed it after {step.carried} message(s); the new server sent {live.delivered} within "
                f"{self.step_timeout:g}s (--step-timeout), and it was closed then"
            )
            self.run.issues.append(Issue(STEP_TIMEOUT, message, error=False))
        shut(live.sock)

    # -- one exchange ------------------------------------------------------------------------
    def _exchange(self, live: Live) -> None:
        reader, sock = live.reader, live.sock
        assert sock is not None
        try:
            while not (reader.ended or reader.failed):
                chunk = sock.recv(READ)
                if not chunk:
                    reader.close()
                    break
                with self.cond:
                    reader.feed(chunk)
                    self._head(live)
        except OSError:
            pass  # what the new server did is in the new transcript
        finally:
            self._finished(live)

    def _finished(self, live: Live) -> None:
        with self.cond:
            live.done.set()
            self.cond.notify_all()
        shut(live.sock)
        if live.sock is not None:
            live.sock.close()

    def _head(self, live: Live) -> None:
        old, new = live.step.assigned, live.reader.header("mcp-session-id")
        if old is not None and new is not None and old not in self.sessions:
            self.sessions[old] = new

    def _line(self, live: Live, line: bytes) -> None:
        """A message the response carried (called holding the lock)."""
        live.delivered += 1
        msg = classify_line(line, "out")
        self.carrier.on_message(msg)
        for one in msg.items if msg.kind is Kind.BATCH else (msg,):
            self.guard.heard(one)
            if is_answer(one):
                self.answered[one.id] += 1  # type: ignore[index]
            elif is_server_request(one):
                assert one.method is not None and one.id is not None
                self.asked.setdefault(one.method, []).append(one.id)
        self.cond.notify_all()

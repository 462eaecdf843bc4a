"""Drive a new build with a recorded client: send, wait, answer the server's requests, shut down.

The only part of replay that touches a process. The new server runs under a `Harness` (same
recorder as `mcptape record`, executor tap and loopback HTTP sink on), so the replay is itself a
transcript. Each stdout line the new server writes is classified by the check core, and aligned
with the recording's as the diff aligns them (`Side`), so that a value the recorded server minted
and the client sent back is replaced by the one the new server minted at the same place.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mcptape.check.classify import classify
from mcptape.check.model import Kind, Message, RequestId
from mcptape.harness import Harness, ServerGone
from mcptape.jsonsafe import dumps
from mcptape.recorder.outbound.sideeffects import HttpFactory
from mcptape.recorder.session import ExitStatus
from mcptape.replay.guard import Call, HeldCall, LiveGuard, settled_by
from mcptape.replay.kinds import is_answer, is_server_request
from mcptape.replay.minted import Carrier
from mcptape.replay.outcome import (
    MISSING_SERVER_REQUEST,
    SERVER_EXITED,
    STEP_TIMEOUT,
    UNANSWERABLE_REQUEST,
    Issue,
    Run,
)
from mcptape.replay.settings import CAUSAL, RECORDED
from mcptape.replay.stdio.plan import Plan, Send
from mcptape.transcript.envnames import HEADER_KEY, describe

UNANSWERABLE = -32601


class StdioDriver:
    """The stdio wing's `Driver`: replays `plan` against `command`, recording the new session to `path`."""

    def __init__(
        self,
        plan: Plan,
        command: Sequence[str],
        path: Path,
        *,
        pace: str = CAUSAL,
        step_timeout: float = 10.0,
        shutdown_timeout: float = 2.0,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stubs: Sequence[str] = (),
        header: Mapping[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        transform: Callable[[bytes], bytes] | None = None,
        http: HttpFactory | None = None,
        allow_mutating: bool = False,
    ) -> None:
        self.plan = plan
        self.guard = LiveGuard(allow_mutating, plan.hints)  # holds back calls that may change data
        self.held_calls: set[int] = set()  # id() of the calls held back
        self.http = http  # the HTTP listener in the sink's place (the recorded cassette, played back)
        self.command = list(command)
        self.path = path
        self.pace = pace
        self.step_timeout = step_timeout
        self.shutdown_timeout = shutdown_timeout
        self.env = env
        self.cwd = cwd
        self.stubs = list(stubs)
        self.header = dict(header or {})
        self.clock = clock
        self.transform = transform  # e.g. put verified secrets back into a redacted transcript's bytes
        self.answered: Counter[RequestId] = Counter()  # responses the new server sent, by id
        self.served: dict[str, int] = {}  # server->client requests answered, by method
        self.run = Run(path=path, total=len(plan.sends))
        self.harness: Harness | None = None
        self.gone = False
        self.asked: Counter[str] = Counter()  # the server requests the recording shows so far, by method
        self.waived: Counter[str] = Counter()  # ... that never came in time (reported once)
        self.carrier = Carrier(plan.sources, self.run)  # the new server's minted values, carried over

    # -- the whole replay ------------------------------------------------------------------
    def replay(self) -> Run:
        """Start the server, send everything, wait for the answers, shut down (raises SpawnError)."""
        started = self.clock()
        harness = Harness(
            self.command,
            self.path,
            http_sink=True,
            stubs=self.stubs,
            env=self.env,
            cwd=self.cwd,
            shutdown_timeout=self.shutdown_timeout,
            header={
                **({"replay": self.header} if self.header else {}),
                HEADER_KEY: describe(os.environ if self.env is None else self.env),  # as record writes it
            },
            http=self.http,
        )
        self.harness = harness
        with harness:
            self._feed(harness, started)
            harness.close_stdin()
            harness.note("replay: stdin closed")
        self.run.status = harness.status
        self.run.ran_writers = list(self.guard.ran)
        self.run.write_error = getattr(harness.session.writer, "failed", None)
        self.run.seconds = self.clock() - started
        return self.run

    def _feed(self, h: Harness, started: float) -> None:
        plan = self.plan
        required: Counter[RequestId] = Counter()
        seen = 0
        for send in plan.sends:
            while seen < send.ready:
                required[plan.responses[seen]] += 1
                seen += 1
            when = f"before client chunk {self.run.sent + 1}"
            if self.pace == RECORDED:
                self._pump_until(lambda: False, deadline=started + send.t)
            elif not self._wait_responses(required, when):
                return
            if self.gone:
                return
            why = self.guard.decide(send.calls) if send.calls else None
            if why is not None:  # decided before waiting for what a held call's answer would bring
                self._hold(send, send.calls, why)
                continue
            if self.pace != RECORDED:
                self._wait_server_requests(send.asked, when)
            if send.uses:
                self._wait_sources(send)
            if self.gone:
                return
            data, _ = self.carrier.carry(send.data, send.uses)
            data = data if self.transform is None else self.transform(data)
            if data != send.data and (changed := self.guard.sending(data)) is not None:
                self._hold(send, send.calls or (changed[1],), changed[0])  # a value put in names a writer
                continue
            for request in send.requests:  # before any answer is read: the diff's numbering
                self.carrier.on_message(request)
            self.guard.sent(send.requests)
            try:
                h.send(data)
            except ServerGone:
                self._server_gone(
                    f"it stopped reading its stdin after {self.run.sent} of {self.run.total} chunks"
                )
                return
            self.run.sent += 1
        final: Counter[RequestId] = Counter(plan.responses)
        if self._wait_responses(final, "before closing stdin"):
            self.run.completed = True
            if self.pace != RECORDED:
                self._wait_server_requests(len(plan.server_requests), "before closing stdin")

    def _hold(self, send: Send, calls: tuple[Call, ...], why: str) -> None:
        """Hold back a chunk that may make the server change data (`replay.guard`): not sent, its
        requests taken as answered and the values their answers would have minted as settled, the
        server's requests the recording shows while they were in flight waived, so that nothing
        waits for them. A line in pieces is one held frame."""
        if not all(id(c) in self.held_calls for c in calls):
            self.run.held.append(HeldCall(send.event, calls, why))
            self.held_calls.update(id(c) for c in calls)
            ends = [c.until for c in calls if c.until is not None]
            span = (min(c.since for c in calls), max(ends) if ends else None)
            keys, waived = settled_by(calls, span, self.plan.server_requests, self.plan.asked_at)
            for key in keys:
                self.carrier.settle(key)
            self.waived.update(waived)
        for request in send.requests:
            self.answered[request.id] += 1  # type: ignore[index]
        assert self.harness is not None
        self.harness.note(f"replay: the client chunk of recorded event {send.event} not sent: {why}")

    # -- waiting ---------------------------------------------------------------------------
    def _wait_responses(self, required: Counter[RequestId], when: str) -> bool:
        """Read the server's output until it has answered `required`, or fail the replay."""
        if self._satisfied(required):
            return True
        deadline = self.clock() + self.step_timeout
        self._pump_until(lambda: self._satisfied(required), deadline=deadline)
        if self._satisfied(required):
            return True
        missing = sorted((rid for rid, n in required.items() if self.answered[rid] < n), key=str)
        ids = ", ".join(repr(r) for r in missing[:10]) + (" ..." if len(missing) > 10 else "")
        if self.gone:
            self._server_gone(f"it never answered request {ids}")
        else:
            message = (
                f"no response to request {ids} within {self.step_timeout:g}s (--step-timeout) {when}; "
                f"replay stopped after {self.run.sent} of {self.run.total} client chunks"
            )
            self.run.issues.append(Issue(STEP_TIMEOUT, message))
            assert self.harness is not None
            self.harness.note(f"replay: {message}")
        return False

    def _wait_server_requests(self, upto: int, when: str) -> None:
        """Wait (bounded) for the server's own requests the recording shows by now; they are
        answered as they come. One that never comes is reported, and the replay goes on."""
        plan = self.plan
        while sum(self.asked.values()) < upto:
            self.asked[plan.server_requests[sum(self.asked.values())]] += 1
        if self._asked_all():
            return
        self._pump_until(self._asked_all, deadline=self.clock() + self.step_timeout)
        for method, n in sorted(self.asked.items()):
            missing = n - self.served.get(method, 0) - self.waived[method]
            if missing > 0 and not self.gone:
                self.waived[method] += missing
                message = (
                    f"the recording shows the server's {method} request #{n} {when}; the new server "
                    f"sent {self.served.get(method, 0)} within {self.step_timeout:g}s (--step-timeout), "
                    "and the replay went on without it"
                )
                self.run.issues.append(Issue(MISSING_SERVER_REQUEST, message, error=False))
                assert self.harness is not None
                self.harness.note(f"replay: {message}")

    def _asked_all(self) -> bool:
        served, waived = self.served, self.waived
        return all(served.get(m, 0) + waived[m] >= n for m, n in self.asked.items())

    def _wait_sources(self, send: Send) -> None:
        """Wait (bounded) for the new server's messages in which it minted the values `send` sends
        back (a response is normally there already: causal pacing waited for it)."""
        if self.carrier.have(send.uses):
            return
        self._pump_until(lambda: self.carrier.have(send.uses), deadline=self.clock() + self.step_timeout)

    def _satisfied(self, required: Counter[RequestId]) -> bool:
        answered = self.answered
        return all(answered[rid] >= n for rid, n in required.items())

    def _pump_until(self, done: Callable[[], bool], deadline: float) -> None:
        """Handle the server's output until `done()`, the deadline, or the end of its stdout."""
        h = self.harness
        assert h is not None
        while not done():
            now = self.clock()
            if self.gone or now >= deadline:
                return
            frame = h.next_frame(timeout=min(0.5, deadline - now))
            if frame is None:
                if h.at_eof:  # every frame was handed out before the end is
                    self.gone = True
                continue
            self._handle(classify(frame))

    # -- the server's lines ----------------------------------------------------------------
    def _handle(self, msg: Message) -> None:
        self.carrier.on_message(msg)
        for one in msg.items if msg.kind is Kind.BATCH else (msg,):
            self.guard.heard(one)
            if is_answer(one):
                self.answered[one.id] += 1  # type: ignore[index]
            elif is_server_request(one):
                self._answer(one)

    def _answer(self, request: Message) -> None:
        """Answer a server->client request with the recorded client's answer for that method."""
        method = request.method
        rid = request.id
        assert method is not None and rid is not None
        queue = self.plan.answers.get(method)
        self.served[method] = self.served.get(method, 0) + 1
        if queue:
            original = queue.popleft()
            data = (
                original.frame.raw
                if original.id == rid and original.frame.complete
                else _with_id(original.value, rid)
            )
            self.run.answered += 1
        elif method == "ping":
            data = _json({"jsonrpc": "2.0", "id": rid, "result": {}}) + b"\n"
        else:
            n = self.served[method]
            message = (
                f"the new server sent {method} request {rid!r} (number {n} of this method); the recorded "
                "client never answered that many, so replay answered with a JSON-RPC error"
            )
            self.run.issues.append(Issue(UNANSWERABLE_REQUEST, message))
            error = {"code": UNANSWERABLE, "message": f"mcptape replay: no recorded answer to {method} #{n}"}
            data = _json({"jsonrpc": "2.0", "id": rid, "error": error}) + b"\n"
        assert self.harness is not None
        try:
            self.harness.send(data)
        except ServerGone:
            self.gone = True

    def _server_gone(self, why: str) -> None:
        h = self.harness
        assert h is not None
        h.wait_exit(self.shutdown_timeout)
        status = h.session.status
        if status is not None:
            how = f"ended ({_status_text(status)})"
        elif h.eof.is_set():
            how = "closed its stdout but is still running"
        else:
            how = "is still running"
        message = (
            f"the new server {how}: {why}; replay stopped after {self.run.sent} of {self.run.total} chunks"
        )
        self.run.issues.append(Issue(SERVER_EXITED, message))


def _with_id(value: Any, rid: RequestId) -> bytes:
    """The recorded answer with the new request's id (members in their recorded order)."""
    if type(value) is dict:
        value = {k: (rid if k == "id" else v) for k, v in value.items()}
    return _json(value) + b"\n"


def _json(value: Any) -> bytes:
    """`value` as JSON, whatever a server put in it: an id or method `"\\ud800"` (a lone surrogate,
    which orjson refuses) is written back as that escape, a value deeper than orjson goes too."""
    return dumps(value).encode("utf-8", "backslashreplace")  # a lone surrogate: its \\uXXXX escape


def _status_text(status: ExitStatus) -> str:
    return f"signal {status.signal}" if status.signal is not None else f"exit code {status.code}"

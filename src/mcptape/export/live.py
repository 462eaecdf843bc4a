"""Live export while recording (`mcptape record --otlp URL`): each call as a span the moment its
answer is recorded, sent by another process so that a slow or absent collector never delays or
breaks the relay.

`LiveWriter` is the recorder's transcript writer with one thing more: every record it writes to the
transcript (the same bytes) also goes, with one non-blocking `write`, to a pipe read by
`mcptape.export.livechild`, a process of its own (no lock or interpreter shared with the pumps: a
thread doing this work held the GIL long enough to add milliseconds to the relay's 99th
percentile). A full pipe drops the records and counts them. The child frames the `in`/`out`/`exec`
lines and classifies them with the check core (`check.framing`, `check.classify`), pairs requests
with answers, builds the spans as a batch export would (`spans.call_span`, `spans.action_span`:
same names, attributes and ids) and POSTs them (`send.send`, one attempt, a short timeout). Spans
that could not be sent wait in a bounded list and go with the next batch; past its bound the oldest
are dropped and counted. When the recording ends, the child sends the last spans and the root span
(the session) within `FLUSH_WITHIN` seconds and says once on stderr what was dropped. Findings are
check's to make afterwards: `mcptape export` sends them with the spans.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from mcptape.transcript.writer import TranscriptWriter

TICK = 0.05  # seconds between two looks for spans to send
MAX_SPANS = 4096  # spans waiting to be sent
BATCH = 256  # spans in one export request
SEND_TIMEOUT = 2.0
RETRY_AFTER = 5.0  # seconds without sending after a failure
FLUSH_WITHIN = 3.0  # seconds the end may wait for the last spans
PIPE_SIZE = 1 << 20
IN_FLIGHT = 10_000  # requests remembered until their answer
CARRY_LIMIT = 1 << 20  # bytes of a record half-written to a full pipe kept to finish it


class Sender:
    """The child's side: spans to send, what was sent and dropped, the last failure."""

    def __init__(self, endpoint: str) -> None:
        from mcptape.export.send import traces_url

        self.url = traces_url(endpoint)
        self.pending: list[Any] = []
        self.sent = 0
        self.dropped = 0
        self.failure: str | None = None
        self.quiet_until = 0.0

    def tick(self, resource: dict[str, Any], *, deadline: float | None = None) -> None:
        """Send what waits, a batch at a time (after a failure, nothing for RETRY_AFTER seconds)."""
        while self.pending and time.monotonic() >= self.quiet_until:
            timeout = SEND_TIMEOUT if deadline is None else min(SEND_TIMEOUT, deadline - time.monotonic())
            if timeout <= 0 or not self._send(resource, timeout):
                return

    def _send(self, resource: dict[str, Any], timeout: float) -> bool:
        from mcptape.export.otlp import protobuf
        from mcptape.export.send import SendError, send
        from mcptape.export.spans import Trace

        spans = self.pending[:BATCH]
        try:
            send(self.url, protobuf([Trace(resource, spans)]), timeout=timeout, attempts=1)
        except SendError as exc:
            self.failure = exc.reason
            self.quiet_until = time.monotonic() + RETRY_AFTER
            excess = len(self.pending) - MAX_SPANS
            if excess > 0:
                del self.pending[:excess]
                self.dropped += excess
            return False
        except Exception as exc:  # never let the exporter die on a span it cannot encode
            self.failure = str(exc)
            self.dropped += len(spans)
            del self.pending[: len(spans)]
            return False
        del self.pending[: len(spans)]
        self.sent += len(spans)
        return True

    def said(self, lost_records: int = 0) -> str | None:
        """The one line for stderr when anything was lost, else None."""
        lost = self.dropped + len(self.pending)
        if not lost and not lost_records:
            return None
        why = f" ({self.failure})" if self.failure else ""
        records = f", {lost_records} record(s) not analysed" if lost_records else ""
        return f"mcptape: live export to {self.url}: {self.sent} span(s) sent, {lost} dropped{records}{why}"


class _State:
    """What the exporter process knows of the session: framing, the requests in flight (at most
    `IN_FLIGHT`, the oldest forgotten past that), the spans to send."""

    def __init__(self, header: Any, path: Path) -> None:
        from mcptape.check.framing import ChannelFramer
        from mcptape.check.model import Analysis
        from mcptape.export.session import Session
        from mcptape.export.spans import root_ids, service_name

        self.session = Session(path, header, Analysis(), [], [], [], [], [], [], 0.0)
        self.trace_id, self.root_id = root_ids(self.session)
        self.resource: dict[str, Any] = {
            "service.name": service_name(self.session),
            "telemetry.sdk.name": "mcptape",
        }
        self.framers = {ch: ChannelFramer(ch) for ch in ("in", "out", "exec", "http")}
        self.requests: dict[tuple[str, Any], Any] = {}  # (sender channel, id) -> the request Message
        # Answers recorded before their request: the recorder's two pumps write side by side, so a
        # fast answer's `out` record may precede the `in` record of its request (check reorders by
        # time; the exporter pairs them when the request comes). (request's channel, id) -> answer
        self.early: dict[tuple[str, Any], Any] = {}
        self.pending: list[Any] = []
        self.version: str | None = None
        self.exchanges: dict[int, int] = {}  # request event -> its HTTP exchange
        self.http = isinstance(header.extra.get("http"), dict)

    def common(self) -> dict[str, str | int | float | bool]:
        """The attributes every call span has: the transport's."""
        if self.http:
            return {"network.transport": "tcp", "network.protocol.name": "http"}
        return {"network.transport": "pipe"}

    def feed(self, index: int, t: float, ch: str, data: bytes | None, fields: dict[str, Any] | None) -> None:
        """One transcript record (its event index, as the transcript numbers it)."""
        self.session.end = max(self.session.end, t)
        framer = self.framers.get(ch)
        if framer is None or data is None:
            return
        exchange = fields.get("x") if fields else None
        for frame in framer.feed(data, t, index):
            if ch in ("in", "out"):
                self._message(frame, exchange if type(exchange) is int else None)
            else:
                self._action(frame)

    def _message(self, frame: Any, exchange: int | None) -> None:
        from mcptape.check.classify import classify
        from mcptape.check.model import Kind

        message = classify(frame, self.version)
        if message.id is None or message.rule is not None:
            return
        if message.kind is Kind.REQUEST:
            if exchange is not None:
                self.exchanges[message.frame.event] = exchange
            early = self.early.pop((message.channel, message.id), None)
            if early is not None and early.frame.t >= message.frame.t:  # recorded first, sent after
                self._span(message, early)
                return
            self.requests[(message.channel, message.id)] = message
            if len(self.requests) > IN_FLIGHT:
                del self.requests[next(iter(self.requests))]
            return
        if message.kind not in (Kind.RESPONSE, Kind.ERROR_RESPONSE):
            return
        asked = "out" if message.channel == "in" else "in"
        request = self.requests.pop((asked, message.id), None)
        if request is None:
            self.early[(asked, message.id)] = message
            if len(self.early) > IN_FLIGHT:
                del self.early[next(iter(self.early))]
            return
        self._span(request, message)

    def _span(self, request: Any, message: Any) -> None:
        """The span of a request and its answer, queued to be sent."""
        from mcptape.export.session import Call
        from mcptape.export.spans import call_span

        if request.method == "initialize" and type(message.value) is dict:
            result = message.value.get("result")
            if type(result) is dict and type(result.get("protocolVersion")) is str:
                self.version = result["protocolVersion"]
        call = Call(request, message, exchange=self.exchanges.pop(request.frame.event, None))
        common = self.common()
        if self.version:
            common["mcp.protocol.version"] = self.version
        span = call_span(self.session, call, self.trace_id, self.root_id, common)
        self.pending.append(span)

    def _action(self, frame: Any) -> None:
        import orjson

        from mcptape.check.attribution import named_request_id
        from mcptape.check.model import ExecCall
        from mcptape.export.spans import action_span, span_id

        try:
            value = orjson.loads(frame.body)
        except orjson.JSONDecodeError:
            value = None
        named = named_request_id(value)
        request = self.requests.get(("in", named)) if named is not None else None
        parent = self.root_id
        if request is not None:
            parent = span_id(self.trace_id, "call", request.frame.event)
        call = ExecCall(frame, value if type(value) is dict else None, named, named)
        self.pending.append(action_span(self.session, call, self.trace_id, parent, {}))

    def finish(self) -> None:
        """The requests never answered (ending with the session, `unanswered`), then the root span
        (the session), once its end is known."""
        from mcptape.export.session import Call
        from mcptape.export.spans import KIND_INTERNAL, Span, call_span, service_name

        session = self.session
        common = self.common()
        for request in self.requests.values():
            self.pending.append(call_span(session, Call(request), self.trace_id, self.root_id, common))
        self.requests.clear()
        self.pending.append(
            Span(
                self.trace_id,
                self.root_id,
                None,
                f"mcp session {service_name(session)}",
                KIND_INTERNAL,
                session.wall_ns(0.0),
                session.wall_ns(session.end),
                {**self.common(), "mcptape.transcript": session.path.name, "mcptape.live": True},
            )
        )


class LiveWriter(TranscriptWriter):
    """The transcript writer; each record it writes also goes to the live exporter's pipe."""

    def __init__(self, fd: int, *, clock_start: float, endpoint: str, transcript: str) -> None:
        super().__init__(fd, clock_start=clock_start)
        import subprocess

        self.child = subprocess.Popen(
            [sys.executable, "-m", "mcptape.export.livechild", endpoint, transcript],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            close_fds=True,
        )
        assert self.child.stdin is not None
        self.pipe = self.child.stdin.fileno()
        os.set_blocking(self.pipe, False)
        try:
            import fcntl

            fcntl.fcntl(self.pipe, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
        except (OSError, ImportError):
            pass  # the default pipe size: more records may be dropped under a flood
        self.carry = b""  # the rest of a record a full pipe took only in part
        self.dropped = 0  # records the pipe had no room for

    def write_raw(self, records: bytes) -> None:
        super().write_raw(records)
        with self._lock:
            if self.pipe < 0:
                return
            try:
                if self.carry:
                    written = os.write(self.pipe, self.carry)
                    self.carry = self.carry[written:]
                    if self.carry:
                        raise BlockingIOError
                written = os.write(self.pipe, records)
                if written < len(records):
                    self.carry = records[written:]
            except BlockingIOError:
                if len(self.carry) + len(records) > CARRY_LIMIT:
                    self.dropped += records.count(b"\n")
                else:
                    self.carry += records
            except OSError:  # the exporter is gone: the recording goes on
                self.pipe = -1

    def close(self) -> None:
        """Close the transcript, then end the export: the child sends what is left (bounded) and
        says once on stderr what was dropped."""
        super().close()
        import subprocess

        with self._lock:
            if self.pipe >= 0 and self.dropped:
                line = f'{{"t":0,"ch":"mcptape-live-dropped","n":{self.dropped}}}\n'.encode()
                self.carry += line
            if self.pipe >= 0 and self.carry:
                os.set_blocking(self.pipe, True)
                try:
                    os.write(self.pipe, self.carry)
                except OSError:
                    pass
            self.pipe = -1
        assert self.child.stdin is not None
        try:
            self.child.stdin.close()
        except OSError:
            pass
        try:
            self.child.wait(FLUSH_WITHIN + 2)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()

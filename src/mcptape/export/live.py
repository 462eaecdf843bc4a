"""Live export while recording (`mcptape record --otlp URL`): each call as a span the moment its
answer is recorded, sent in the background so that a slow or absent collector never delays or
breaks the relay.

`LiveWriter` is the recorder's transcript writer with one thing more: after writing a record, it
hands a copy to `LiveExport`'s bounded queue (a deque append; a full queue drops the record and
counts it). A daemon thread takes the queue every `TICK` seconds, frames the `in`/`out`/`exec`
lines and classifies them with the check core (`check.framing`, `check.classify`), pairs requests
with answers (`check.pairing`), builds the spans as a batch export would (`spans.call_span`,
`spans.action_span`: same names, attributes and ids) and POSTs them (`send.send`, one attempt,
a short timeout). Spans that could not be sent wait in a bounded list and go with the next batch;
past its bound the oldest are dropped and counted. At the end the root span (the session) goes,
within `FLUSH_WITHIN` seconds, and `close()` returns the one line to say on stderr when anything
was dropped. Findings are check's to make afterwards: `mcptape export` sends them with the spans.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from mcptape.transcript.writer import TranscriptWriter

TICK = 0.05  # seconds between two looks at the queue
MAX_RECORDS = 50_000  # records waiting for the exporter thread
MAX_SPANS = 4096  # spans waiting to be sent
SEND_TIMEOUT = 2.0
RETRY_AFTER = 5.0  # seconds without sending after a failure
FLUSH_WITHIN = 3.0  # seconds the end may wait for the last spans


class LiveExport:
    """The background exporter of one recording."""

    def __init__(self, endpoint: str, transcript: str) -> None:
        from mcptape.export.send import traces_url

        self.url = traces_url(endpoint)
        self.transcript = transcript
        self.queue: deque[tuple[float, str, bytes | None, dict[str, Any] | None]] = deque()
        self.dropped_records = 0
        self.dropped_spans = 0
        self.sent = 0
        self.failure: str | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="mcptape-otlp", daemon=True)
        self._state: _State | None = None
        self._header: Any = None

    def start(self, header: Any) -> None:
        self._header = header
        self._thread.start()

    def offer(self, t: float, ch: str, data: bytes | None, fields: dict[str, Any] | None) -> None:
        """Queue one record (never blocks; a full queue drops it)."""
        if len(self.queue) >= MAX_RECORDS:
            self.dropped_records += 1
            return
        self.queue.append((t, ch, data, fields))

    def close(self) -> str | None:
        """Send what is left (bounded), stop; the line for stderr when anything was lost."""
        self._closed = True
        if self._thread.is_alive():
            self._thread.join(FLUSH_WITHIN)
            if self._thread.is_alive() and self.failure is None:
                self.failure = f"no answer within {FLUSH_WITHIN:g} s at the end"
        lost = self.dropped_spans + (len(self._state.pending) if self._state is not None else 0)
        if not lost and not self.dropped_records:
            return None
        why = f" ({self.failure})" if self.failure else ""
        records = f", {self.dropped_records} record(s) not analysed" if self.dropped_records else ""
        return f"mcptape: live export to {self.url}: {self.sent} span(s) sent, {lost} dropped{records}{why}"

    # -- the exporter thread --------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._state = _State(self._header, Path(self.transcript))
        except Exception as exc:  # the export must never break the recording
            self.failure = f"cannot start: {exc}"
            return
        state = self._state
        quiet_until = 0.0
        while True:
            closing = self._closed
            while self.queue:
                state.feed(*self.queue.popleft())
            if closing:
                state.finish()
            now = time.monotonic()
            # after a failure, nothing is sent for a while, not even at the end
            if state.pending and now >= quiet_until and not self._send(state, SEND_TIMEOUT):
                quiet_until = now + RETRY_AFTER
            if closing:
                return
            time.sleep(TICK)

    def _send(self, state: _State, timeout: float) -> bool:
        from mcptape.export.otlp import protobuf
        from mcptape.export.send import SendError, send
        from mcptape.export.spans import Trace

        spans = state.pending[:]
        try:
            send(self.url, protobuf([Trace(state.resource, spans)]), timeout=timeout, attempts=1)
        except SendError as exc:
            self.failure = exc.reason
            excess = len(state.pending) - MAX_SPANS
            if excess > 0:
                del state.pending[:excess]
                self.dropped_spans += excess
            return False
        except Exception as exc:  # never let the exporter break the recording
            self.failure = str(exc)
            self.dropped_spans += len(spans)
            del state.pending[: len(spans)]
            return False
        del state.pending[: len(spans)]
        self.sent += len(spans)
        return True


class _State:
    """What the exporter thread knows of the session: framing, pairing, the spans to send."""

    def __init__(self, header: Any, path: Path) -> None:
        from mcptape.check.framing import ChannelFramer
        from mcptape.check.model import Analysis
        from mcptape.check.pairing import Pairing
        from mcptape.export.session import Session
        from mcptape.export.spans import root_ids, service_name

        self.session = Session(path, header, Analysis(), [], [], [], [], [], [], 0.0)
        self.trace_id, self.root_id = root_ids(self.session)
        self.resource: dict[str, Any] = {
            "service.name": service_name(self.session),
            "telemetry.sdk.name": "mcptape",
        }
        self.framers = {ch: ChannelFramer(ch) for ch in ("in", "out", "exec", "http")}
        self.client = Pairing()
        self.server = Pairing()
        self.requests: dict[tuple[str, Any], Any] = {}  # (sender channel, id) -> the request Message
        self.pending: list[Any] = []
        self.index = 0
        self.version: str | None = None
        self.last_request: Any = None

    def feed(self, t: float, ch: str, data: bytes | None, fields: dict[str, Any] | None) -> None:
        """One record as the writer got it: a read is written as one record per line (or
        fragment), so each piece gets the event index it has in the transcript."""
        self.session.end = max(self.session.end, t)
        if data is None:
            self.index += 1
            return
        framer = self.framers.get(ch)
        start = 0
        while start < len(data):
            end = data.find(b"\n", start) + 1 or len(data)
            index = self.index
            self.index += 1
            if framer is not None:
                for frame in framer.feed(data[start:end], t, index):
                    if ch in ("in", "out"):
                        self._message(frame)
                    else:
                        self._action(frame)
            start = end

    def _message(self, frame: Any) -> None:
        from mcptape.check.classify import classify
        from mcptape.check.model import Kind
        from mcptape.export.session import Call
        from mcptape.export.spans import call_span

        message = classify(frame, self.version)
        if message.id is None or message.rule is not None:
            return
        if message.kind is Kind.REQUEST:
            self.requests[(message.channel, message.id)] = message
            if message.channel == "in":
                self.last_request = message
            return
        if message.kind not in (Kind.RESPONSE, Kind.ERROR_RESPONSE):
            return
        asked = "out" if message.channel == "in" else "in"
        request = self.requests.pop((asked, message.id), None)
        if request is None:
            return
        if request.method == "initialize" and type(message.value) is dict:
            result = message.value.get("result")
            if type(result) is dict and type(result.get("protocolVersion")) is str:
                self.version = result["protocolVersion"]
        call = Call(request, message)
        common: dict[str, str | int | float | bool] = {"network.transport": "pipe"}
        if self.version:
            common["mcp.protocol.version"] = self.version
        span = call_span(self.session, call, self.trace_id, self.root_id, common)
        self.pending.append(span)

    def _action(self, frame: Any) -> None:
        import orjson

        from mcptape.check.attribution import named_request_id
        from mcptape.check.model import ExecCall
        from mcptape.export.spans import _id, action_span

        try:
            value = orjson.loads(frame.body)
        except orjson.JSONDecodeError:
            value = None
        named = named_request_id(value)
        request = self.requests.get(("in", named)) if named is not None else None
        parent = self.root_id
        if request is not None:
            parent = _id(self.trace_id.hex(), "call", request.frame.event, size=8)
        call = ExecCall(frame, value if type(value) is dict else None, named, named)
        self.pending.append(action_span(self.session, call, self.trace_id, parent, {}))

    def finish(self) -> None:
        """The requests never answered (ending with the session, `unanswered`), then the root span
        (the session), once its end is known."""
        from mcptape.export.session import Call
        from mcptape.export.spans import KIND_INTERNAL, Span, call_span, service_name

        session = self.session
        common: dict[str, str | int | float | bool] = {"network.transport": "pipe"}
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
                {"network.transport": "pipe", "mcptape.transcript": session.path.name, "mcptape.live": True},
            )
        )


class LiveWriter(TranscriptWriter):
    """The transcript writer, and each record also handed to the live exporter (after it is written)."""

    def __init__(self, fd: int, *, clock_start: float, live: LiveExport) -> None:
        super().__init__(fd, clock_start=clock_start)
        self.live = live

    def header(self, header: Any) -> None:
        super().header(header)
        self.live.start(header)

    def chunk(self, t: float, ch: str, data: bytes | bytearray) -> None:
        super().chunk(t, ch, data)
        self.live.offer(t, ch, bytes(data), None)

    def fields(self, t: float, ch: str, **fields: Any) -> None:
        super().fields(t, ch, **fields)
        self.live.offer(t, ch, None, fields)

    def close(self) -> None:
        """Close the transcript, then end the export (bounded) and say once what was lost."""
        super().close()
        said = self.live.close()
        if said is not None:
            import sys

            try:
                sys.stderr.write(said + "\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass

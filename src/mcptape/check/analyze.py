"""The streaming analysis: events -> time order -> frames -> messages -> pairing, attribution, findings.

Memory does not depend on the transcript's length: a bounded reorder buffer, the framing state of
each channel, the requests in flight, a bounded memory of recently closed ids, the tool schemas of
the session, the first findings (up to `max_findings`, the rest counted) and the first bytes of
stderr. Good lines take a fast path (one parse, no Frame or Message built unless a callback wants
them); anything unusual goes through `classify`, the one classifier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from typing import Any

import orjson

from mcptape.check import rules
from mcptape.check.attribution import Attributor, request_ref
from mcptape.check.classify import classify, shape
from mcptape.check.framing import ChannelFramer
from mcptape.check.model import (
    ERR,
    EXECUTOR_CHANNELS,
    IN,
    OUT,
    Analysis,
    ExecCall,
    Finding,
    FirstNonProtocol,
    Frame,
    Kind,
    Message,
    Ref,
)
from mcptape.check.pairing import Pairing, Pending, RequestId, bucket
from mcptape.check.protocol import LONG_LIVED_REQUESTS, VersionTracker
from mcptape.check.schema import violation
from mcptape.transcript.events import BYTE_CHANNELS, EOF_, EXIT, Event, Header

FLUSH = 16384  # events buffered before the oldest are processed
KEEP = 4096  # events kept back, at least, for records of other channels written late
WINDOW = 0.5  # seconds: events older than the newest by this much are processed anyway
STDERR_HEAD = 64 * 1024

Payload = str | bytes | dict[str, Any]
Record = tuple[float, str, Payload, int]
_by_time = itemgetter(0)
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
_REQUEST, _NOTIFICATION, _ERROR = Kind.REQUEST, Kind.NOTIFICATION, Kind.ERROR_RESPONSE


def _bytes(raw: str | bytes) -> bytes:
    return raw.encode() if isinstance(raw, str) else raw


class Analyzer:
    """Feed events (`feed`, or `push` for raw records), then `finish()` for the `Analysis`."""

    def __init__(
        self,
        *,
        on_message: Callable[[Message], None] | None = None,
        on_exec: Callable[[ExecCall], None] | None = None,
        on_finding: Callable[[Finding], None] | None = None,
        on_pair: Callable[[int, int, float], None] | None = None,
        max_findings: int = 10_000,
    ) -> None:
        self.result = Analysis()
        self.on_message = on_message
        self.on_exec = on_exec
        self.on_finding = on_finding
        self.on_pair = on_pair  # (request event index, response event index, latency in seconds)
        self.max_findings = max_findings
        self.tracker = VersionTracker()
        self.framers = {ch: ChannelFramer(ch) for ch in BYTE_CHANNELS}
        self.client = Pairing()  # requests the client sent on `in`, answered on `out`
        self.server = Pairing()  # requests the server sent on `out`, answered on `in`
        self.attribution = Attributor(self._emit)
        self.schemas: dict[str, Any] = {}
        self.schema_rejected: dict[RequestId, str] = {}
        self._prev: dict[str, tuple[str | bytes, float, tuple[int, ...]] | None] = {IN: None, OUT: None}
        self._first = self.result.first_non_protocol
        self._buf: list[Record] = []
        self._last_t: dict[str, float] = {}

    @property
    def version(self) -> str | None:
        """The protocol version in force at the point the analysis has reached."""
        return self.tracker.version

    # -- input -----------------------------------------------------------------------------
    def feed(self, event: Event) -> None:
        """Add one transcript event (in file order)."""
        payload: Payload
        if event.text is not None:
            payload = event.text
        elif event.raw is not None:
            payload = event.raw
        else:
            payload = event.fields or {}
        self.push(event.t, event.ch, payload, event.index)

    def push(self, t: float, ch: str, payload: Payload, index: int) -> None:
        """Add one record: `payload` is the text or bytes of a byte channel, else its fields."""
        last = self._last_t.get(ch)
        if last is not None and t < last:
            t = last  # a channel's own order is exact; never let a clock glitch reorder it
        else:
            self._last_t[ch] = t
        buf = self._buf
        buf.append((t, ch, payload, index))
        if len(buf) >= FLUSH:
            self._drain(final=False)

    def _drain(self, *, final: bool) -> None:
        buf = self._buf
        buf.sort(key=_by_time)
        if final:
            cut = len(buf)
        else:
            horizon = buf[-1][0] - WINDOW
            cut = len(buf) - KEEP
            while cut < len(buf) and buf[cut][0] <= horizon:
                cut += 1
        process = self._process
        for t, ch, payload, index in buf[:cut]:
            process(t, ch, payload, index)
        del buf[:cut]

    def finish(self) -> Analysis:
        """Process what is buffered, close the streams, report what stayed unanswered."""
        self._drain(final=True)
        for framer in self.framers.values():
            last = framer.close()
            if last is not None:
                self._dispatch(last)
        result = self.result
        for rid, pending in self.client.pending.items():
            self._unanswered(IN, rid, pending)
        for rid, pending in self.server.pending.items():
            self._unanswered(OUT, rid, pending)
        result.findings.sort(key=lambda f: f.t if f.t is not None else 0.0)
        result.protocol_version = self.tracker.version
        result.stateless = self.tracker.stateless
        result.exec_calls = self.attribution.calls
        return result

    # -- per record ------------------------------------------------------------------------
    def _process(self, t: float, ch: str, payload: Payload, index: int) -> None:
        if ch in (IN, OUT):
            framer = self.framers[ch]
            if (
                type(payload) is str
                and not framer.parts
                and payload.find("\n") == len(payload) - 1
                and len(payload) > 1
            ):
                framer.line += 1
                offset = framer.offset
                framer.offset += len(payload) if payload.isascii() else len(payload.encode())
                self._line(ch, framer.line, offset, payload, t, index)
                return
        if type(payload) is dict:
            if ch == EOF_:
                of = payload.get("of")
                framer_of = self.framers.get(of) if type(of) is str else None
                last = framer_of.close() if framer_of is not None else None
                if last is not None:
                    self._dispatch(last)
            elif ch == EXIT:
                code, signal = payload.get("code"), payload.get("signal")
                self.result.exited = True
                self.result.exit_code = code if type(code) is int else None
                self.result.exit_signal = signal if type(signal) is int else None
            return
        channel = self.framers.get(ch)
        if channel is None or isinstance(payload, dict):
            return
        data = payload.encode() if isinstance(payload, str) else payload
        if ch == ERR:
            self._stderr(data, index)
        for frame in channel.feed(data, t, index):
            self._dispatch(frame)

    def _dispatch(self, frame: Frame) -> None:
        ch = frame.channel
        if ch in (IN, OUT):
            self._frame(frame)
        elif ch in EXECUTOR_CHANNELS:
            self._exec(frame)

    def _stderr(self, data: bytes, index: int) -> None:
        err = self.result.stderr
        if err.first_event < 0:
            err.first_event = index
        err.size += len(data)
        err.lines += data.count(b"\n")
        room = STDERR_HEAD - len(err.head)
        if room > 0:
            err.head += data[:room]
        if len(data) > room:
            err.truncated = True

    # -- protocol lines --------------------------------------------------------------------
    def _line(self, ch: str, line: int, offset: int, text: str, t: float, index: int) -> None:
        """The fast path: one complete line given as text."""
        try:
            value = _loads(text)
        except _JSONDecodeError:
            value = None
        if type(value) is dict and "\r" not in text:
            kind, method, rid, problem = shape(value, ch, self.tracker.version)
            if problem is None:
                if self.on_message is not None:
                    frame = Frame(ch, line, offset, text.encode(), t, True, (index,))
                    self.on_message(Message(frame, kind, method, rid, value))
                self._accept(ch, kind, method, rid, value, line, offset, text, t, index)
                if self._first[ch] is None:
                    self._prev[ch] = (text, t, (index,))
                return
        self._frame(Frame(ch, line, offset, text.encode(), t, True, (index,)))

    def _frame(self, frame: Frame) -> None:
        """The general path: classify a frame of `in`/`out` with the one classifier."""
        msg = classify(frame, self.tracker.version)
        if self.on_message is not None:
            self.on_message(msg)
        ch = frame.channel
        if msg.rule is not None:
            self._reject(msg)
        if msg.kind is Kind.BATCH:
            for item in msg.items:
                self._accept_message(item)
        elif msg.rule is None or msg.kind is Kind.INVALID:
            self._accept_message(msg)
        if msg.rule is None and self._first[ch] is None:
            self._prev[ch] = (frame.raw, frame.t, frame.events)

    def _accept_message(self, msg: Message) -> None:
        frame = msg.frame
        value = msg.value
        if msg.rule is None:
            self._accept(
                frame.channel,
                msg.kind,
                msg.method,
                msg.id,
                value,
                frame.line,
                frame.offset,
                frame.raw,
                frame.t,
                frame.event,
            )
        elif msg.id is not None and type(value) is dict:
            # A rejected line that still names a request or an answer: pair it, judge nothing more.
            pairing = self.client if frame.channel == IN else self.server
            answers = self.server if frame.channel == IN else self.client
            if msg.method is not None:
                pending = (frame.t, frame.line, frame.offset, frame.raw, frame.event, msg.method, False)
                pairing.open(msg.id, pending)
            elif "result" in value or "error" in value:
                answers.close(msg.id)

    def _reject(self, msg: Message) -> None:
        frame = msg.frame
        rule = msg.rule
        assert rule is not None
        problem = msg.problem or rule
        ch = frame.channel
        body = frame.body
        self._emit(
            Finding(
                rule,
                rules.severity(rule),
                ch,
                frame.line,
                frame.offset,
                body,
                f"{ch} line {frame.line}: {problem}",
                msg.id,
                frame.t,
                frame.event,
            )
        )
        if self._first[ch] is None:
            prev = self._prev[ch]
            previous = None
            if prev is not None:
                raw = _bytes(prev[0])
                previous = Frame(ch, frame.line - 1, frame.offset - len(raw), raw, prev[1], True, prev[2])
            self._first[ch] = FirstNonProtocol(frame, problem, previous)
        if ch == IN:
            ref = Ref("rejected-input", IN, frame.line, frame.offset, body, frame.event)
            self.attribution.frame_rejected(frame.t, ref, problem)

    def _accept(
        self,
        ch: str,
        kind: Kind,
        method: str | None,
        rid: RequestId | None,
        value: dict[str, Any],
        line: int,
        offset: int,
        raw: str | bytes,
        t: float,
        index: int,
    ) -> None:
        """A good message: count it, learn the version and schemas, pair it."""
        result = self.result
        result.messages[ch] += 1
        if kind is _REQUEST:
            assert rid is not None and method is not None
            pending: Pending = (t, line, offset, raw, index, method, True)
            if ch == IN:
                result.requests += 1
                params = value.get("params")
                if method == "initialize" or (params is not None and "_meta" in params):
                    self.tracker.request(method, rid, params)
                previous = self.client.open(rid, pending)
                if method == "tools/call" and self.schemas:
                    self._check_arguments(rid, params, pending)
            else:
                previous = self.server.open(rid, pending)
            if previous is not None:
                self._duplicate(ch, rid, pending, previous)
        elif kind is _NOTIFICATION:
            if method == "notifications/cancelled":
                params = value.get("params")
                if type(params) is dict:
                    (self.client if ch == IN else self.server).cancel(params.get("requestId"))
        elif ch == OUT:
            self._answer(kind, rid, value, line, offset, raw, t, index)
        elif rid is not None:
            pending_or_none, why = self.server.close(rid)
            if pending_or_none is not None:
                self._latency(t - pending_or_none[0])
                if self.on_pair is not None:
                    self.on_pair(pending_or_none[4], index, t - pending_or_none[0])
            elif why is not None:
                self._unknown(ch, rid, line, offset, raw, t, index, why)

    def _answer(
        self,
        kind: Kind,
        rid: RequestId | None,
        value: dict[str, Any],
        line: int,
        offset: int,
        raw: str | bytes,
        t: float,
        index: int,
    ) -> None:
        """A server response to a client request: latency, rejects, what it teaches."""
        if rid is None:
            return  # an error answering a line whose id could not be read
        pending, why = self.client.close(rid)
        if pending is None:
            if why is not None:
                self._unknown(OUT, rid, line, offset, raw, t, index, why)
            return
        self._latency(t - pending[0])
        if self.on_pair is not None:
            self.on_pair(pending[4], index, t - pending[0])
        method = pending[5]
        reason: str | None = None
        if kind is _ERROR:
            error = value["error"]
            reason = f"error {error['code']}: {error['message']}"
        else:
            result = value["result"]
            if method == "tools/call":
                if result.get("isError") is True:
                    reason = "the tools/call result has isError: true"
            elif method == "tools/list":
                self._learn_tools(result)
            elif method == "initialize":
                self.tracker.response(rid, result)
        if self.schema_rejected:
            outside = self.schema_rejected.pop(rid, None)
            if outside is not None and reason is None:
                reason = outside
        response = None
        if reason is not None:
            self.result.rejects += 1
            role = "error-response" if kind is _ERROR else "response"
            response = Ref(role, OUT, line, offset, _bytes(raw).rstrip(b"\n"), index)
        self.attribution.answered(rid, t, pending, reason, response)

    def _latency(self, seconds: float) -> None:
        lat = self.result.latency
        lat.count += 1
        lat.total += seconds
        if seconds > lat.max:
            lat.max = seconds
        lat.buckets[bucket(seconds)] += 1

    def _learn_tools(self, result: dict[str, Any]) -> None:
        tools = result.get("tools")
        if type(tools) is not list:
            return
        for tool in tools:
            if type(tool) is dict and type(tool.get("name")) is str:
                schema = tool.get("inputSchema")
                if type(schema) is dict:
                    self.schemas[tool["name"]] = schema
                else:
                    self.schemas.pop(tool["name"], None)

    def _check_arguments(self, rid: RequestId, params: Any, pending: Pending) -> None:
        schema = self.schemas.get(params.get("name"))
        if schema is None:
            return
        arguments = params.get("arguments", {})
        problem = violation(arguments, schema)
        if problem is None:
            return
        name = params["name"]
        self.schema_rejected[rid] = f"arguments outside the inputSchema of {name}: {problem}"
        ref = request_ref(pending)
        self._emit(
            Finding(
                rules.SCHEMA_VIOLATION,
                rules.severity(rules.SCHEMA_VIOLATION),
                IN,
                ref.line,
                ref.offset,
                ref.raw,
                f"tools/call {name} (request {rid!r}): {problem}, against the inputSchema the "
                "server declared in tools/list",
                rid,
                pending[0],
                ref.event,
            )
        )

    # -- findings --------------------------------------------------------------------------
    def _duplicate(self, ch: str, rid: RequestId, pending: Pending, previous: Pending) -> None:
        body = _bytes(pending[3]).rstrip(b"\n")
        self._emit(
            Finding(
                rules.DUPLICATE_ID,
                rules.severity(rules.DUPLICATE_ID),
                ch,
                pending[1],
                pending[2],
                body,
                f"request id {rid!r} ({pending[5]}) is already in flight: {ch} line {previous[1]} "
                f"({previous[5]}) has not been answered",
                rid,
                pending[0],
                pending[4],
                (request_ref(previous),) if ch == IN else (),
            )
        )

    def _unknown(
        self,
        ch: str,
        rid: RequestId,
        line: int,
        offset: int,
        raw: str | bytes,
        t: float,
        index: int,
        why: str,
    ) -> None:
        self._emit(
            Finding(
                rules.UNKNOWN_RESPONSE_ID,
                rules.severity(rules.UNKNOWN_RESPONSE_ID),
                ch,
                line,
                offset,
                _bytes(raw).rstrip(b"\n"),
                f"response to id {rid!r}: {why}",
                rid,
                t,
                index,
            )
        )

    def _unanswered(self, ch: str, rid: RequestId, pending: Pending) -> None:
        if not pending[6] or pending[5] in LONG_LIVED_REQUESTS:
            return
        other = OUT if ch == IN else IN
        self._emit(
            Finding(
                rules.UNANSWERED_REQUEST,
                rules.severity(rules.UNANSWERED_REQUEST),
                ch,
                pending[1],
                pending[2],
                _bytes(pending[3]).rstrip(b"\n"),
                f"request {rid!r} ({pending[5]}) never got a response on {other}",
                rid,
                pending[0],
                pending[4],
            )
        )

    def _emit(self, finding: Finding) -> None:
        if self.on_finding is not None:
            self.on_finding(finding)
        if len(self.result.findings) < self.max_findings:
            self.result.findings.append(finding)
        else:
            self.result.findings_truncated += 1

    # -- executor lines --------------------------------------------------------------------
    def _exec(self, frame: Frame) -> None:
        try:
            value = _loads(frame.body)
        except _JSONDecodeError:
            value = None
        call = self.attribution.executor(frame, value, self.client.pending)
        if self.on_exec is not None:
            self.on_exec(call)


def ordered(events: Iterable[Event], window: int = KEEP) -> Iterator[Event]:
    """Events in time order across channels (file order within a channel), with a bounded buffer."""
    buf: list[tuple[float, int, Event]] = []
    last_t: dict[str, float] = {}
    for seq, event in enumerate(events):
        t = max(event.t, last_t.get(event.ch, event.t))
        last_t[event.ch] = t
        buf.append((t, seq, event))
        if len(buf) >= 2 * window:
            buf.sort(key=_by_time)
            for item in buf[:window]:
                yield item[2]
            del buf[:window]
    buf.sort(key=_by_time)
    for item in buf:
        yield item[2]


def analyze(
    events: Iterable[Event],
    *,
    on_message: Callable[[Message], None] | None = None,
    on_exec: Callable[[ExecCall], None] | None = None,
    on_finding: Callable[[Finding], None] | None = None,
) -> Analysis:
    """Analyse a whole stream of transcript events (see `Analyzer` for the incremental form)."""
    analyzer = Analyzer(on_message=on_message, on_exec=on_exec, on_finding=on_finding)
    for event in events:
        analyzer.feed(event)
    return analyzer.finish()


def messages(events: Iterable[Event]) -> Iterator[Message]:
    """Every `in`/`out` line as a classified Message, in time order (what replay's diff compares)."""
    out: list[Message] = []
    analyzer = Analyzer(on_message=out.append)
    for event in events:
        analyzer.feed(event)
        if out:
            yield from out
            out.clear()
    analyzer.finish()
    yield from out


def analyze_file(
    path: str,
    *,
    on_message: Callable[[Message], None] | None = None,
    on_exec: Callable[[ExecCall], None] | None = None,
    on_finding: Callable[[Finding], None] | None = None,
) -> tuple[Header, Analysis]:
    """Read and analyse a transcript file; raises TranscriptError when it cannot be read."""
    from mcptape.check.source import read_records
    from mcptape.transcript import open_transcript

    transcript = open_transcript(path)
    analyzer = Analyzer(on_message=on_message, on_exec=on_exec, on_finding=on_finding)
    read_records(transcript, analyzer.push)
    analysis = analyzer.finish()
    for problem in transcript.problems:
        analysis.notes.append(f"transcript line {problem.line} (byte {problem.offset}): {problem.reason}")
    return transcript.header, analysis

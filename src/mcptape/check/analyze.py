"""The streaming analysis: events -> time order -> frames -> messages -> session -> findings.

Memory does not depend on the transcript's length: a bounded reorder buffer (reorder.py), the framing state of
each channel, the requests in flight, a bounded memory of recently closed ids, the tool schemas of
the session, the first findings (up to `max_findings`, the rest counted) and the first bytes of
stderr. A whole good line takes a fast path (one parse, no Frame or Message built unless a callback
wants them); anything else goes through `classify`, the one classifier.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Unpack

import orjson

from mcptape.check.capture import capture_finding
from mcptape.check.classify import shape
from mcptape.check.framing import ChannelFramer
from mcptape.check.http.transport import HTTP_CHANNELS, HTTP_END, HttpTransport
from mcptape.check.model import (
    ERR,
    EXECUTOR_CHANNELS,
    IN,
    OUT,
    Analysis,
    At,
    Callbacks,
    Frame,
    Kind,
    Message,
    RequestId,
)
from mcptape.check.pairing import Pending
from mcptape.check.reorder import BATCH, FLUSH, FLUSH_BYTES, KEEP_UNDER_PRESSURE, Reorder, ordered
from mcptape.check.session import Session
from mcptape.transcript.events import BYTE_CHANNELS, EOF_, EXIT, NOTE, Event, Header
from mcptape.transcript.reader import (
    Payload,
    Problem,
    Record,
    Transcript,
    open_transcript,
)

STDERR_HEAD = 64 * 1024
# Re-exported: the reorder buffer's bounds (reorder.py), and `ordered` (the public API names it here).
__all__ = [
    "BATCH",
    "FLUSH",
    "KEEP_UNDER_PRESSURE",
    "Analyzer",
    "analyze",
    "analyze_file",
    "messages",
    "ordered",
    "reading_notes",
]

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
_REQUEST, _RESPONSE = Kind.REQUEST, Kind.RESPONSE
_new = tuple.__new__  # builds a NamedTuple at half its own constructor's cost


def _message(
    record: Record, line: int, offset: int, kind: Kind, method: str | None, rid: RequestId | None, value: Any
) -> Message:
    """The Message of a good line of the hot loop, for a callback that hears messages."""
    t, ch, text, index = record
    return Message(Frame(ch, line, offset, text.encode(), t, True, (index,)), kind, method, rid, value)  # type: ignore[union-attr]


class Analyzer:
    """Feed a session's records in file order, then `finish()` for its `Analysis`.

    Input, one record at a time or in batches (in file order; the analyzer puts them in time
    order through a bounded reorder buffer): `feed(event)`, `push(t, ch, payload, index)`, or
    `feed_records(records, size)` with the batches `Transcript.batches` reads.

    Callbacks: `on_message(Message)` for every `in`/`out` line, `on_exec(ExecCall)` for every
    executor line, `on_finding(Finding)`, `on_pair(request event, response event, latency)`,
    `on_reject(response event, why)` for each answer that rejects a client request (a JSON-RPC
    error, a `tools/call` result with `isError: true`, arguments outside the declared schema).
    `watch`: a `Watch` (model.py) that hears only the messages it names, at no cost to the others.

    `snapshot()` gives the analysis so far without ending this one (`view --follow`).
    """

    def __init__(
        self,
        *,
        max_findings: int = 10_000,
        policy: str = "session",
        flush_bytes: int = FLUSH_BYTES,
        **callbacks: Unpack[Callbacks],
    ) -> None:
        self.session = Session(callbacks, max_findings=max_findings, policy=policy)
        self.framers = {ch: ChannelFramer(ch) for ch in BYTE_CHANNELS}
        self.reorder = Reorder(flush_bytes)  # records in file order in, in time order out
        self._torn: Problem | None = None  # the transcript's last line, cut short (see `torn`)
        s = self.session  # an HTTP transcript's transport rules: cancels by close, tools for Mcp-Param-*
        self.transport = HttpTransport(s.emit, self._settle, s.tools.schemas.get)
        # the exchange of each `in`/`out` record of an HTTP transcript not yet analysed, by its
        # index: its session's pairing pairs it (check/http/sessionkeys.py); empty for stdio
        self.exchanges: dict[int, int] = {}
        s.explained = self.transport.explains  # a non-JSON body is http-body-not-json alone

    @property
    def version(self) -> str | None:
        """The protocol version in force at the point the analysis has reached."""
        return self.session.version

    @property
    def held(self) -> int:
        """Bytes of the byte records waiting in the reorder buffer (for tests and diagnostics)."""
        return self.reorder.held

    @property
    def flush_bytes(self) -> int:
        """The reorder buffer's bound in bytes (what `Transcript.batches` should read at most)."""
        return self.reorder.flush_bytes

    # -- input -----------------------------------------------------------------------------
    def feed(self, event: Event) -> None:
        """Add one transcript event (in file order)."""
        self.push(event.t, event.ch, event.payload, event.index, event.stream)

    def push(self, t: float, ch: str, payload: Payload, index: int, stream: str | int | None = None) -> None:
        """Add one record: `payload` is the text or bytes of a byte channel, else its fields;
        `stream` what its order is exact within (`Event.stream`; its channel when None)."""
        if type(stream) is int and ch in (IN, OUT):
            self.exchanges[index] = stream
        if self.reorder.push(t, ch, payload, index, stream):
            self._run(self.reorder.take())

    def feed_records(self, records: list[Record], size: int) -> None:
        """Add records in file order, `size` the bytes their byte records carry, each channel's
        times already non-decreasing: what `Transcript.batches` gives (feed a file through one
        form, `feed`/`push` or this, not both)."""
        if self.reorder.extend(records, size):
            self._run(self.reorder.take())

    def torn(self, problem: Problem) -> None:
        """The transcript's last line was cut short (the reader's `Problem`): `finish` says the
        capture is incomplete."""
        self._torn = problem

    def finish(self) -> Analysis:
        """Process what is buffered, close the streams, report what stayed unanswered, and whether
        the capture is complete (an `exit` record, no torn last line)."""
        self._run(self.reorder.take(final=True))
        for framer in self.framers.values():
            last = framer.close()
            if last is not None:
                self._dispatch(last)
        self.session.result.notes.extend(self.transport.finish())
        self._capture()
        return self.session.close()

    def _capture(self) -> None:
        """`incomplete-capture` (check/capture.py), kept even past the bound on findings."""
        found = capture_finding(
            self.session.result.exited or self.transport.ended, self._torn, self.reorder.last
        )
        if found is not None:
            kept = self.session.findings
            if len(self.session.result.findings) >= kept.limit:
                kept.limit += 1  # a reader must see that the capture is cut
            kept.add(found)

    def snapshot(self, **callbacks: Unpack[Callbacks]) -> Analysis:
        """The analysis of what was fed so far, as if the session ended here while its streams
        go on: the buffered records are processed and the requests in flight reported, but a
        line still being written is not cut short. It is done on a copy, whose callbacks are
        the ones given (they hear what finishing the copy finds); this analyzer goes on as it
        was. The copy costs the state's containers; kept findings are shared, not copied."""
        memo: dict[int, object] = {id(self.session.callbacks): callbacks}
        for found in self.session.result.findings:  # frozen values: shared
            memo[id(found)] = found
        twin = copy.deepcopy(self, memo)
        twin._run(twin.reorder.take(final=True))
        for framer in twin.framers.values():
            framer.drop_partial()
        return twin.session.close()

    # -- records in time order -------------------------------------------------------------
    def _run(self, batch: list[Record]) -> None:
        """The hot loop: a whole good line is parsed once and judged without building objects.
        Over 60 lines on purpose: a helper would cost a call per record."""
        fin, fout = self.framers[IN], self.framers[OUT]
        loads, decode_error = _loads, _JSONDecodeError
        session = self.session
        tracker = session.tracker
        previous = session.lines.previous
        accept, answer, client_request = session.accept, session.answer, session.client_request
        counts = session.result.messages
        on_message = session.callbacks.get("on_message")
        watch = session.callbacks.get("watch")
        watched, waiting = (watch.methods, watch.answers) if watch is not None else ((), ())
        answers = requests = 0  # counted here, added to `counts` at the end
        exchanges = self.exchanges
        for record in batch:
            t, ch, payload, index = record
            if ch == OUT:
                framer = fout
            elif ch == IN:
                framer = fin
            else:
                self._other(t, ch, payload, index)
                continue
            if exchanges and index in exchanges:  # an HTTP exchange's: the pairing of its session
                self._use(exchanges.pop(index))
            # ChannelFramer.whole, inlined (its twin; tests/check/test_fast_path_twins.py holds them
            # to `feed`): one line of its own with none in progress is counted without a Frame
            if type(payload) is not str or framer.parts or payload.find("\n") != len(payload) - 1:
                self._fragment(framer, t, payload, index)
                continue
            text = payload
            offset = framer.offset
            line = framer.line = framer.line + 1
            framer.offset = offset + (len(text) if text.isascii() else len(text.encode()))
            try:
                value = loads(text)
            except decode_error:
                value = None
            if type(value) is dict and "\r" not in text:
                kind, method, rid, problem = shape(value, ch, tracker.version)
                if problem is None:
                    if on_message is not None:
                        on_message(_message(record, line, offset, kind, method, rid, value))
                    # `rid` is an int, a str or None here (shape's gate), so `in waiting` cannot raise
                    if watch is not None and (method in watched if method is not None else rid in waiting):
                        watch.feed(_message(record, line, offset, kind, method, rid, value))
                    # one named record per line: its place (At), or for a client request the
                    # request as it will be in flight (its place and method: a Pending)
                    if kind is _RESPONSE and ch == OUT:
                        answers += 1
                        answer(kind, rid, value, _new(At, (ch, line, offset, text, t, index)))
                    elif kind is _REQUEST and ch == IN:
                        requests += 1
                        request = _new(Pending, (ch, line, offset, text, t, index, method, True))
                        client_request(rid, value, request)  # type: ignore[arg-type]
                    else:
                        accept(kind, method, rid, value, _new(At, (ch, line, offset, text, t, index)))
                    previous[ch] = record  # the last good line: no new tuple per line, the record
                    continue
            session.frame(Frame(ch, line, offset, text.encode(), t, True, (index,)))
        counts[OUT] += answers
        counts[IN] += requests

    def _use(self, x: int) -> None:
        """The next `in`/`out` line is exchange `x`'s: its session's pairings pair it (pairing.Sessions)."""
        s = self.session
        pair = s.sessions.switch(*self.transport.session_keys.of(x))
        if pair is not None:
            s.client.listed = s.promises.names  # each session's complete tools/list is its own:
            s.promises.names = pair[0].listed  # a server may list other tools to another client
            s.client, s.server = pair
            s.modern.client = pair[0]

    def _settle(self, rid: Any, x: int) -> None:
        """HTTP settled request `rid` of exchange `x` (check/http/settling.py): its session's pairing
        needs no answer by id."""
        key, before = self.transport.session_keys.of(x)
        pairs = self.session.sessions.pairs
        pair = pairs.get(key) or pairs.get(before)
        if pair is not None:
            pair[0].cancel(rid)

    def _fragment(self, framer: ChannelFramer, t: float, payload: Payload, index: int) -> None:
        if isinstance(payload, dict):
            return
        data = payload.encode() if isinstance(payload, str) else payload
        for frame in framer.feed(data, t, index):
            self.session.frame(frame)

    def _other(self, t: float, ch: str, payload: Payload, index: int) -> None:
        """Records of the other channels: stderr, executor lines, eof, exit, HTTP (check/http/)."""
        if ch in HTTP_CHANNELS or payload == HTTP_END or ch == NOTE:
            self.transport.push(t, ch, payload, index)
            return
        if isinstance(payload, dict):
            if ch == EOF_:
                of = payload.get("of")
                framer = self.framers.get(of) if type(of) is str else None
                last = framer.close() if framer is not None else None
                if last is not None:
                    self._dispatch(last)
                self._ended(of, t)
            elif ch == EXIT:
                self.session.server_ended = True
                code, signal = payload.get("code"), payload.get("signal")
                result = self.session.result
                result.exited = True
                result.exit_code = code if type(code) is int else None
                result.exit_signal = signal if type(signal) is int else None
            return
        channel = self.framers.get(ch)
        if channel is None:
            return
        data = payload.encode() if isinstance(payload, str) else payload
        if ch == ERR:
            self._stderr(data, index)
        for frame in channel.feed(data, t, index):
            self._dispatch(frame)

    def _ended(self, of: Any, t: float) -> None:
        """A stream's end: the client closing the server's stdin before the server ended is the
        stdio shutdown (see pairing.unanswered_request); the server's stdout ending ends it."""
        session = self.session
        if of == OUT:
            session.server_ended = True
        elif of == IN and not session.server_ended and session.client_left is None:
            session.client_left = t

    def _dispatch(self, frame: Frame) -> None:
        ch = frame.channel
        if ch in (IN, OUT):
            self.session.frame(frame)
        elif ch in EXECUTOR_CHANNELS:
            self.session.executor(frame)

    def _stderr(self, data: bytes, index: int) -> None:
        err = self.session.result.stderr
        if err.first_event < 0:
            err.first_event = index
        err.size += len(data)
        err.lines += data.count(b"\n")
        room = STDERR_HEAD - len(err.head)
        if room > 0:
            err.head += data[:room]
        if len(data) > room:
            err.truncated = True


def analyze(events: Iterable[Event], *, policy: str = "session", **callbacks: Unpack[Callbacks]) -> Analysis:
    """Analyse a whole stream of transcript events (see `Analyzer` for the incremental form and the
    callbacks).

    `policy` says which executor calls after a rejected input frame count (see `attribution`)."""
    analyzer = Analyzer(policy=policy, **callbacks)
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
    policy: str = "session",
    progress: Callable[[int], None] | None = None,
    **callbacks: Unpack[Callbacks],
) -> tuple[Header, Analysis]:
    """Read and analyse a transcript file; raises TranscriptError when it cannot be read.

    `progress(bytes read)` is called now and then on a long file (for a progress line); the
    callbacks are `Analyzer`'s (a `watch` hears only the messages it names)."""
    transcript = open_transcript(path)
    analyzer = Analyzer(policy=policy, **callbacks)
    transcript.exchanges = analyzer.exchanges
    for batch in transcript.batches(BATCH, analyzer.flush_bytes):
        analyzer.feed_records(batch.records, batch.size)
        if progress is not None:
            progress(batch.offset)
    last = transcript.problems[-1] if transcript.truncated else None
    if last is not None and last.reason.startswith("truncated"):
        analyzer.torn(last)
    analysis = analyzer.finish()
    analysis.notes.extend(reading_notes(transcript))
    return transcript.header, analysis


def reading_notes(transcript: Transcript) -> list[str]:
    """The notes for a transcript's unreadable lines (known once a pass has read it)."""
    return [f"transcript line {p.line} (byte {p.offset}): {p.reason}" for p in transcript.problems]

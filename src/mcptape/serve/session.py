"""One served session: read the client's lines, answer each from the recording, write them back.

The client's stdin is framed by the check core's `ChannelFramer` and each line classified by its
`classify` (the one framer and classifier), with the protocol version the session reached. Every
byte serve writes to stdout is protocol the recording holds (or, with `--exact`, the recorded bytes
as they were, noise and all; or an injected hard output); serve's own words go to `log` (stderr),
never to stdout. With a transcript writer, both directions are recorded as `mcptape record` would.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcptape.check.classify import classify
from mcptape.check.framing import ChannelFramer
from mcptape.check.model import IN, Frame, Kind, Message, RequestId
from mcptape.check.protocol import VersionTracker
from mcptape.diff.compare import Change
from mcptape.diff.ignore import Rule
from mcptape.serve.carry import Carry, carried
from mcptape.serve.inject import Applied, Injector, Write
from mcptape.serve.match import Matcher
from mcptape.serve.pool import Entry, Output, Pool
from mcptape.serve.render import describe, error_line, render, short
from mcptape.textsafe import escape_text
from mcptape.transcript.writer import TranscriptWriter

NO_ANSWER = -32001  # serve's own error: no recorded answer (outside the range MCP reserves)
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND = -32700, -32600, -32601
DISCOVER = "server/discover"
READ = 1 << 16


@dataclass
class Options:
    """How to serve: the match mode and rules, the recorded bytes or the messages, the cases."""

    mode: str = "params"
    rules: list[Rule] = field(default_factory=list)
    match_meta: bool = False
    exact: bool = False
    inject: list[str] = field(default_factory=list)
    token: str = "00000000"
    pause: float = 0.3  # seconds between the two writes of a split response
    hold: float = 2.0  # seconds a pair case waits for the second request
    grace: float = 2.0  # seconds serve still reads the client after it closed stdout


@dataclass
class ClientLine:
    """One line the client sent, and what serve did with it."""

    t: float
    line: int
    kind: str  # request, notification, response, error-response, garbage
    status: str  # served, repeated, unmatched, legacy, garbage, notification, answer, after-close
    method: str | None = None
    id: RequestId | None = None
    entry: Entry | None = None
    closest: Entry | None = None
    changes: list[Change] = field(default_factory=list)
    problem: str | None = None
    value: Any = None


@dataclass
class Served:
    """What happened in the session: the client's lines, the cases, how it ended."""

    client: list[ClientLine] = field(default_factory=list)
    applied: list[Applied] = field(default_factory=list)
    unused: list[Entry] = field(default_factory=list)
    eof_t: float | None = None  # when the client closed its side (serve's stdin)
    closed_t: float | None = None  # when serve closed stdout (a truncated response, a recorded exit)
    ended_by: str = "client"  # client, recording, signal
    recorded_exit: int | None = None  # --exact: the recorded server's exit code, where it ended
    dropped_noise: int = 0  # recorded stdout lines that are not protocol, not played
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for c in self.client if c.status == status)


class _Stop(Exception):
    """SIGTERM or SIGINT: end the session, write the report."""


class Session:
    """Serves one client over two file descriptors (stdin, stdout) from a pool of recordings."""

    def __init__(
        self,
        pool: Pool,
        options: Options,
        *,
        log: Callable[[str], None],
        writer: TranscriptWriter | None = None,
        stdin_fd: int = 0,
        stdout_fd: int = 1,
    ) -> None:
        self.pool = pool
        self.options = options
        self.writer = writer
        self.stdin_fd, self.stdout_fd = stdin_fd, stdout_fd
        self._log = log
        self.matcher = Matcher(pool, options.mode, options.rules, match_meta=options.match_meta)
        self.injector = Injector(
            options.inject, pool, token=options.token, pause=options.pause, hold=options.hold
        )
        self.tracker = VersionTracker()
        self.framer = ChannelFramer(IN)
        self.ids: dict[Entry, RequestId] = {}  # recorded request -> the new client's id
        self.carry: dict[Entry, Carry] = {}
        self.deferred: dict[Entry, list[Output]] = {}  # answers to requests the client has not sent
        self.asked: dict[RequestId, Path] = {}  # server requests played, by id -> their recording
        self.result = Served(applied=self.injector.cases)
        self.stdout_open = True
        self.t0 = time.monotonic()
        self.events = 0

    def now(self) -> float:
        return self.writer.now() if self.writer is not None else time.monotonic() - self.t0

    def log(self, text: str) -> None:
        self._log(text)
        if self.writer is not None:
            self.writer.chunk(self.now(), "err", (text + "\n").encode("utf-8", "backslashreplace"))

    # -- the loop -------------------------------------------------------------------------
    def run(self) -> Served:
        previous = _install(_stop)
        try:
            self._play(self.pool.start, None)
            self._loop()
        except _Stop:
            self.result.ended_by = "signal"
        finally:
            _restore(previous)
        self._write(self.injector.release())
        self.injector.not_reached()
        self.result.unused = self.matcher.unused()
        self.result.seconds = time.monotonic() - self.t0
        return self.result

    def _loop(self) -> None:
        while True:
            timeout = self._timeout()
            if timeout is not None and timeout <= 0:
                if self.result.closed_t is not None:
                    return  # serve closed stdout and the client did not close its side in time
                self._write(self.injector.release(self.now()))
                continue
            ready, _, _ = select.select([self.stdin_fd], [], [], timeout)
            if not ready:
                continue
            try:
                data = os.read(self.stdin_fd, READ)
            except OSError:
                data = b""
            t = self.now()
            if not data:
                last = self.framer.close()
                if last is not None:
                    self._line(last)
                self.result.eof_t = t
                if self.writer is not None:
                    self.writer.fields(t, "eof", of=IN)
                return
            if self.writer is not None:
                self.writer.chunk(t, IN, data)
            for frame in self.framer.feed(data, t, self.events):
                self._line(frame)
            self.events += 1

    def _timeout(self) -> float | None:
        if self.result.closed_t is not None:
            return self.result.closed_t + self.options.grace - self.now()
        deadline = self.injector.deadline
        return None if deadline is None else deadline - self.now()

    # -- the client's lines -----------------------------------------------------------------
    def _line(self, frame: Frame) -> None:
        msg = classify(frame, self.tracker.version)
        kind = msg.kind
        line = ClientLine(frame.t, frame.line, kind.value, "", msg.method, msg.id, value=msg.value)
        self.result.client.append(line)
        if self.result.closed_t is not None:
            line.status = "after-close"
        elif kind is Kind.REQUEST and msg.id is not None:
            self.tracker.request(msg.method or "", msg.id, _params(msg.value))
            self._request(msg, line)
        elif kind is Kind.NOTIFICATION:
            line.status = "notification"
            self._notification(msg)
        elif kind is Kind.RESPONSE or kind is Kind.ERROR_RESPONSE:
            line.status = "answer"
            self._answer(msg)
        else:
            line.kind, line.status, line.problem = "garbage", "garbage", msg.problem
            self._garbage(msg)

    def _request(self, msg: Message, line: ClientLine) -> None:
        found = self.matcher.request(msg)
        entry = found.entry
        if entry is None and msg.method == DISCOVER and self._legacy_recording():
            # A 2026-07-28 client's first question to a server recorded speaking an earlier revision:
            # answered as that server answers a method it does not know, so the client falls back
            # to `initialize` (basic/versioning: "Modern client, legacy server").
            line.status = "legacy"
            self._write([Write(error_line(msg.id, METHOD_NOT_FOUND, "Method not found"))])
            return
        if entry is None:
            line.status, line.closest, line.changes = "unmatched", found.closest, found.changes
            self.log(_unmatched_text(msg, found.closest, found.changes))
            message = f"mcptape serve: no recorded answer for {msg.method}"
            self._write([Write(error_line(msg.id, NO_ANSWER, message))])
            return
        line.status = "repeated" if found.repeated else "served"
        line.entry = entry
        assert msg.id is not None
        self.ids[entry] = msg.id
        self.carry[entry] = carried(found.hidden)
        self._play([*entry.outputs, *self.deferred.pop(entry, [])], entry)

    def _legacy_recording(self) -> bool:
        """The recorded server was met with the initialize handshake and never asked server/discover."""
        return bool(self.pool.by_method("initialize")) and not self.pool.by_method(DISCOVER)

    def _notification(self, msg: Message) -> None:
        for entry in self.pool.notifications:
            if entry.uses == 0 and entry.method == msg.method:
                entry.uses = 1
                self._play(entry.outputs, entry)
                return

    def _answer(self, msg: Message) -> None:
        source = self.asked.pop(msg.id, None) if msg.id is not None else None
        entry = self.pool.answers.get((source, msg.id)) if source is not None and msg.id is not None else None
        if entry is not None:
            self._play(entry.outputs, entry)

    def _garbage(self, msg: Message) -> None:
        code = PARSE_ERROR if msg.kind is Kind.NON_PROTOCOL else INVALID_REQUEST
        what = "a batch (serve answers requests one by one)" if msg.kind is Kind.BATCH else msg.problem
        said = escape_text(what or "not protocol")
        self.log(f"mcptape serve: client line {msg.frame.line} is not a request serve can answer: {said}")
        self._write(
            [Write(error_line(msg.id, code, "Parse error" if code == PARSE_ERROR else "Invalid Request"))]
        )

    # -- what serve writes ------------------------------------------------------------------
    def _play(self, outputs: list[Output], owner: Entry | None) -> None:
        exact = self.options.exact
        for out in outputs:
            if not self.stdout_open:
                return
            msg = out.message
            if msg is None:
                if exact:
                    self.result.recorded_exit = out.exit_code
                    self.result.ended_by = "recording"
                    self._close()
                    return
                continue
            if not exact and not out.protocol:
                self.result.dropped_noise += 1
                continue
            request = out.answers
            if request is not None:
                if request not in self.ids:
                    self.deferred.setdefault(request, []).append(out)
                    continue
                rid = self.ids[request]
                data, value = render(msg, rid, self.carry.get(request, {}), exact=exact)
                if request.method == "initialize" and type(value) is dict:
                    self.tracker.response(rid, value.get("result"))
                if out.protocol:
                    writes = self.injector.response(
                        request, rid, data, value, self.now(), self.tracker.stateless
                    )
                else:
                    writes = [Write(data)]
                self._write(writes)
                continue
            data, _ = render(msg, None, self.carry.get(owner, {}) if owner else {}, exact=exact)
            if msg.method is not None and msg.id is not None:
                self.asked[msg.id] = owner.source if owner is not None else self.pool.files[0]
            self._write([Write(data)])

    def _write(self, writes: list[Write]) -> None:
        for write in writes:
            if not self.stdout_open:
                return
            self._emit(write.data)
            if write.pause:
                time.sleep(write.pause)
            if write.close:
                self.result.ended_by = "recording"
                self._close()

    def _emit(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.stdout_fd, view) :]
        except OSError:  # the client closed its end: nothing more can reach it
            self.stdout_open = False
        if self.writer is not None and len(view) < len(data):
            self.writer.chunk(self.now(), "out", data[: len(data) - len(view)])

    def _close(self) -> None:
        if not self.stdout_open:
            return
        self.stdout_open = False
        try:
            os.close(self.stdout_fd)
        except OSError:
            pass
        self.result.closed_t = self.now()
        if self.writer is not None:
            self.writer.fields(self.result.closed_t, "eof", of="out")


def _params(value: Any) -> Any:
    return value.get("params") if type(value) is dict else None


def _unmatched_text(msg: Message, closest: Entry | None, changes: list[Change]) -> str:
    text = f"mcptape serve: no recorded answer for {describe(msg.method, _params(msg.value))} (id {msg.id!r})"
    if closest is not None and changes:
        first = changes[0]
        where = escape_text(f"{closest.where()}, {first.where}")
        text += f"; nearest: {where}: {short(first.old)} -> {short(first.new)}"
    return text + f"; answered with error {NO_ANSWER}"


def _stop(signum: int, frame: Any) -> None:
    raise _Stop


def _install(handler: Callable[[int, Any], None]) -> dict[int, Any]:
    previous: dict[int, Any] = {}
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread (an embedding test): no handlers
        pass
    return previous


def _restore(previous: dict[int, Any]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler)

"""`mcptape replay FILE --http-upstream URL [-- CMD]`: send an HTTP transcript's recorded requests to a
new build over HTTP, record the new session as `record --http-upstream` does, and diff the two.

Each recorded exchange's request is sent as its bytes were recorded (request line, headers, body),
on a connection of its own, through the same recording reverse proxy `record` uses (so the new
transcript has the same shape), with one substitution: an `Mcp-Session-Id` the recorded server
assigned is replaced by the one the new server assigned in its place. Pacing is causal, from the
recorded times: an exchange is sent once every exchange whose response had ended before its
request began has ended again; the others (a GET stream, a request answered while another was
still streaming) run alongside. Streams still open when every other exchange is done are closed,
as the recorded client closed them. With `-- CMD` the server is started first and stopped at the
end the way the recorded one ended (the signal it died of, else the shutdown order).
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import h11

from mcptape.errors import UsageError
from mcptape.recorder.httprun import Server, parse_upstream, wait_for
from mcptape.recorder.lifeline import watch
from mcptape.recorder.reverse import ReverseProxy
from mcptape.recorder.spawn import spawn
from mcptape.recorder.spool import Spool
from mcptape.transcript.events import Event
from mcptape.transcript.files import open_output
from mcptape.transcript.reader import open_transcript
from mcptape.transcript.wire import HTTP_IN, HTTP_OUT, header
from mcptape.transcript.writer import TranscriptWriter, new_header

READ = 65536


@dataclass
class Recorded:
    """One recorded exchange: its request's bytes, when it began, when its response ended (None:
    never), and the session id its response assigned."""

    x: int
    request: bytes = b""
    response: bytes = b""
    start: float = 0.0
    end: float | None = None
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def assigned(self) -> str | None:
        head = self.response.partition(b"\r\n\r\n")[0]
        found = re.search(rb"(?im)^mcp-session-id:[ \t]*([^\r\n]*?)[ \t]*\r?$", head)
        return found.group(1).decode("latin-1") if found else None


def recorded_exchanges(events: list[Event]) -> list[Recorded]:
    """The exchanges of an HTTP transcript, in number order."""
    by_x: dict[int, Recorded] = {}
    for event in events:
        x = (event.fields or {}).get("x")
        if event.ch not in (HTTP_IN, HTTP_OUT) or type(x) is not int:
            continue
        item = by_x.get(x)
        if item is None:
            item = by_x[x] = Recorded(x, start=event.t)
        if event.ch == HTTP_IN:
            item.request += event.data
        else:
            item.response += event.data
            item.end = event.t
    return [by_x[x] for x in sorted(by_x)]


class Driver:
    """Sends the recorded requests through the proxy, paced causally."""

    def __init__(self, proxy: ReverseProxy, exchanges: list[Recorded], step_timeout: float) -> None:
        self.proxy = proxy
        self.exchanges = exchanges
        self.step_timeout = step_timeout
        self.sessions: dict[str, str] = {}  # recorded session id -> the new server's
        self.sockets: list[socket.socket] = []
        self.issues: list[str] = []
        self.sent = 0
        self._lock = threading.Lock()

    def run(self) -> None:
        threads = []
        for k, item in enumerate(self.exchanges):
            for before in self.exchanges[:k]:
                waited = before.end is not None and before.end <= item.start
                if waited and not before.done.wait(self.step_timeout):
                    late = f"exchange {before.x} did not end within {self.step_timeout:g}s"
                    self.issues.append(f"{late}; exchange {item.x} sent anyway")
            thread = threading.Thread(target=self._one, args=(item,), name="mcptape-replay-http", daemon=True)
            thread.start()
            threads.append(thread)
            self.sent += 1
        last = max((item.end or 0.0 for item in self.exchanges), default=0.0)
        for item in self.exchanges:  # the streams that outlived the others are closed, as recorded
            if item.end is not None and item.end < last and not item.done.wait(self.step_timeout):
                self.issues.append(f"exchange {item.x} did not end within {self.step_timeout:g}s")
        time.sleep(0.05)
        with self._lock:
            for sock in self.sockets:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for thread in threads:
            thread.join(self.step_timeout)

    def _request(self, item: Recorded) -> bytes:
        """The recorded request, its Mcp-Session-Id the new server's (when it assigned one)."""
        head, sep, body = item.request.partition(b"\r\n\r\n")
        if not sep:
            return item.request
        lines = head.split(b"\r\n")
        for i, line in enumerate(lines):
            name, colon, value = line.partition(b":")
            old = value.strip().decode("latin-1")
            if colon and name.strip().lower() == b"mcp-session-id" and old in self.sessions:
                lines[i] = name + b": " + self.sessions[old].encode("latin-1")
        return b"\r\n".join(lines) + sep + body

    def _one(self, item: Recorded) -> None:
        try:
            sock = socket.create_connection((self.proxy.host, self.proxy.port), timeout=None)
        except OSError as exc:
            self.issues.append(f"exchange {item.x}: cannot connect to the proxy ({exc.strerror or exc})")
            item.done.set()
            return
        with self._lock:
            self.sockets.append(sock)
        conn = h11.Connection(h11.CLIENT)
        try:
            sock.sendall(self._request(item))
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA:
                    data = sock.recv(READ)
                    conn.receive_data(data)
                    if not data:
                        break
                    continue
                if isinstance(event, h11.Response):
                    fields = [
                        (n.decode("latin-1"), v.decode("latin-1")) for n, v in event.headers.raw_items()
                    ]
                    new = header(fields, "mcp-session-id")
                    old = item.assigned
                    if new is not None and old is not None:
                        self.sessions[old] = new
                if isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                    break
        except (OSError, h11.ProtocolError):
            pass  # what the new server did is in the new transcript
        finally:
            item.done.set()
            sock.close()


def replay_http(
    path: Path,
    upstream_url: str,
    command: list[str],
    output: Path,
    *,
    overwrite: bool = False,
    step_timeout: float = 10.0,
    shutdown_timeout: float = 2.0,
) -> list[str]:
    """Replay `path` against `upstream_url` (started by `command` when given), recording to
    `output`; returns the issues met (an exchange that never ended...)."""
    transcript = open_transcript(path)
    events = list(transcript.events())
    exchanges = recorded_exchanges(events)
    if not exchanges:
        hint = "replay a stdio transcript without --http-upstream"
        raise UsageError(f"{path} has no HTTP exchange", hint=hint)
    ended = next((e for e in reversed(events) if e.ch == "exit"), None)
    upstream = parse_upstream(upstream_url)
    t0 = time.monotonic()
    fd = open_output(output, overwrite=overwrite, exists_hint="pass --overwrite, or choose another -o")
    writer = TranscriptWriter(fd, clock_start=t0)
    spool = Spool(writer)
    server = None
    if command:
        child = spawn(command, dict(os.environ))
        server = Server(child, spool, watch(child.pid, shutdown_timeout), shutdown_timeout)
    proxy = ReverseProxy(spool, upstream)
    extra: dict[str, object] = {"http": {"upstream": upstream.url, "listen": proxy.url}}
    extra["replay_of"] = str(path)
    if server is not None:
        extra["pid"] = server.child.pid
    writer.header(new_header(command, str(Path.cwd()), **extra))
    stop = threading.Event()
    issues: list[str] = []
    try:
        if server is not None:
            server.start(on_exit=stop.set)
            failed = wait_for(upstream, server, stop)
            if failed is not None:
                raise UsageError(failed, hint="check the server command and the --http-upstream port")
        proxy.start()
        driver = Driver(proxy, exchanges, step_timeout)
        driver.run()
        issues = driver.issues
        if driver.sent < len(exchanges):
            issues.append(f"sent {driver.sent} of {len(exchanges)} exchanges")
    finally:
        status = None
        if server is not None:
            recorded_signal = (ended.fields or {}).get("signal") if ended is not None else None
            status = server.stop(recorded_signal if type(recorded_signal) is int else None)
        proxy.stop(grace=1.0)
        spool.fields(spool.now(), "eof", of=HTTP_IN)
        if status is not None:
            spool.fields(spool.now(), "exit", code=status.code, signal=status.signal)
        spool.close()
        writer.close()
    return issues

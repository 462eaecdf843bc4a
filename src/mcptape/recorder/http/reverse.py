"""The recording reverse proxy of `mcptape record --http-upstream`: the client connects here, every
byte goes on to the upstream MCP server unchanged and in real time, and back the same way.

One upstream connection per client connection, opened when the client connects, and two threads
that each copy one direction: read, forward (`sendall`), then hand a copy to the connection's
`tap.Tap`, which records it. Nothing is parsed before it is forwarded, so an SSE event reaches
the client the moment the upstream sent it, and a request or response h11 cannot read still goes
through as it is. A closed or reset end is passed on: the client's end of writing becomes the
upstream's, a reset upstream resets the client.

When the upstream gave nothing for a request (it refused the connection, closed or reset it before
answering) while the client still waited, mcptape answers `502 Bad Gateway` itself (header
`X-Mcptape: upstream`), records that answer and says so in one line on stderr, once for each kind of
failure. A client that closed its end first gets no 502 (it left; on 2026-07-28 it cancelled): a note.
"""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable

from mcptape.recorder.http.hostrewrite import HostRewriter, is_loopback
from mcptape.recorder.http.tap import Exchanges, Tap
from mcptape.recorder.listener import Listener
from mcptape.recorder.sinks import Target

READ_SIZE = 256 << 10  # the client's reads go into one buffer reused (one a connection)
UPSTREAM_READ = 1 << 20  # the upstream's into a fresh one each (an SSE stream: fewer passes; docs/http.md)
CONNECT_TIMEOUT = 10.0
STOP_WAIT = 10.0  # seconds for the connection threads to record their last reads once shut down


class Upstream:
    """Where the proxy forwards: scheme, host, port and path of the `--http-upstream` URL."""

    def __init__(self, scheme: str, host: str, port: int, path: str) -> None:
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self._context: ssl.SSLContext | None = None

    @property
    def authority(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.authority}{self.path}"

    @property
    def host_header(self) -> str:
        """The `Host` a request to this upstream carries (the port only when not the scheme's)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == (443 if self.scheme == "https" else 80) else self.authority

    def connect(self, timeout: float = CONNECT_TIMEOUT) -> socket.socket:
        """A connection to the upstream (TLS for https, verified against the system's CAs)."""
        sock = socket.create_connection((self.host, self.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.scheme == "https":
            if self._context is None:
                self._context = ssl.create_default_context()
            try:
                sock = self._context.wrap_socket(sock, server_hostname=self.host)
            except BaseException:
                sock.close()
                raise
        sock.settimeout(None)
        return sock

    def accepts(self) -> bool:
        """True when a TCP connection to the upstream succeeds now."""
        try:
            socket.create_connection((self.host, self.port), timeout=1.0).close()
        except OSError:
            return False
        return True


def _reason(exc: BaseException) -> str:
    if isinstance(exc, ssl.SSLError):
        return exc.reason or str(exc)
    if isinstance(exc, OSError):
        return exc.strerror or str(exc) or type(exc).__name__
    return str(exc)


def bad_gateway(why: str) -> bytes:
    """mcptape's own answer for a request the upstream never answered."""
    body = f"mcptape: no answer from the upstream: {why}\n".encode()
    head = (
        "HTTP/1.1 502 Bad Gateway\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "X-Mcptape: upstream\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


class ReverseProxy(Listener):
    """`start()`, give the client `url`, `stop()` at the end. `say(line)` writes mcptape's own
    lines on stderr."""

    accept_name = "mcptape-http-accept"
    conn_name = "mcptape-http-conn"

    def __init__(
        self,
        sink: Target,
        upstream: Upstream,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.sink = sink
        self.upstream = upstream
        self.say = say
        self.exchanges = Exchanges()
        self._said: set[str] = set()
        self._sockets: set[socket.socket] = set()
        super().__init__(host, port)

    @property
    def url(self) -> str:
        """The URL the client uses: the listen address and the upstream's path."""
        return f"{super().url}{self.upstream.path}"

    def _stopped(self, grace: float) -> None:
        """The exchanges still in flight after `grace` are cut (what came is kept)."""
        with self._lock:
            sockets = list(self._sockets)
        for sock in sockets:  # the connections still open: their threads see the end and record it
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        # Shut down, every thread ends at once; the wait is long only for a thread the machine's
        # load kept from running, which still records what it forwarded before the file closes.
        self._workers.join(STOP_WAIT)

    def _tell(self, kind: str, line: str) -> None:
        """One line on stderr for each kind of trouble (the first of its kind)."""
        with self._lock:
            if kind in self._said:
                return
            self._said.add(kind)
        if self.say is not None:
            self.say(f"mcptape: {line}\n")

    def _note(self, message: str) -> None:
        self.sink.fields(self.sink.now(), "note", msg=message)

    def _problem(self, x: int, why: str) -> None:
        self._note(f"exchange {x}: {why}")
        self._tell(why.partition(" (")[0], f"exchange {x}: {why} (forwarded as it came)")

    # -- one connection ------------------------------------------------------------------------
    def _serve(self, client: socket.socket) -> None:
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        tap = Tap(self.sink, self.exchanges, on_problem=self._problem)
        with self._lock:
            self._sockets.add(client)
        try:
            try:
                upstream = self.upstream.connect()
            except (OSError, ssl.SSLError) as exc:
                self._unreachable(client, tap, f"cannot connect to {self.upstream.authority}: {_reason(exc)}")
                return
            with self._lock:
                self._sockets.add(upstream)
            try:
                self._relay(client, upstream, tap)
            finally:
                with self._lock:
                    self._sockets.discard(upstream)
                upstream.close()
        finally:
            with self._lock:
                self._sockets.discard(client)
            client.close()

    def _relay(self, client: socket.socket, upstream: socket.socket, tap: Tap) -> None:
        """Copy both directions until both ends are done (client->upstream in a thread of its own).
        Over 60 lines on purpose: each read of a stream is a pass of these loops, which share the
        sockets, buffers and tap (bench/bench_http.py: CPU per MiB relayed)."""

        rewriter = None if is_loopback(self.upstream.host) else HostRewriter(self.upstream.host_header)

        def client_to_upstream() -> None:
            buffer = memoryview(bytearray(READ_SIZE))  # reused: no buffer of READ_SIZE made per read
            while True:
                try:
                    got = client.recv_into(buffer)
                except OSError:
                    got = 0
                t = self.sink.now()
                if not got:
                    tap.client_closed(t)
                    try:
                        if rewriter is not None:
                            upstream.sendall(rewriter.flush())
                        upstream.shutdown(socket.SHUT_WR)  # the client is done writing: so are we
                    except OSError:
                        pass
                    return
                tap.client_sending()
                try:
                    upstream.sendall(buffer[:got] if rewriter is None else rewriter.feed(bytes(buffer[:got])))
                except OSError:
                    pass  # the upstream is gone: its end shows on the other direction
                tap.client_bytes(t, bytes(buffer[:got]))  # forwarded first, then copied (read into again)

        sender = threading.Thread(target=client_to_upstream, name="mcptape-http-c2u", daemon=True)
        sender.start()
        got = 0
        while True:
            try:  # a fresh buffer a read, given on to the tap uncopied
                data = upstream.recv(UPSTREAM_READ)
                error = None
            except OSError as exc:
                data, error = b"", exc
            size = len(data)
            t = self.sink.now()
            if not size:
                tap.server_closed(t)
                waiting = tap.unanswered()
                if waiting and tap.client_gone and error is None:
                    # The client left first (on 2026-07-28, closing a request's stream cancels it):
                    # nobody is there to read an answer, so mcptape does not make one up.
                    tap.client_left(t, waiting[0], "before an answer came; the upstream then closed it")
                elif waiting:
                    why = (
                        f"the upstream reset the connection ({_reason(error)})"
                        if error is not None
                        else "the upstream closed the connection"
                    )
                    why += " before answering"
                    self._substitute(client, tap, waiting[0], why)
                elif error is not None and tap.client_gone:  # the upstream's answer to the client leaving
                    x = tap.answering()
                    self._note(f"exchange {x}: after the client left, the upstream reset the connection")
                elif error is not None:
                    x = tap.answering()
                    why = f"the upstream reset the connection ({_reason(error)})"
                    self._note(f"exchange {x}: {why} after {got} bytes")
                    self._tell(
                        "reset", f"exchange {x}: {why} mid-response: the client's connection is reset too"
                    )
                    _reset_soon(client)
                    break
                try:
                    client.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                break
            got += size
            try:
                client.sendall(data)
            except OSError:  # the client left (on 2026-07-28, closing a stream cancels its request)
                tap.client_unreachable()  # before the upstream's end is read, whichever thread is first
                try:
                    upstream.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            tap.server_bytes(t, data)
        sender.join()

    def _substitute(self, client: socket.socket, tap: Tap, x: int, why: str) -> None:
        """Answer exchange `x` with mcptape's 502, record it, say why."""
        answer = bad_gateway(why)
        try:
            client.sendall(answer)
        except OSError:
            pass
        tap.substitute(self.sink.now(), x, answer)
        self._note(f"exchange {x}: {why}: mcptape answered 502")
        self._tell(why, f"exchange {x}: {why}: answered 502 Bad Gateway")

    def _unreachable(self, client: socket.socket, tap: Tap, why: str) -> None:
        """No upstream connection: record each request the client sends and answer it 502."""
        while True:
            try:
                data = client.recv(READ_SIZE)
            except OSError:
                data = b""
            t = self.sink.now()
            if not data:
                tap.client_closed(t)
                for x in tap.unanswered():
                    self._note(f"exchange {x}: {why}: the client left before an answer")
                return
            tap.client_bytes(t, data)
            waiting = tap.unanswered()
            if waiting and tap.request_complete(waiting[0]):
                self._substitute(client, tap, waiting[0], why)
                try:
                    client.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                tap.client_closed(self.sink.now())
                return


def _reset_soon(sock: socket.socket) -> None:
    """End the client's connection with a reset when it is closed (what the upstream did to us): no
    FIN first (a body read until the close would look complete); SHUT_RD wakes the other thread."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass

"""The front of the cassette: a loopback HTTP/1.1 forward proxy that reads whole requests, HTTPS
included, and hands each one to a backend (the network when recording, the cassette on replay).

The server's proxy variables point here, as for the HTTP sink. A request arrives in one of two ways:

* absolute-form (`GET http://host/path HTTP/1.1`): plain HTTP through a proxy;
* inside a `CONNECT host:port` tunnel. The proxy answers `200`, then looks at the first byte the
  client sends: a TLS handshake is terminated here with a certificate for `host` signed by the
  session's CA (`tlsca.SessionCA`, which the server was told to trust); anything else is read as
  plain HTTP (undici sends `http://` URLs that way).

Each request is read whole (body included), given to the backend with a `Responder` to answer
through, and recorded as one line on channel `http` once the answer is complete, timed when the
request arrived (see `exchange.py` for the line). Threads, not asyncio; h11 parses both directions.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable
from typing import Any

import h11
import orjson

from mcptape.recorder.listener import BadRequest, Listener
from mcptape.recorder.outbound.httpmsg import (
    DEFAULT_PORTS,
    IO_TIMEOUT,
    MAX_REQUEST_BODY,
    READ_SIZE,
    Backend,
    BackendSession,
    Request,
    Responder,
    split_authority,
    text,
)
from mcptape.recorder.outbound.httpsink import CHANNEL, proxy_env
from mcptape.recorder.sinks import Sink

TLS_HANDSHAKE = 0x16  # the first byte of a TLS record carrying a ClientHello


class CassetteProxy(Listener):
    """The proxy: `start()`, point the child at `env()`, `stop()` when the child is gone."""

    accept_name = "mcptape-cassette"
    conn_name = "mcptape-cassette-conn"

    def __init__(
        self,
        sink: Sink,
        backend: Backend,
        build_record: Callable[[Request], dict[str, Any]],
        host: str = "127.0.0.1",
    ) -> None:
        self.sink = sink
        self.backend = backend
        self.build_record = build_record
        self.requests = 0  # lines recorded
        from mcptape.recorder.outbound.tlsca import SessionCA  # cryptography: ~50 ms, paid only here

        self.ca = SessionCA.create()
        try:
            super().__init__(host)
        except BaseException:
            self.ca.close()
            raise

    def env(self) -> dict[str, str]:
        """The proxy variables and the trust variables (the session CA's bundle)."""
        env = proxy_env(self.url)
        env.update(self.ca.trust_env())
        return env

    def _stopped(self, grace: float) -> None:
        """The exchanges in flight were recorded (or given `grace` s): remove the CA."""
        self.ca.close()

    def _serve(self, conn: socket.socket) -> None:
        session = self.backend.session()
        try:
            conn.settimeout(IO_TIMEOUT)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a head and its body sent apart
            self._http(conn, None, session)
        except (OSError, h11.ProtocolError):
            pass  # the client went away; what was complete is recorded
        finally:
            session.close()
            conn.close()

    # -- one connection ----------------------------------------------------------------------
    def _http(
        self, sock: socket.socket, tunnel: tuple[str, str, int] | None, session: BackendSession
    ) -> None:
        """Serve the requests of one connection (or of one tunnel: scheme, host, port)."""
        conn = h11.Connection(h11.SERVER)
        while True:
            try:
                event = self._next(conn, sock)
            except BadRequest as exc:
                self._bad(conn, sock, str(exc), tunnel)
                return
            if isinstance(event, h11.ConnectionClosed):
                return
            assert isinstance(event, h11.Request)
            t = self.sink.now()
            method = event.method.decode("ascii", "replace")
            if method == "CONNECT" and tunnel is None:
                self._tunnel(conn, sock, event, t, session)
                return
            try:
                request = self._read_request(conn, sock, event, tunnel)
            except BadRequest as exc:
                self._bad(conn, sock, str(exc), tunnel, t)
                return
            respond = Responder(conn, sock)
            record = self.build_record(request)
            if request.form == "bad":
                answer = {"error": "not a proxy request (origin-form outside a tunnel)", "reply": 400}
                respond.fail(400, f"{method} {request.target}: not a proxy request")
            else:
                answer = session.exchange(request, respond)
                if not respond.started:
                    respond.fail(502, str(answer.get("error", "no answer")))
            record.update(answer)
            self._record(t, record)
            if respond.broken or conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return
            try:
                conn.start_next_cycle()
            except h11.ProtocolError:
                return

    def _next(self, conn: h11.Connection, sock: socket.socket) -> h11.Event:
        """The next event from the client, reading as needed (raises BadRequest)."""
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                raise BadRequest(str(exc)) from None
            if event is h11.NEED_DATA:
                if conn.they_are_waiting_for_100_continue:
                    sock.sendall(conn.send(h11.InformationalResponse(status_code=100, headers=[])) or b"")
                try:
                    data = sock.recv(READ_SIZE)
                except TimeoutError:
                    raise BadRequest(f"the client sent nothing for {IO_TIMEOUT:g}s") from None
                conn.receive_data(data)
                continue
            if event is h11.PAUSED:
                return h11.ConnectionClosed()
            assert isinstance(event, h11.Event)
            return event

    def _read_request(
        self,
        conn: h11.Connection,
        sock: socket.socket,
        head: h11.Request,
        tunnel: tuple[str, str, int] | None,
    ) -> Request:
        body = bytearray()
        while True:
            event = self._next(conn, sock)
            if isinstance(event, h11.Data):
                body += event.data
                if len(body) > MAX_REQUEST_BODY:
                    raise BadRequest(f"request body larger than {MAX_REQUEST_BODY >> 20} MiB")
            elif isinstance(event, h11.EndOfMessage):
                break
            else:
                raise BadRequest("connection closed inside the request body")
        target = text(head.target)
        fields: dict[str, Any] = {
            "method": text(head.method),
            "target": target,
            "version": "HTTP/" + text(head.http_version),
            "headers": [(text(n), text(v)) for n, v in head.headers.raw_items()],
            "body": bytes(body),
        }
        if tunnel is not None and target.startswith("/"):
            scheme, host, port = tunnel
            return Request(
                **fields,
                form="origin",
                scheme=scheme,
                host=host,
                port=port,
                path=target,
                tunnel=f"{host}:{port}",
            )
        scheme, sep, rest = target.partition("://")
        if not sep or scheme.lower() not in DEFAULT_PORTS:  # origin-form outside a tunnel: not for a proxy
            return Request(**fields, form="bad", scheme="http", host="", port=0, path=target, tunnel=None)
        scheme = scheme.lower()
        authority, slash, path = rest.partition("/")
        path = (slash + path).partition("#")[0]
        if path.startswith("?") or not path:
            path = "/" + path
        try:
            host, port = split_authority(authority.rpartition("@")[2], DEFAULT_PORTS[scheme])
        except ValueError:
            raise BadRequest(f"bad authority in {target[:200]!r}") from None
        via = None if tunnel is None else f"{tunnel[1]}:{tunnel[2]}"
        return Request(**fields, form="absolute", scheme=scheme, host=host, port=port, path=path, tunnel=via)

    def _tunnel(
        self, conn: h11.Connection, sock: socket.socket, head: h11.Request, t: float, session: BackendSession
    ) -> None:
        """Answer a CONNECT with 200, then serve the tunnel: TLS terminated here, or plain HTTP."""
        authority = text(head.target)
        try:
            host, port = split_authority(authority, None)
        except ValueError:
            self._bad(conn, sock, f"CONNECT to {authority!r}: not host:port", None, t)
            return
        sock.sendall(conn.send(h11.Response(status_code=200, headers=[], reason=b"Connection established")))
        if conn.trailing_data[0]:
            self._record(
                t,
                {
                    "method": "CONNECT",
                    "target": authority,
                    "error": "data sent before the 200",
                    "reply": 400,
                    "outcome": "failed",
                },
            )
            return
        first = sock.recv(1, socket.MSG_PEEK)
        if not first:
            return
        if first[0] != TLS_HANDSHAKE:
            self._http(sock, ("http", host, port), session)
            return
        try:
            tls = self.ca.server_context(host).wrap_socket(sock, server_side=True)
        except (ssl.SSLError, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
            self._record(
                t,
                {
                    "method": "CONNECT",
                    "target": authority,
                    "error": f"TLS handshake failed: {reason} (does the client trust the session CA? "
                    "see docs/cassettes.md)",
                    "reply": 502,
                    "outcome": "failed",
                },
            )
            return
        try:
            self._http(tls, ("https", host, port), session)
        finally:
            try:
                tls.unwrap()
            except (OSError, ValueError):
                pass

    def _bad(
        self,
        conn: h11.Connection,
        sock: socket.socket,
        why: str,
        tunnel: tuple[str, str, int] | None,
        t: float | None = None,
    ) -> None:
        """Record bytes that are not a request (nothing at all is not recorded) and answer 400."""
        received = conn.trailing_data[0]
        if t is None and not received and conn.their_state is h11.IDLE:
            return  # a connection that sent nothing (a port probe, our own wake-up)
        record: dict[str, Any] = {
            "error": why,
            "raw": text(received[:256]),
            "reply": 400,
            "outcome": "failed",
        }
        if tunnel is not None:
            record["tunnel"] = f"{tunnel[1]}:{tunnel[2]}"
        self._record(self.sink.now() if t is None else t, record)
        if conn.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            Responder(conn, sock).fail(400, why)

    def _record(self, t: float, record: dict[str, Any]) -> None:
        with self._lock:
            self.requests += 1
        self.sink.chunk(t, CHANNEL, orjson.dumps(record) + b"\n")

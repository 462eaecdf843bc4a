"""The recording backend of the HTTP cassette: every request goes to the real server.

`mcptape record --http-cassette` puts `proxy.CassetteProxy` in front of the server's HTTP(S) with
`Upstream` as its backend: each request is sent to its server (TLS verified against the system's
CAs, plus `--http-cassette-ca`), the response is forwarded to the client as it arrives and kept
whole for the exchange's line (`exchange.py`), written when the response is complete.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Sequence
from typing import Any

import h11

from mcptape.recorder.outbound.exchange import (
    BODY_KEPT,
    FAILED,
    last_header,
    outcome,
    request_line,
    response_line,
)
from mcptape.recorder.outbound.httpmsg import (
    HOP_BY_HOP,
    IO_TIMEOUT,
    READ_SIZE,
    Request,
    Responder,
    end_to_end,
    text,
)
from mcptape.recorder.outbound.proxy import CassetteProxy
from mcptape.recorder.sinks import Sink

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})  # they send Content-Length: 0 for an empty body


def failure(message: str, respond: Responder) -> dict[str, Any]:
    respond.fail(502, message)
    return {"error": message, "reply": 502, "outcome": FAILED}


# -- the recording backend -------------------------------------------------------------------
class Upstream:
    """Sends each request to its real server; TLS verified against the system store plus `extra_cas`."""

    def __init__(self, extra_cas: Sequence[str] = ()) -> None:
        from mcptape.recorder.outbound.tlsca import upstream_context

        self.extra_cas = list(extra_cas)
        self.context = upstream_context(self.extra_cas)  # a bad CA file fails here, before the spawn

    def session(self) -> UpstreamSession:
        return UpstreamSession(self.context, bool(self.extra_cas))

    def listener(self, sink: Sink) -> CassetteProxy:
        """The started proxy recording on `sink` (what `side_effects(http=...)` calls)."""
        return CassetteProxy(sink, self, request_line).start()


Link = tuple[socket.socket, h11.Connection]


class UpstreamSession:
    """The upstream connections of one client connection, kept alive between its requests."""

    def __init__(self, context: ssl.SSLContext, extra_cas: bool) -> None:
        self.context = context
        self.extra_cas = extra_cas
        self.links: dict[tuple[str, str, int], Link] = {}

    def close(self) -> None:
        for sock, _ in self.links.values():
            sock.close()
        self.links.clear()

    def _connect(self, request: Request) -> Link:
        sock = socket.create_connection((request.host, request.port), timeout=IO_TIMEOUT)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if request.scheme == "https":
            try:
                sock = self.context.wrap_socket(sock, server_hostname=request.host)
            except BaseException:
                sock.close()
                raise
        return sock, h11.Connection(h11.CLIENT)

    def _send(self, link: Link, request: Request) -> None:
        sock, conn = link
        headers = end_to_end(request.headers)
        if not any(name.lower() == "host" for name, _ in headers):
            headers.insert(0, ("Host", request.url.split("/")[2]))
        if request.body or request.method in BODY_METHODS:
            headers.append(("Content-Length", str(len(request.body))))
        head = h11.Request(
            method=request.method,
            target=request.path,
            headers=[(n.encode("utf-8"), v.encode("utf-8")) for n, v in headers],
        )
        sock.sendall(conn.send(head) + conn.send(h11.Data(data=request.body)) + conn.send(h11.EndOfMessage()))

    def _event(self, link: Link) -> h11.Event:
        sock, conn = link
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(sock.recv(READ_SIZE))
                continue
            assert isinstance(event, h11.Event)
            return event

    def _head(self, link: Link, request: Request) -> h11.Response:
        self._send(link, request)
        while True:
            event = self._event(link)
            if isinstance(event, h11.Response):
                return event
            if not isinstance(event, h11.InformationalResponse):  # 100 Continue, 103 Early Hints
                raise h11.RemoteProtocolError(f"unexpected {type(event).__name__} before the response")

    def exchange(self, request: Request, respond: Responder) -> dict[str, Any]:
        key = (request.scheme, request.host, request.port)
        where = f"{request.host}:{request.port}"
        link = self.links.pop(key, None)
        head: h11.Response | None = None
        if link is not None:  # a kept-alive connection the server may have closed meanwhile: once more
            try:
                head = self._head(link, request)
            except (OSError, h11.ProtocolError):
                link[0].close()
                link = None
        if link is None:
            try:
                link = self._connect(request)
            except ssl.SSLCertVerificationError as exc:
                hint = "" if self.extra_cas else " (a test server's CA: --http-cassette-ca FILE)"
                return failure(f"certificate of {where} not trusted: {exc.verify_message}{hint}", respond)
            except (OSError, ssl.SSLError) as exc:
                return failure(f"cannot connect to {where}: {exc.strerror or exc}", respond)
        try:
            if head is None:
                head = self._head(link, request)
        except (OSError, h11.ProtocolError) as exc:
            link[0].close()
            return failure(f"no response from {where}: {getattr(exc, 'strerror', None) or exc}", respond)
        return self._relay(link, key, head, request, respond)

    def _relay(
        self, link: Link, key: tuple[str, str, int], head: h11.Response, request: Request, respond: Responder
    ) -> dict[str, Any]:
        """Forward the response as it arrives; keep its body whole for the line."""
        headers = [(text(n), text(v)) for n, v in head.headers.raw_items()]
        chunked = last_header(headers, "transfer-encoding") is not None
        framed = not chunked and last_header(headers, "content-length") is not None
        drop = HOP_BY_HOP - {"content-length"} if framed else HOP_BY_HOP
        forward = [(n, v) for n, v in headers if n.lower() not in drop]
        respond.head(head.status_code, text(head.reason), forward)
        body = bytearray()
        truncated = False
        error = None
        try:
            while True:
                event = self._event(link)
                if isinstance(event, h11.Data):
                    respond.data(event.data)
                    if len(body) + len(event.data) > BODY_KEPT:
                        truncated = True
                        body += event.data[: BODY_KEPT - len(body)]
                    else:
                        body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    respond.end()
                    break
                else:
                    error = "the server closed the connection before the end of the response"
                    break
        except (OSError, h11.ProtocolError) as exc:
            error = f"the response was cut short: {getattr(exc, 'strerror', None) or exc}"
        sock, conn = link
        if error is None and conn.our_state is h11.DONE and conn.their_state is h11.DONE:
            conn.start_next_cycle()
            self.links[key] = link
        else:
            sock.close()
        if error is not None:
            respond.broken = True  # the client's response cannot be completed: close its connection
        version = "HTTP/" + text(head.http_version)
        line: dict[str, Any] = {
            "response": response_line(
                head.status_code, text(head.reason), version, headers, bytes(body), truncated
            ),
            "reply": head.status_code,
            "outcome": outcome(head.status_code),
        }
        if error is not None:
            line["error"] = error
        return line

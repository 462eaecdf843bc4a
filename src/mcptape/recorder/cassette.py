"""The HTTP cassette's lines, and the backend that records them: every request goes to the real server.

`mcptape record --http-cassette` puts `proxy.CassetteProxy` in front of the server's HTTP(S) with
this module's `Upstream` as its backend. Each exchange becomes one line on channel `http`, timed
when the request arrived and written when its response is complete:

    {"method": "GET", "url": "https://api.example/v1/items?page=2", "target": "/v1/items?page=2",
     "form": "origin", "tunnel": "api.example:443", "version": "HTTP/1.1",
     "headers": [["Host", "api.example"], ["Authorization", "<redacted>"]], "body": "",
     "response": {"status": 200, "reason": "OK", "version": "HTTP/1.1",
                  "headers": [["Content-Type", "application/json"], ["Content-Length", "11"]],
                  "body": "{\"items\":[]}"},
     "reply": 200, "outcome": "ok"}

A body is `body` (text, when it is valid UTF-8) or `body_b64`; a response body received with
`Content-Encoding: gzip` or `deflate` is kept decoded, marked `"decoded": "gzip"`; one larger than
`BODY_KEPT` is cut, marked `"truncated": true` (the client still gets all of it). An exchange that
got no response has `error` instead of `response`, and the client got `502`. Credentials in header
names and URLs are redacted as the HTTP sink does (`httpsink.redact_headers`, `redact_target`).
"""

from __future__ import annotations

import base64
import gzip
import socket
import ssl
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import h11

from mcptape.recorder.httpsink import redact_headers, redact_target
from mcptape.recorder.proxy import (
    HOP_BY_HOP,
    IO_TIMEOUT,
    READ_SIZE,
    CassetteProxy,
    Request,
    Responder,
    end_to_end,
    text,
)
from mcptape.recorder.sinks import Sink
from mcptape.recorder.tlsca import upstream_context

BODY_KEPT = 64 << 20  # bytes of one body kept in the transcript
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})  # they send Content-Length: 0 for an empty body
OK, FAILED = "ok", "failed"  # the line's `outcome`, as the HTTP sink's


def outcome(status: int) -> str:
    return OK if 200 <= status < 400 else FAILED


# -- the line --------------------------------------------------------------------------------
def body_fields(data: bytes) -> dict[str, str]:
    """`{"body": text}` for UTF-8, else `{"body_b64": base64}`."""
    try:
        return {"body": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"body_b64": base64.b64encode(data).decode("ascii")}


def body_bytes(fields: Mapping[str, Any]) -> bytes:
    """The bytes of a line's (or its response's) body; ValueError when they are not readable."""
    body = fields.get("body")
    if isinstance(body, str):
        return body.encode("utf-8", "surrogatepass")
    b64 = fields.get("body_b64")
    if isinstance(b64, str):
        return base64.b64decode(b64, validate=True)
    if body is None and b64 is None:
        return b""
    raise ValueError("body is not a string")


def request_line(request: Request) -> dict[str, Any]:
    """The request half of a line (redacted as the HTTP sink redacts)."""
    line: dict[str, Any] = {
        "method": request.method,
        "url": redact_target(request.url) if request.form != "bad" else redact_target(request.target),
        "target": redact_target(request.target),
        "form": request.form if request.form != "bad" else "origin",
    }
    if request.tunnel is not None:
        line["tunnel"] = request.tunnel
    line["version"] = request.version
    line["headers"] = redact_headers(request.headers)
    line.update(body_fields(request.body))
    return line


def _last(headers: Sequence[tuple[str, str]] | Sequence[list[str]], name: str) -> str | None:
    found = None
    for pair in headers:
        if pair[0].lower() == name:
            found = pair[1]
    return found


def decode_content(encoding: str | None, data: bytes) -> bytes | None:
    """`data` decoded from a gzip or deflate `Content-Encoding`, or None (another coding, or damaged)."""
    coding = (encoding or "").strip().lower()
    try:
        if coding in ("gzip", "x-gzip"):
            return gzip.decompress(data)
        if coding == "deflate":
            try:
                return zlib.decompress(data)
            except zlib.error:
                return zlib.decompress(data, -zlib.MAX_WBITS)  # raw deflate, as some servers send
    except (OSError, EOFError, zlib.error):
        return None
    return None


def encode_content(coding: str, data: bytes) -> bytes:
    """`data` encoded again for a `decoded` body served on replay."""
    if coding in ("gzip", "x-gzip"):
        return gzip.compress(data, mtime=0)
    return zlib.compress(data)


def response_line(
    status: int, reason: str, version: str, headers: list[tuple[str, str]], body: bytes, truncated: bool
) -> dict[str, Any]:
    response: dict[str, Any] = {
        "status": status,
        "reason": reason,
        "version": version,
        "headers": redact_headers(headers),
    }
    coding = _last(headers, "content-encoding")
    decoded = None if truncated or coding is None else decode_content(coding, body)
    if decoded is not None:
        assert coding is not None
        response.update(body_fields(decoded))
        response["decoded"] = coding.strip().lower()
    else:
        response.update(body_fields(body))
    if truncated:
        response["truncated"] = True
    return response


def failure(message: str, respond: Responder) -> dict[str, Any]:
    respond.fail(502, message)
    return {"error": message, "reply": 502, "outcome": FAILED}


# -- the recording backend -------------------------------------------------------------------
class Upstream:
    """Sends each request to its real server; TLS verified against the system store plus `extra_cas`."""

    def __init__(self, extra_cas: Sequence[str] = ()) -> None:
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
        framed = _last(headers, "transfer-encoding") is None and _last(headers, "content-length") is not None
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

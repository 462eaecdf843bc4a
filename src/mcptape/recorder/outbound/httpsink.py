"""A loopback HTTP/1.1 proxy that records every request it is asked to make and makes none.

The recorded server's `HTTP_PROXY`/`HTTPS_PROXY`/`ALL_PROXY` (both cases) point here. Every
request (absolute-URI, origin-form or `CONNECT`) becomes one JSON line on channel `http`:

    {"method": "POST", "target": "http://api.example/deploy", "form": "absolute",
     "version": "HTTP/1.1", "headers": [["Host", "api.example"], ["Authorization", "<redacted>"]],
     "content_length": 12, "body_size": 12, "reply": 200, "outcome": "ok"}

The line is recorded before the sink answers, then the connection is closed. What it answers:

* a plain-HTTP request: `200 OK` with an empty body (`reply` sets another status). A stand-in that
  failed every request would turn every HTTP tool's happy path into an error path, and every
  such error into an "action after a reject";
* `CONNECT` (the first step of HTTPS through a proxy): `502 Bad Gateway`. The sink cannot speak TLS
  for a host it does not reach, so an HTTPS request through it always fails;
* bytes that are not an HTTP request: `400`.

`outcome` is the sink's verdict on the action, for the check core's attribution: `"ok"` when the
sink answered 2xx (the request was delivered, as far as the server can tell), `"failed"` when it
answered an error, so the server's own error for that request reports the failed action rather
than a refusal. No outbound connection is ever opened: there is no code here that could open one.
Threads, not asyncio; imported only when `--http-sink` is given.
"""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Mapping
from typing import Any

from mcptape.recorder.listener import BadRequest, Listener
from mcptape.recorder.sinks import Sink

CHANNEL = "http"
HEAD_LIMIT = 64 * 1024  # request line + headers
IO_TIMEOUT = 10.0  # a client that stalls mid-request is given up on
REDACTED = "<redacted>"
URL_REDACTED = "REDACTED"
# Header and query-parameter names whose values are credentials.
SENSITIVE = re.compile(r"auth|cookie|token|secret|key|passw|session|signature|credential|csrf|xsrf", re.I)
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")

PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
NO_PROXY_VARS = ("NO_PROXY", "no_proxy")
SINK_URL_VAR = "MCPTAPE_HTTP_SINK"
DEFAULT_REPLY = 200  # what a plain-HTTP request gets
CONNECT_REPLY = 502  # what a CONNECT gets: no TLS is spoken for a host the sink does not reach
OK, FAILED = "ok", "failed"  # the record's `outcome`
REASONS = {
    200: "OK",
    201: "Created",
    202: "Accepted",
    204: "No Content",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


def outcome(status: int) -> str:
    """The sink's verdict on an action it answered with `status`."""
    return OK if 200 <= status < 300 else FAILED


def proxy_env(url: str) -> dict[str, str]:
    """The variables that send a child's HTTP(S) traffic to the sink at `url`."""
    env = dict.fromkeys(PROXY_VARS, url)
    env[SINK_URL_VAR] = url
    env["NODE_USE_ENV_PROXY"] = "1"  # Node >= 24.5 / 22.21: fetch and http honour the variables
    return env


class _Reader:
    """Buffered reads from a socket: lines for the head, counted discards for the body."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self.buf = bytearray()
        self.received = 0

    def _fill(self) -> bool:
        try:
            data = self.conn.recv(65536)
        except OSError as exc:  # a timeout or a reset: what arrived so far is still recorded
            raise BadRequest(f"connection lost: {exc.strerror or exc}") from None
        if not data:
            return False
        self.received += len(data)
        self.buf += data
        return True

    def head(self) -> bytes:
        """Everything up to and including the blank line that ends the head."""
        while True:
            for sep in (b"\r\n\r\n", b"\n\n"):
                end = self.buf.find(sep)
                if end >= 0:
                    head = bytes(self.buf[: end + len(sep)])
                    del self.buf[: end + len(sep)]
                    return head
            if len(self.buf) > HEAD_LIMIT:
                raise BadRequest(f"request head longer than {HEAD_LIMIT} bytes")
            if not self._fill():
                raise BadRequest("connection closed before the end of the request head")

    def line(self) -> bytes:
        while b"\n" not in self.buf:
            if len(self.buf) > HEAD_LIMIT:
                raise BadRequest("chunk-size line too long")
            if not self._fill():
                raise BadRequest("connection closed inside a chunked body")
        end = self.buf.index(b"\n") + 1
        line = bytes(self.buf[:end])
        del self.buf[:end]
        return line

    def discard(self, n: int) -> int:
        """Read and drop `n` bytes; return how many arrived before EOF."""
        got = 0
        while got < n:
            if not self.buf and not self._fill():
                break
            take = min(n - got, len(self.buf))
            del self.buf[:take]
            got += take
        return got

    def chunked(self) -> int:
        """Read a chunked body to its end; return its decoded size."""
        total = 0
        while True:
            size_line = self.line().split(b";", 1)[0].strip()
            try:
                size = int(size_line, 16)
            except ValueError:
                raise BadRequest(f"bad chunk size {size_line[:40]!r}") from None
            if size == 0:
                while self.line().strip():  # trailers, then the blank line
                    pass
                return total
            total += self.discard(size)
            self.line()  # CRLF after the chunk


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


def redact_headers(headers: list[tuple[str, str]]) -> list[list[str]]:
    """Header pairs in order, with credential-bearing values replaced by `<redacted>`, and the
    password of a URL's or an authority's userinfo in any other header (`Host: user:pw@host`, as
    http.client sends for a URL with credentials; `Referer: https://user:pw@...`) replaced."""
    return [[name, REDACTED if SENSITIVE.search(name) else redact_userinfo(value)] for name, value in headers]


def redact_userinfo(text: str) -> str:
    """A URL or an authority (`user:password@host:port`) with the password replaced."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "", text
    authority, slash, path = rest.partition("/")
    userinfo, at, hostport = authority.rpartition("@")
    if at and ":" in userinfo:
        userinfo = userinfo.split(":", 1)[0] + ":" + URL_REDACTED
        rest = f"{userinfo}@{hostport}{slash}{path}"
    return f"{scheme}{sep}{rest}"


def redact_target(target: str) -> str:
    """The request target (absolute, or CONNECT's authority) with a URL password and
    credential-named query values replaced."""
    target = redact_userinfo(target)
    base, q, query = target.partition("?")
    if not q:
        return target
    query, hash_, fragment = query.partition("#")
    parts = []
    for part in query.split("&"):
        name, eq, _value = part.partition("=")
        parts.append(f"{name}={URL_REDACTED}" if eq and SENSITIVE.search(name) else part)
    return f"{base}?{'&'.join(parts)}{hash_}{fragment}"


def target_form(method: str, target: str) -> str:
    """RFC 9112 request-target form: absolute, authority (CONNECT), asterisk or origin."""
    if method == "CONNECT":
        return "authority"
    if _ABSOLUTE.match(target):
        return "absolute"
    return "asterisk" if target == "*" else "origin"


def parse_head(head: bytes) -> dict[str, Any]:
    """Method, target, version and headers of a request head (raises BadRequest)."""
    lines = head.replace(b"\r\n", b"\n").split(b"\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not parts[0].isalpha() or not parts[2].startswith(b"HTTP/"):
        raise BadRequest("not an HTTP/1.x request line")
    method, target, version = (_text(p) for p in parts)
    headers: list[tuple[str, str]] = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            raise BadRequest(f"malformed header line {_text(line[:60])!r}")
        headers.append((_text(name), _text(value.strip())))
    return {"method": method, "target": target, "version": version, "headers": headers}


def _header(headers: list[tuple[str, str]], name: str) -> list[str]:
    return [v for k, v in headers if k.lower() == name]


class HttpSink(Listener):
    """The sink: `start()`, point the child at `url`, `stop()` when the child is gone (requests in
    flight, and connections made before `stop()`, are recorded first)."""

    accept_name = "mcptape-http-sink"
    conn_name = "mcptape-http-conn"
    serve_queued = True

    def __init__(self, sink: Sink, host: str = "127.0.0.1", reply: int = DEFAULT_REPLY) -> None:
        if not 200 <= reply <= 599 or reply in (204, 304):
            raise ValueError(f"reply must be an HTTP status from 200 to 599 with a body, not {reply}")
        self.sink = sink
        self.reply = reply
        self.requests = 0  # requests recorded (bad requests included)
        super().__init__(host)

    def env(self) -> dict[str, str]:
        """Environment variables that point a child at this sink."""
        return proxy_env(self.url)

    # -- serving ---------------------------------------------------------------------------
    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(IO_TIMEOUT)
            self._handle(conn)
        except OSError:
            pass  # the client went away before reading the answer; its request was recorded
        finally:
            conn.close()

    def _handle(self, conn: socket.socket) -> None:
        reader = _Reader(conn)
        try:
            head = reader.head()
        except BadRequest as exc:
            if not reader.received:
                return  # a connection that sent nothing (a port probe, our own wake-up)
            t = self.sink.now()
            self._record(
                t, {"error": str(exc), "raw": _text(bytes(reader.buf[:256])), "reply": 400, "outcome": FAILED}
            )
            _reply(conn, 400, "Bad Request", f"mcptape http sink: {exc}\n")
            return
        t = self.sink.now()
        try:
            req = parse_head(head)
        except BadRequest as exc:
            self._record(t, {"error": str(exc), "raw": _text(head[:256]), "reply": 400, "outcome": FAILED})
            _reply(conn, 400, "Bad Request", f"mcptape http sink: {exc}\n")
            return
        headers: list[tuple[str, str]] = req["headers"]
        method: str = req["method"]
        content_length, body_size, error = _read_body(reader, method, headers)
        status = 400 if error else CONNECT_REPLY if method == "CONNECT" else self.reply
        record: dict[str, Any] = {
            "method": method,
            "target": redact_target(req["target"]),
            "form": target_form(method, req["target"]),
            "version": req["version"],
            "headers": redact_headers(headers),
            "content_length": content_length,
            "body_size": body_size,
            "reply": status,
            "outcome": outcome(status),
        }
        if error:
            record["error"] = error
        self._record(t, record)
        if error:
            _reply(conn, 400, "Bad Request", f"mcptape http sink: {error}\n")
        elif status >= 300:
            text = f"mcptape http sink: {method} {record['target']} recorded, not forwarded\n"
            _reply(conn, status, REASONS.get(status, "Error"), text)
        else:  # a neutral stand-in answer: nothing to parse, nothing to follow
            _reply(conn, status, REASONS.get(status, "OK"), "", head_only=method == "HEAD")

    def _record(self, t: float, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        with self._lock:
            self.requests += 1
        self.sink.chunk(t, CHANNEL, line)


def _reply(conn: socket.socket, status: int, reason: str, body: str, head_only: bool = False) -> None:
    payload = body.encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(payload)}\r\n"
        "Connection: close\r\n"
        "X-Mcptape: not-forwarded\r\n"
        "\r\n"
    ).encode("ascii")
    conn.sendall(head if head_only else head + payload)
    try:
        conn.shutdown(socket.SHUT_WR)
        conn.settimeout(1.0)
        while conn.recv(65536):  # drain, so close() sends FIN rather than RST over unread bytes
            pass
    except OSError:
        pass


def _read_body(
    reader: _Reader, method: str, headers: list[tuple[str, str]]
) -> tuple[int | None, int, str | None]:
    """Read (and drop) a request's body as its headers frame it: its Content-Length, the bytes read,
    and what was wrong with the framing (None when nothing)."""
    content_length: int | None = None
    body_size = 0
    lengths = _header(headers, "content-length")
    chunked = any("chunked" in v.lower() for v in _header(headers, "transfer-encoding"))
    expects = any(v.lower() == "100-continue" for v in _header(headers, "expect"))
    try:
        if lengths:
            if len(set(lengths)) != 1 or not lengths[0].isdigit():
                raise BadRequest(f"invalid Content-Length {lengths!r}")
            content_length = int(lengths[0])
        if method != "CONNECT" and not expects:
            if chunked:
                body_size = reader.chunked()
            elif content_length:
                body_size = reader.discard(content_length)
    except BadRequest as exc:
        return content_length, body_size, str(exc)
    return content_length, body_size, None

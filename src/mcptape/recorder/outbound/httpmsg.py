"""The HTTP messages the cassette proxy passes between a client and a backend: the whole `Request`
it read, the `Responder` a backend answers through, and the hop-by-hop headers neither forwards.

`Backend.session()` gives one `BackendSession` per client connection; its `exchange(request,
respond)` answers through `respond` (head, data..., end, or `fail`) and returns the fields of the
answer for the exchange's line (`exchange.py`). The recording backend is `cassette.Upstream`, the
replaying one `replay.cassette.Player`.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any, Protocol

import h11

IO_TIMEOUT = 120.0  # a client or an upstream server silent this long is given up on
READ_SIZE = 65536
MAX_REQUEST_BODY = 256 << 20  # a request body larger than this is refused (413)
# Hop-by-hop headers (RFC 9110 7.6.1) and the framing headers the proxy sets itself.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "content-length",
        "expect",
    }
)
DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass
class Request:
    """One whole request as the server's client sent it."""

    method: str
    target: str  # the request-target as sent
    form: str  # "absolute" (plain HTTP via the proxy) or "origin" (inside a tunnel)
    version: str  # "HTTP/1.1"
    headers: list[tuple[str, str]]
    body: bytes
    scheme: str  # "http" or "https"
    host: str
    port: int
    path: str  # path and query, origin-form
    tunnel: str | None  # "host:port" of the CONNECT it came through

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if DEFAULT_PORTS.get(self.scheme) == self.port else f":{self.port}"
        return f"{self.scheme}://{host}{port}{self.path}"


class BackendSession(Protocol):
    """Answers the requests of one client connection."""

    def exchange(self, request: Request, respond: Responder) -> dict[str, Any]:
        """Answer `request` through `respond`; return the record's answer fields (`response`,
        `error`, `reply`, `outcome`)."""
        ...

    def close(self) -> None: ...


class Backend(Protocol):
    def session(self) -> BackendSession: ...


def text(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


def hop_by_hop(headers: list[tuple[str, str]]) -> frozenset[str]:
    """The lower-cased names not to forward: the fixed set and those named in `Connection`."""
    named = {
        token.strip().lower()
        for name, value in headers
        if name.lower() == "connection"
        for token in value.split(",")
    }
    return HOP_BY_HOP | named


def end_to_end(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    drop = hop_by_hop(headers)
    return [(name, value) for name, value in headers if name.lower() not in drop]


class Responder:
    """Sends one response to the client through its h11 connection. A client that went away
    makes the sends no-ops: the backend goes on, so its record is complete."""

    def __init__(self, conn: h11.Connection, sock: socket.socket) -> None:
        self.conn = conn
        self.sock = sock
        self.started = False
        self.broken = False

    def _send(self, event: h11.Event) -> None:
        if self.broken:
            return
        try:
            out = self.conn.send(event)
            if out:
                self.sock.sendall(out)
        except (OSError, h11.LocalProtocolError):
            self.broken = True

    def head(self, status: int, reason: str, headers: list[tuple[str, str]]) -> None:
        self.started = True
        self._send(
            h11.Response(
                status_code=status,
                reason=reason.encode("utf-8", "replace"),
                headers=[(n.encode("utf-8"), v.encode("utf-8")) for n, v in headers],
            )
        )

    def data(self, chunk: bytes) -> None:
        if chunk:
            self._send(h11.Data(data=chunk))

    def end(self) -> None:
        self._send(h11.EndOfMessage())

    def fail(self, status: int, message: str) -> None:
        """A short text answer from mcptape itself (the request could not be answered)."""
        payload = f"mcptape cassette: {message}\n".encode()
        self.head(
            status,
            {400: "Bad Request", 413: "Content Too Large"}.get(status, "Bad Gateway"),
            [
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", str(len(payload))),
                ("X-Mcptape", "cassette"),
            ],
        )
        self.data(payload)
        self.end()


def split_authority(authority: str, default: int | None) -> tuple[str, int]:
    """`host:port` (or `[v6]:port`, or `host` with a default port) -> (host, port); ValueError."""
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, colon, port_text = authority.rpartition(":")
        if not colon:
            host, port_text = authority, ""
    if not host:
        raise ValueError(authority)
    if not port_text:
        if default is None:
            raise ValueError(authority)
        return host.lower(), default
    port = int(port_text)
    if not 0 < port < 65536:
        raise ValueError(authority)
    return host.lower(), port

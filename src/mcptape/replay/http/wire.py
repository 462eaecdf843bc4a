"""HTTP requests and responses of a Streamable HTTP replay, without I/O (pure).

`RecordedRequest` reads a request an HTTP transcript kept (`http-in` of one exchange) with h11: its
method, target, header lines and body. `RecordedRequest.rebuilt` gives the bytes to send again: the
recorded bytes, changed only where the new session differs (the `Host` of the new proxy, the
`Mcp-Session-Id` the new server assigned, a body that carries another server's minted values and its
`Content-Length`, a header that repeats one of those values). The response is read as it comes by
`recorder.http.clientread.ResponseReader`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import h11

from mcptape.check.http.values import decoded
from mcptape.transcript.wire import header

SESSION = b"mcp-session-id"
_PLACED = frozenset({b"host", b"content-length", b"transfer-encoding", SESSION})


@dataclass(frozen=True)
class RecordedRequest:
    """A recorded request: `raw` as it was sent; `head` up to its blank line, and `body` decoded
    (chunked framing removed) when h11 read it whole (`whole`); otherwise it is sent as it was."""

    raw: bytes
    method: str = ""
    target: str = ""
    head: bytes = b""
    body: bytes = b""
    chunked: bool = False
    whole: bool = False

    @classmethod
    def read(cls, raw: bytes) -> RecordedRequest:
        conn = h11.Connection(h11.SERVER)
        conn.receive_data(raw)
        method = target = ""
        parts: list[bytes] = []
        chunked = False
        try:
            while True:
                event = conn.next_event()
                if event is h11.NEED_DATA or event is h11.PAUSED:
                    return cls(raw, method, target)
                if isinstance(event, h11.Request):
                    method, target = event.method.decode("latin-1"), event.target.decode("latin-1")
                    chunked = any(
                        n == b"transfer-encoding" and b"chunked" in v.lower() for n, v in event.headers
                    )
                elif isinstance(event, h11.Data):
                    parts.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    break
        except h11.ProtocolError:
            return cls(raw, method, target)
        head, sep, _ = raw.partition(b"\r\n\r\n")
        if not sep:
            return cls(raw, method, target)
        return cls(raw, method, target, head, b"".join(parts), chunked, True)

    def header(self, name: str) -> str | None:
        """The last value of header `name` (any case), or None."""
        return header(_fields(self.head), name)

    def rebuilt(
        self,
        *,
        host: str | None = None,
        session: Callable[[str], str | None] | None = None,
        body: bytes | None = None,
        values: Mapping[str, str] | None = None,
        origin: tuple[str, str] | None = None,
    ) -> bytes:
        """The request to send: `host` in `Host`; each `Mcp-Session-Id` the new one `session` gives
        (None: as recorded); `body` instead of the recorded one (its length or chunk set again);
        in every other header, each old value of `values` (also inside a `=?base64?...?=` value)
        made the new one; `origin` = (old authority, new): an `Origin` naming the old address names
        the new. Every other byte is the recorded one. A request h11 could not read whole is sent
        exactly as recorded."""
        if not self.whole:
            return self.raw
        new_body = self.body if body is None else body
        lines = self.head.split(b"\r\n")
        for i, line in enumerate(lines[1:], start=1):
            name, colon, value = line.partition(b":")
            if not colon:
                continue
            key = name.strip().lower()
            text = value.strip().decode("latin-1")
            new = text
            if key == b"host" and host is not None:
                new = host
            elif key == SESSION and session is not None:
                new = session(text) or text
            elif key == b"content-length" and body is not None and not self.chunked:
                new = str(len(new_body))
            elif (
                key == b"origin" and origin is not None and text.partition("://")[2].rstrip("/") == origin[0]
            ):
                new = text.replace(origin[0], origin[1], 1)
            elif values and key not in _PLACED:
                new = _swapped(text, values)
            if new != text:
                lines[i] = name + b": " + new.encode("latin-1")
        head = b"\r\n".join(lines) + b"\r\n\r\n"
        if body is None:
            return head + self.raw[len(self.head) + 4 :]
        if self.chunked:
            chunk = f"{len(new_body):x}\r\n".encode() + new_body + b"\r\n" if new_body else b""
            return head + chunk + b"0\r\n\r\n"
        return head + new_body


def _authority(origin: str) -> str:
    return origin.partition("://")[2].rstrip("/")


def _fields(head: bytes) -> list[tuple[str, str]]:
    out = []
    for line in head.split(b"\r\n")[1:]:
        name, colon, value = line.partition(b":")
        if colon:
            out.append((name.strip().decode("latin-1"), value.strip().decode("latin-1")))
    return out


def _swapped(text: str, values: Mapping[str, str]) -> str:
    """A header value with each old minted value made the new one (a base64 sentinel value is
    decoded, changed and encoded again)."""
    plain = decoded(text)
    if plain is None:
        return text
    changed = plain
    for old, new in values.items():
        if old in changed:
            changed = changed.replace(old, new)
    if changed == plain:
        return text
    if plain != text:  # it was `=?base64?...?=`
        return "=?base64?" + base64.b64encode(changed.encode("utf-8")).decode("ascii") + "?="
    try:
        changed.encode("latin-1")
    except UnicodeEncodeError:
        return "=?base64?" + base64.b64encode(changed.encode("utf-8")).decode("ascii") + "?="
    return changed

"""Small pure helpers of the HTTP transport rules (`transport.py`, `responses.py`): a body read as
one JSON value (or where it stops being one), a JSON-RPC message's kind and id, header values."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import orjson

from mcptape.textsafe import escape

QUOTED = 80  # bytes of a transcript value a finding's message quotes (then `...(+N bytes)`)


def quoted(value: str, limit: int = QUOTED) -> str:
    """A string of a JSON value (an id, a method) as a finding's message quotes it: in quotes,
    escaped and cut at `limit` bytes by `textsafe.escape` (`...(+N bytes)`), so a message stays
    short whatever the transcript holds."""
    return "'" + escape(value.encode("utf-8", "surrogatepass"), limit) + "'"


def quoted_header(value: str, limit: int = QUOTED) -> str:
    """A header value (read as latin-1: one character a byte) quoted as `quoted` does, from the bytes
    the wire carried (a 1 MiB session id is shown as its first `limit` bytes and their count)."""
    return "'" + escape(value.encode("latin-1", "replace"), limit) + "'"


def shown_id(value: object) -> str:
    """A JSON-RPC id (or progress token) as a message names it: an integer as is, a string quoted,
    anything else by its JSON type (never its whole value: it may nest 1000 deep)."""
    if type(value) is int:
        return str(value)
    if type(value) is str:
        return quoted(value)
    return "null" if value is None else f"a JSON {type(value).__name__}"


def ok(status: int) -> bool:
    return 200 <= status < 300


class Bad:
    """Why a body is not one JSON value, and the byte offset where it stops being one."""

    __slots__ = ("offset", "why")

    def __init__(self, offset: int, why: str) -> None:
        self.offset = offset
        self.why = why


def json_value(body: bytes) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return Bad(0, "not UTF-8")
        offset = len(text[: exc.pos].encode("utf-8"))
        return Bad(offset, exc.msg)


def lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def kind(value: object) -> str:
    if type(value) is not dict:
        return "other"
    if "method" in value:
        return "request" if "id" in value else "notification"
    if "result" in value or "error" in value:
        return "response"
    return "other"


def request_id(value: object) -> int | str | None:
    if type(value) is dict:
        rid = value.get("id")
        if type(rid) in (int, str):
            return rid
    return None


def decoded(value: str | None) -> str | None:
    """A header value, its `=?base64?...?=` sentinel form decoded."""
    if value is not None and value.startswith("=?base64?") and value.endswith("?="):
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return value
    return value


def differs(header: str, got: str | None, expected: str, source: str) -> str:
    if got is None:
        return f"{header} is missing ({source} is {quoted(expected)})"
    return f"{header} is {quoted_header(got)}, {source} is {quoted(expected)}"


def authority(origin: str) -> str:
    """`http://host:port` -> `host:port` (lower case)."""
    return origin.partition("://")[2].rstrip("/").lower()


def _hostname(authority_: str) -> str:
    """`host:port`, `[::1]:port` or `host` -> the host name (lower case, no brackets)."""
    if authority_.startswith("["):
        return authority_[1:].partition("]")[0]
    return authority_.rpartition(":")[0] if authority_.count(":") == 1 else authority_


def _loopback(name: str) -> bool:
    return (
        name == "localhost" or name == "::1" or (name.startswith("127.") and name.replace(".", "").isdigit())
    )


def same_machine(origin: str, host: str) -> bool:
    """True when both the Origin and the Host name this machine (localhost, 127.x, ::1): a local web
    app talking to a local server, which no DNS rebinding can forge (the Origin rule's purpose)."""
    return _loopback(_hostname(authority(origin))) and _loopback(_hostname(host.lower()))


def status_line(status: int) -> bytes:
    return f"HTTP status {status}".encode()


def accepts(accept: str | None, media: str) -> bool:
    """Whether an `Accept` header value lists `media` (`type/subtype`): the type itself, `type/*` or
    `*/*`, not excluded with `q=0` (RFC 9110, 12.5.1)."""
    if accept is None:
        return False
    kind = media.split("/", 1)[0]
    for part in accept.split(","):
        pieces = [p.strip().lower() for p in part.split(";")]
        if pieces[0] not in (media, f"{kind}/*", "*/*"):
            continue
        weights = [p[2:].strip() for p in pieces[1:] if p.startswith("q=")]
        if not weights or weights[0] not in ("0", "0.", "0.0", "0.00", "0.000"):
            return True
    return False

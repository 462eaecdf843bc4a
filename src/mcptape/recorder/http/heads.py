"""The heads the fast reader reads itself (`fastconn`): h11's grammar for a request line, a status
line and header fields, the h11 events made from them without h11's validation (`fastconn`
validated them), and the framing of the one body a head announces."""

from __future__ import annotations

import re

import h11

# h11's grammar (h11/_abnf.py), for the lines this module reads itself.
_TOKEN = rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+"
_FIELD_VCHAR = rb"[^\x00\s]"
_FIELD_CONTENT = rb"%s+(?:[ \t]+%s+)*" % (_FIELD_VCHAR, _FIELD_VCHAR)
HEADER_FIELD = re.compile(rb"(%s):[ \t]*((?:%s)?)[ \t]*" % (_TOKEN, _FIELD_CONTENT))
REQUEST_LINE = re.compile(rb"(%s) ([\x21-\x7e]+) HTTP/1\.1" % _TOKEN)
STATUS_LINE = re.compile(rb"HTTP/1\.1 ([0-9]{3})(?: ((?:[ \t]|%s)*))?" % _FIELD_VCHAR)
BLANK_LINE = re.compile(rb"\n\r?\n")  # where h11 ends a head
DIGITS = re.compile(rb"[0-9]{1,20}")  # h11 takes no longer Content-Length
CHUNK_HEADER = re.compile(rb"([0-9A-Fa-f]{1,20})(?:;.*)?[ \t]*\r\n")
SIZE_LINE = re.compile(rb"[0-9A-Fa-f]{1,20}\r\n")  # the common chunk header: its size alone


class Head(list[tuple[bytes, bytes]]):
    """A head's header lines as they came (the `raw_items()` the tap reads from h11's headers)."""

    def raw_items(self) -> list[tuple[bytes, bytes]]:
        return self


def request_event(method: bytes, target: bytes, headers: Head) -> h11.Request:
    """An h11 `Request` made without h11's validation (`fastconn` validated it)."""
    event = object.__new__(h11.Request)
    for name, value in (
        ("method", method),
        ("target", target),
        ("headers", headers),
        ("http_version", b"1.1"),
    ):
        object.__setattr__(event, name, value)
    return event


def response_event(status: int, reason: bytes, headers: Head) -> h11.Response:
    event = object.__new__(h11.Response)
    for name, value in (
        ("status_code", status),
        ("reason", reason),
        ("headers", headers),
        ("http_version", b"1.1"),
    ):
        object.__setattr__(event, name, value)
    return event


def header_fields(lines: list[bytes]) -> Head | None:
    """The header lines, each as h11's grammar reads it; None when one is not (obs-fold included)."""
    head = Head()
    match = HEADER_FIELD.fullmatch
    for line in lines:
        found = match(line)
        if found is None:
            return None
        head.append((found.group(1), found.group(2)))
    return head


CHUNKED = -1  # `body_length` of a chunked body


def body_length(headers: Head, *, request: bool) -> int | None:
    """The body's length, for a head whose framing this module reads: one Content-Length of digits
    (none on a request: no body) or one `Transfer-Encoding: chunked` (`CHUNKED`), not both; no
    Connection but keep-alive, no Expect or Upgrade, one Host on a request; None otherwise."""
    length: int | None = None if not request else 0
    hosts = lengths = codings = 0
    for name, value in headers:
        lower = name.lower()
        if lower == b"content-length":
            lengths += 1
            if not DIGITS.fullmatch(value):
                return None
            length = int(value)
        elif lower == b"transfer-encoding":
            codings += 1
            if value.lower() != b"chunked":
                return None
            length = CHUNKED
        elif lower == b"host":
            hosts += 1
        elif lower == b"connection":
            if value.lower() != b"keep-alive":
                return None
        elif lower in (b"expect", b"upgrade"):
            return None
    if lengths + codings > 1 or (request and hosts != 1):
        return None
    return length

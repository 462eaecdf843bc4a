"""The HTTP cassette's line: one exchange (request and response) as one JSON object on channel `http`.

Written by the recording proxy (`recorder/outbound/cassette.py`), read by the player (`replay/cassette.py`):

    {"method": "GET", "url": "https://api.example/v1/items?page=2", "target": "/v1/items?page=2",
     "form": "origin", "tunnel": "api.example:443", "version": "HTTP/1.1",
     "headers": [["Host", "api.example"], ["Authorization", "<redacted>"]], "body": "",
     "response": {"status": 200, "reason": "OK", "version": "HTTP/1.1",
                  "headers": [["Content-Type", "application/json"], ["Content-Length", "11"]],
                  "body": "{\"items\":[]}"},
     "reply": 200, "outcome": "ok"}

A body is `body` (text, when it is valid UTF-8) or `body_b64`; a response body received with
`Content-Encoding: gzip` or `deflate` is kept decoded, marked `"decoded": "gzip"` (and encoded
again when it is served); one larger than `BODY_KEPT` is cut, marked `"truncated": true` (the
client still got all of it). An exchange that got no response has `error` instead of `response`,
and the client got `502`. Credentials in header names and URLs are redacted as the HTTP sink does
(`httpsink.redact_headers`, `redact_target`). Pure, and light to import (no h11, no cryptography).
"""

from __future__ import annotations

import base64
import gzip
import zlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcptape.recorder.outbound.httpsink import redact_headers, redact_target

if TYPE_CHECKING:
    from mcptape.recorder.outbound.httpmsg import Request

BODY_KEPT = 64 << 20  # bytes of one body kept in the transcript
OK, FAILED = "ok", "failed"  # the line's `outcome`, as the HTTP sink's


def outcome(status: int) -> str:
    return OK if 200 <= status < 400 else FAILED


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


def last_header(headers: Sequence[tuple[str, str]] | Sequence[list[str]], name: str) -> str | None:
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
    coding = last_header(headers, "content-encoding")
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

"""Sessions as an HTTP Archive (HAR 1.2), for browser devtools and HAR viewers.

* An HTTP transcript gives one entry per recorded exchange, in the order of their numbers: the
  request's method, URL (the client's `Host` and target, under the scheme mcptape listened on),
  headers and body; the response's status, headers and body (an SSE stream as the text that crossed
  the wire, a chunked body de-chunked); timings from the recording (`send`: the request's first to
  last record; `wait`: to the response's first record; `receive`: to its last). An exchange the
  recording has no response for has status 0.
* A stdio transcript gives one entry per JSON-RPC call, on the pseudo URL
  `stdio://{server}/{method}?id={id}` (`stdio://echo_tool.py/tools/call?id=3`): method POST, the
  request line as the body, the answer line as the response (status 200; 0 when it never came),
  `mcp-method` as a request header; `wait` is the time to the answer.

Each transcript is a page (`pages[].id` its file name) and its entries name it (`pageref`). Custom
fields start with `_` as HAR allows: `_mcptape` (exchange number, event index, who sent the request,
the JSON-RPC error type). Bodies that are not UTF-8 are given in base64 (`encoding`).
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlsplit

import orjson

from mcptape.export.session import Call, Session
from mcptape.export.spans import service_name
from mcptape.export.wire import HttpExchange, Side
from mcptape.textsafe import escape_controls
from mcptape.version import __version__

UNKNOWN = -1  # HAR's "does not apply" for a timing or a size


def iso(ns: int) -> str:
    """An ISO 8601 date with milliseconds and a zone, as HAR's startedDateTime wants."""
    moment = datetime.fromtimestamp(ns / 1e9, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _ms(seconds: float) -> float:
    return round(max(seconds, 0.0) * 1000, 3)


def _text(body: bytes) -> dict[str, str]:
    try:
        return {"text": body.decode("utf-8")}
    except UnicodeDecodeError:
        return {"text": base64.b64encode(body).decode("ascii"), "encoding": "base64"}


def _headers(side: Side) -> list[dict[str, str]]:
    if side.head is None:
        return []
    return [{"name": name, "value": value} for name, value in side.head.headers]


def _query(url: str) -> list[dict[str, str]]:
    from urllib.parse import parse_qsl

    return [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(url).query, keep_blank_values=True)]


def _head_size(side: Side) -> int:
    return side.head_size if side.head is not None else UNKNOWN


def _wire_body(side: Side) -> int:
    """The body's bytes as they crossed the wire (chunk framing included)."""
    return side.size - side.head_size if side.head is not None else UNKNOWN


def http_entry(session: Session, exchange: HttpExchange) -> dict[str, Any]:
    request, response = exchange.request, exchange.response
    head = request.head
    listen = session.header.extra.get("http", {}).get("listen", "")
    scheme = urlsplit(listen).scheme if isinstance(listen, str) and listen else "http"
    host = head.get("host") if head is not None else None
    target = head.target if head is not None else "/"
    url = f"{scheme or 'http'}://{host or 'unknown'}{target}"
    har_request: dict[str, Any] = {
        "method": head.method if head is not None else "",
        "url": url,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": _headers(request),
        "queryString": _query(url),
        "headersSize": _head_size(request),
        "bodySize": _wire_body(request),
    }
    if head is not None and (request.body or head.method in ("POST", "PUT", "PATCH")):
        har_request["postData"] = {"mimeType": head.get("content-type") or "", **_text(request.body)}
    rhead = response.head
    mime = (rhead.get("content-type") if rhead is not None else None) or "x-unknown"
    har_response: dict[str, Any] = {
        "status": rhead.status if rhead is not None else 0,
        "statusText": exchange.status_text,
        "httpVersion": "HTTP/1.1",
        "cookies": [],
        "headers": _headers(response),
        "content": {"size": response.body_size, "mimeType": mime, **_text(response.body)},
        "redirectURL": (rhead.get("location") if rhead is not None else None) or "",
        "headersSize": _head_size(response),
        "bodySize": _wire_body(response),
    }
    first = request.first if request.first is not None else (response.first or 0.0)
    sent = request.last if request.last is not None else first
    answered = response.first if response.first is not None else sent
    done = response.last if response.last is not None else answered
    timings = {"send": _ms(sent - first), "wait": _ms(answered - sent), "receive": _ms(done - answered)}
    extra: dict[str, Any] = {"exchange": exchange.x}
    if response.cut or request.cut:
        extra["cut"] = {"request": request.cut, "response": response.cut}
    for name, side in (("request", request), ("response", response)):
        if side.broken:
            extra[f"{name}NotHttp"] = escape_controls(side.broken)
    return _entry(session, first, har_request, har_response, timings, extra)


def _entry(
    session: Session,
    first: float,
    request: dict[str, Any],
    response: dict[str, Any],
    timings: dict[str, float],
    extra: dict[str, Any],
) -> dict[str, Any]:
    return {
        "pageref": page_id(session),
        "startedDateTime": iso(session.wall_ns(first)),
        "time": round(sum(timings.values()), 3),
        "request": request,
        "response": response,
        "cache": {},
        "timings": {"blocked": UNKNOWN, "dns": UNKNOWN, "connect": UNKNOWN, "ssl": UNKNOWN, **timings},
        "_mcptape": extra,
    }


def stdio_url(server: str, call: Call) -> str:
    """`stdio://{server}/{method}?id={id}`, `server` already quoted."""
    rid = "" if call.request.id is None else "?id=" + quote(str(call.request.id), safe="")
    return f"stdio://{server}/{_path(call.method)}{rid}"


@lru_cache(maxsize=256)
def _path(method: str) -> str:
    return quote(escape_controls(method), safe="/")


def stdio_entry(session: Session, call: Call, server: str) -> dict[str, Any]:
    body = call.request.frame.body
    url = stdio_url(server, call)
    query = (
        [] if call.request.id is None else [{"name": "id", "value": escape_controls(str(call.request.id))}]
    )
    request = {
        "method": "POST",
        "url": url,
        "httpVersion": "JSON-RPC/2.0",
        "cookies": [],
        "headers": [
            {"name": "content-type", "value": "application/json"},
            {"name": "mcp-method", "value": escape_controls(call.method)},
        ],
        "queryString": query,
        "postData": {"mimeType": "application/json", **_text(body)},
        "headersSize": UNKNOWN,
        "bodySize": len(body),
    }
    answer = call.response.frame.body if call.response is not None else b""
    response = {
        "status": 200 if call.response is not None else 0,
        "statusText": "OK" if call.response is not None else "no answer",
        "httpVersion": "JSON-RPC/2.0",
        "cookies": [],
        "headers": [{"name": "content-type", "value": "application/json"}] if call.response else [],
        "content": {"size": len(answer), "mimeType": "application/json", **_text(answer)},
        "redirectURL": "",
        "headersSize": UNKNOWN,
        "bodySize": len(answer) if call.response is not None else UNKNOWN,
    }
    end = call.end if call.end is not None else call.start
    timings = {"send": 0.0, "wait": _ms(end - call.start), "receive": 0.0}
    extra: dict[str, Any] = {"event": call.request.frame.event, "sender": call.sender}
    if call.error is not None:
        extra["error"] = call.error
    return _entry(session, call.start, request, response, timings, extra)


def page_id(session: Session) -> str:
    return escape_controls(session.path.name)


def har(sessions: list[Session]) -> dict[str, Any]:
    """The HAR document of `sessions`."""
    entries: list[dict[str, Any]] = []
    pages = []
    for session in sessions:
        pages.append(
            {
                "startedDateTime": iso(session.wall_ns(0.0)),
                "id": page_id(session),
                "title": escape_controls(f"{service_name(session)} ({session.path.name})"),
                "pageTimings": {"onContentLoad": UNKNOWN, "onLoad": UNKNOWN},
            }
        )
        if session.http:
            entries.extend(http_entry(session, exchange) for exchange in session.exchanges)
        else:
            server = quote(service_name(session), safe="")
            entries.extend(stdio_entry(session, call, server) for call in session.calls)
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "mcptape", "version": __version__},
            "pages": pages,
            "entries": entries,
        }
    }


def har_bytes(sessions: list[Session]) -> bytes:
    return orjson.dumps(har(sessions), option=orjson.OPT_INDENT_2) + b"\n"

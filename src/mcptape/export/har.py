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
import io
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import orjson

from mcptape.check.model import IN
from mcptape.export.session import Call, Session
from mcptape.export.spans import service_name
from mcptape.export.wire import HttpExchange, Side
from mcptape.textsafe import escape_controls, escape_json
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

    query = url.partition("#")[0].partition("?")[2]  # as urlsplit, which raises on a bracket left open
    return [{"name": k, "value": v} for k, v in parse_qsl(query, keep_blank_values=True)]


def _head_size(side: Side) -> int:
    return side.head_size if side.head is not None else UNKNOWN


def _wire_body(side: Side) -> int:
    """The body's bytes as they crossed the wire (chunk framing included)."""
    return side.size - side.head_size if side.head is not None else UNKNOWN


def http_entry(session: Session, exchange: HttpExchange) -> dict[str, Any]:
    request, response = exchange.request, exchange.response
    head = request.head
    listen = session.header.extra.get("http", {}).get("listen", "")
    scheme = "https" if isinstance(listen, str) and listen[:8].lower() == "https://" else "http"
    host = head.get("host") if head is not None else None
    target = head.target if head is not None else "/"
    url = f"{scheme}://{host or 'unknown'}{target}"
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
    rid = call.request.id
    if rid is None:
        query = ""
    elif type(rid) is int:  # digits and a minus sign: nothing to quote
        query = f"?id={rid}"
    else:
        query = "?id=" + quote(str(rid), safe="", errors="surrogatepass")  # a lone "\\ud800" too
    return f"stdio://{server}/{_path(call.request.method or '')}{query}"


@lru_cache(maxsize=256)
def _path(method: str) -> str:
    return quote(escape_controls(method), safe="/")


@lru_cache(maxsize=256)
def _method_text(method: str) -> str:
    return escape_controls(method)


_JSON = "application/json"


def stdio_entry(session: Session, call: Call, server: str, page: str | None = None) -> dict[str, Any]:
    """The entry of one call of a stdio transcript (`page`: the session's `page_id`, made once by
    a caller that writes many). Over 60 lines on purpose: once per call of an export, the entry's
    members built in one pass from the messages' own fields (bench/bench_export.py)."""
    request = call.request
    frame = request.frame
    raw = frame.raw
    body = raw[:-1] if frame.complete and raw.endswith(b"\n") else raw
    rid = request.id
    method = request.method or ""
    har_request = {
        "method": "POST",
        "url": stdio_url(server, call),
        "httpVersion": "JSON-RPC/2.0",
        "cookies": [],
        "headers": [
            {"name": "content-type", "value": _JSON},
            {"name": "mcp-method", "value": _method_text(method)},
        ],
        "queryString": [] if rid is None else [{"name": "id", "value": escape_controls(str(rid))}],
        "postData": {"mimeType": _JSON, **_text(body)},
        "headersSize": UNKNOWN,
        "bodySize": len(body),
    }
    response = call.response
    start = frame.t
    if response is None:
        answer = b""
        end = start
    else:
        answered = response.frame
        got = answered.raw
        answer = got[:-1] if answered.complete and got.endswith(b"\n") else got
        end = max(answered.t, start)
    har_response = {
        "status": 0 if response is None else 200,
        "statusText": "no answer" if response is None else "OK",
        "httpVersion": "JSON-RPC/2.0",
        "cookies": [],
        "headers": [] if response is None else [{"name": "content-type", "value": _JSON}],
        "content": {"size": len(answer), "mimeType": _JSON, **_text(answer)},
        "redirectURL": "",
        "headersSize": UNKNOWN,
        "bodySize": UNKNOWN if response is None else len(answer),
    }
    wait = _ms(end - start)
    extra: dict[str, Any] = {"event": frame.event, "sender": "client" if frame.channel == IN else "server"}
    error = call.error
    if error is not None:
        extra["error"] = error
    return {
        "pageref": page_id(session) if page is None else page,
        "startedDateTime": iso(session.wall_ns(start)),
        "time": round(0.0 + wait + 0.0, 3),
        "request": har_request,
        "response": har_response,
        "cache": {},
        "timings": {
            "blocked": UNKNOWN,
            "dns": UNKNOWN,
            "connect": UNKNOWN,
            "ssl": UNKNOWN,
            "send": 0.0,
            "wait": wait,
            "receive": 0.0,
        },
        "_mcptape": extra,
    }


def page_id(session: Session) -> str:
    return escape_controls(session.path.name)


def _page(session: Session) -> dict[str, Any]:
    return {
        "startedDateTime": iso(session.wall_ns(0.0)),
        "id": page_id(session),
        "title": escape_controls(f"{service_name(session)} ({session.path.name})"),
        "pageTimings": {"onContentLoad": UNKNOWN, "onLoad": UNKNOWN},
    }


def _entries(session: Session) -> Iterator[dict[str, Any]]:
    if session.http:
        return (http_entry(session, exchange) for exchange in session.exchanges)
    server = quote(service_name(session), safe="", errors="surrogatepass")
    page = page_id(session)
    return (stdio_entry(session, call, server, page) for call in session.calls)


def har(sessions: list[Session]) -> dict[str, Any]:
    """The HAR document of `sessions`."""
    return {
        "log": {
            "version": "1.2",
            "creator": {"name": "mcptape", "version": __version__},
            "pages": [_page(session) for session in sessions],
            "entries": [entry for session in sessions for entry in _entries(session)],
        }
    }


_INDENT = orjson.OPT_INDENT_2
_NO_ENTRIES = b"[]\n  }\n}"  # how the indented document ends, its entries being the log's last member
_ENTRY = b"\n      "  # a line break inside an entry, which is three levels deep


def _safe(text: bytes) -> bytes:
    """JSON text with each character `textsafe` calls unsafe (DEL, C1, bidi, U+2028, which JSON
    encoders leave raw in a string) as its `\\uXXXX` escape: the same value, nothing a terminal
    (`export --format har` without -o) or a reader acts on."""
    if text.isascii() and b"\x7f" not in text:  # orjson escapes C0 controls: the common case
        return text
    return escape_json(text.decode("utf-8")).encode("utf-8")


def har_bytes(sessions: list[Session]) -> bytes:
    """`har(sessions)` as JSON indented by two spaces and a newline, the same bytes written an
    entry at a time (the document of a large session as one tree of dicts would be several times
    the size of its text; a test holds the two equal): each entry indented on its own, its lines
    moved three levels in (JSON strings hold no raw line break)."""
    head = har(sessions[:0])
    head["log"]["pages"] = [_page(session) for session in sessions]
    text = _safe(orjson.dumps(head, option=_INDENT))
    out = io.BytesIO()
    out.write(text[: -len(_NO_ENTRIES)])
    first = True
    for session in sessions:
        for entry in _entries(session):
            out.write(b"[" + _ENTRY if first else b"," + _ENTRY)
            out.write(_safe(orjson.dumps(entry, option=_INDENT)).replace(b"\n", _ENTRY))
            first = False
    out.write(_NO_ENTRIES if first else b"\n    ]\n  }\n}")
    out.write(b"\n")
    return out.getvalue()

"""The hard inputs of Streamable HTTP: what each sends, and what the specification says a server does.

Each case is a request a conforming client never sends, built on the valid request (a `tools/call`
of a read-only tool, or `tools/list`: `probe.cases.Call`) so that a server tolerating the fault runs
it and the executor tap or the HTTP sink shows it. Its JSON-RPC id is the case's marker. `Expect`
says what the specification asks of the server (docs/probe.md cites the sentence of each):

- `statuses`: the HTTP statuses the specification names for this input (a pass);
- `any_error`: any other 4xx is a pass too (the specification asks for "an HTTP error status code
  (e.g., 400 Bad Request)"); otherwise another 4xx is a warning that names the expected status;
- `accepted`: the verdict when the server ran it (answered it with a result): FAIL where a MUST
  is broken, a warning where the input is dubious but no MUST forbids serving it, a pass where the
  specification says to serve it.

The cases are pure values; `run` sends them, `judge` reads the answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from mcptape.probe.cases import INPUT, PROBE_META, Call, Case
from mcptape.probe.http.client import ACCEPT, JSON, HttpRequest
from mcptape.probe.observed import Verdict

PASS, WARN, FAIL = Verdict.PASS, Verdict.WARN, Verdict.FAIL
SESSION, VERSION = "Mcp-Session-Id", "MCP-Protocol-Version"
BAD_VERSION = "1999-01-01"


@dataclass(frozen=True)
class Wire:
    """What the valid session uses: its session id (None: the server minted none) and version."""

    session: str | None
    version: str | None


@dataclass(frozen=True)
class Expect:
    statuses: frozenset[int]
    any_error: bool
    accepted: Verdict
    spec: str  # the sentence the expectation rests on (and where)


@dataclass(frozen=True)
class HttpCase:
    """One hard input. `needs`: `session` (n/a when the server minted no session id), `ended` (the
    request goes in a session the probe opened and ended with DELETE first)."""

    case: Case
    build: Callable[[Call, Wire, str, int], HttpRequest]
    expect: Expect
    needs: str | None = None
    stream: bool = False  # a GET: an event stream is an answer, read up to its headers


def headers(wire: Wire, **changed: str | None) -> list[tuple[str, str | None]]:
    """The headers of a valid POST in `wire`'s session, with `changed` ones replaced or left out
    (None); a keyword names a header with `_` for `-`."""
    base: dict[str, str | None] = {
        "Content-Type": JSON,
        "Accept": ACCEPT,
        SESSION: wire.session,
        VERSION: wire.version,
    }
    for key, value in changed.items():
        base[key.replace("_", "-")] = value
    return list(base.items())


def request(call: Call, marker: str, **meta: Any) -> dict[str, Any]:
    return call.request(marker, meta={PROBE_META: marker, **meta})


def body(call: Call, marker: str) -> bytes:
    return orjson.dumps(request(call, marker))


def _not_json(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire), body(call, marker) + f" Server ready ({marker})".encode())


def _not_utf8(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    raw = orjson.dumps(call.request(marker, meta={PROBE_META: "@@BAD@@"}))
    return HttpRequest("POST", headers(wire), raw.replace(b"@@BAD@@", marker.encode() + b" \xff\xfe\xc3"))


def _array(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire), b"[" + body(call, marker) + b"]")


def _text_plain(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire, Content_Type="text/plain;charset=UTF-8"), body(call, marker))


def _no_type(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire, Content_Type=None), body(call, marker))


def _no_session(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire, Mcp_Session_Id=None), body(call, marker))


def _foreign_session(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire, Mcp_Session_Id=marker), body(call, marker))


def _no_version(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire, MCP_Protocol_Version=None), body(call, marker))


def _bad_version(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire, MCP_Protocol_Version=BAD_VERSION), body(call, marker))


def _oversized(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    head = orjson.dumps(request(call, marker, padding=""))
    pad = max(0, oversize - len(head))
    return HttpRequest(
        "POST", headers(wire), head.replace(b'"padding":""', b'"padding":"' + b"x" * pad + b'"')
    )


def _get(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest(
        "GET", [("Accept", "text/event-stream"), (SESSION, wire.session), (VERSION, wire.version)]
    )


def _after_delete(call: Call, wire: Wire, marker: str, oversize: int) -> HttpRequest:
    return HttpRequest("POST", headers(wire), body(call, marker))  # `wire`: the session just ended


CANNOT_ACCEPT = (
    '2025-11-25 and 2026-07-28 "Sending Messages": the body "MUST be a single JSON-RPC request"; '
    '"If the server cannot accept it, it MUST return an HTTP error status code (e.g., 400 Bad Request)"'
)
ANY_4XX = frozenset({400})

HTTP_CASES: tuple[HttpCase, ...] = (
    HttpCase(
        Case("http-not-json", INPUT, "POST of a valid {request} followed by a banner: not one JSON value"),
        _not_json,
        Expect(ANY_4XX, True, FAIL, CANNOT_ACCEPT),
    ),
    HttpCase(
        Case("http-not-utf8", INPUT, "POST of {request} with bytes that are not UTF-8 (in _meta)"),
        _not_utf8,
        Expect(
            ANY_4XX, True, FAIL, 'transports: "JSON-RPC messages MUST be UTF-8 encoded"; ' + CANNOT_ACCEPT
        ),
    ),
    HttpCase(
        Case("http-json-array", INPUT, "POST of a JSON array holding {request} (a batch)"),
        _array,
        Expect(ANY_4XX, True, FAIL, CANNOT_ACCEPT + " (batches only in 2025-03-26)"),
    ),
    HttpCase(
        Case("http-text-plain", INPUT, "POST of {request} with Content-Type: text/plain", lenient=True),
        _text_plain,
        Expect(
            frozenset({415, 400}),
            True,
            WARN,
            "no MUST names the request's Content-Type; a browser sends text/plain to any origin without "
            "a CORS preflight, which is why servers 'MUST validate the Origin header' (2025-11-25, "
            "Security Warning)",
        ),
    ),
    HttpCase(
        Case("http-no-content-type", INPUT, "POST of {request} without a Content-Type", lenient=True),
        _no_type,
        Expect(frozenset({415, 400}), True, WARN, "as http-text-plain: the body is not declared JSON"),
    ),
    HttpCase(
        Case(
            "http-no-session",
            INPUT,
            "POST of {request} without the Mcp-Session-Id it was given",
            lenient=True,
        ),
        _no_session,
        Expect(
            ANY_4XX,
            True,
            WARN,
            '2025-11-25 Session Management: "Servers that require a session ID SHOULD respond to requests '
            'without an MCP-Session-Id header (other than initialization) with HTTP 400 Bad Request"',
        ),
        needs="session",
    ),
    HttpCase(
        Case(
            "http-foreign-session",
            INPUT,
            "POST of {request} with a session id the server never gave",
            lenient=True,
        ),
        _foreign_session,
        Expect(
            frozenset({404}),
            True,
            WARN,
            '2025-11-25 Session Management: a session the server does not hold is answered "with HTTP '
            '404 Not Found" (the rule for a terminated one); a server that mints ids binds requests to them',
        ),
        needs="session",
    ),
    HttpCase(
        Case(
            "http-no-protocol-version", INPUT, "POST of {request} without MCP-Protocol-Version", lenient=True
        ),
        _no_version,
        Expect(
            ANY_4XX,
            False,
            PASS,
            '2025-11-25 Protocol Version Header: without it "the server SHOULD assume protocol version '
            '2025-03-26"; 2026-07-28: it "MAY treat a request that omits the header as protocol version '
            '2025-03-26", else "MUST reject" it (400): serving it or 400 are both right',
        ),
    ),
    HttpCase(
        Case(
            "http-bad-protocol-version",
            INPUT,
            f"POST of {{request}} with MCP-Protocol-Version: {BAD_VERSION}",
        ),
        _bad_version,
        Expect(
            ANY_4XX,
            False,
            FAIL,
            '2025-11-25 Protocol Version Header: "If the server receives a request with an invalid or '
            'unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request" (2026-07-28: the same)',
        ),
    ),
    HttpCase(
        Case("http-oversized", INPUT, "POST of {request} padded to an oversized body", lenient=True),
        _oversized,
        Expect(
            frozenset({413, 400}),
            True,
            WARN,
            "no size is named: refusing it (413) or running it as the valid call it is are both right; "
            "running it says the server sets no limit on a body",
        ),
    ),
    HttpCase(
        Case("http-get", INPUT, "GET of the endpoint (where JSON-RPC is POSTed)", uses_call=False),
        _get,
        Expect(
            frozenset({405}),
            False,
            PASS,
            '2025-11-25 Listening for Messages: "The server MUST either return Content-Type: '
            'text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed"; '
            "2026-07-28: GET SHOULD get 405",
        ),
        stream=True,
    ),
    HttpCase(
        Case("http-after-delete", INPUT, "POST of {request} in a session ended by DELETE"),
        _after_delete,
        Expect(
            frozenset({404}),
            False,
            FAIL,
            '2025-11-25 Session Management: "The server MAY terminate the session at any time, after which '
            'it MUST respond to requests containing that session ID with HTTP 404 Not Found"',
        ),
        needs="ended",
    ),
)

HTTP_BY_ID = {c.case.id: c for c in HTTP_CASES}

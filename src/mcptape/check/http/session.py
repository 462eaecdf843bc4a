"""The session and status rules of Streamable HTTP, judged on an HTTP transcript's exchanges.

`HttpTransport` (transport.py) calls `SessionRules` at three places: a request read whole
(`request`), a response's head read (`response_head`), and each JSON-RPC message a response carried,
its JSON body or one SSE event (`carried`). What is judged, each with the sentence of the
specification it enforces (docs/http.md has the table):

* a session id the server sends that is not visible ASCII (`http-session-id-chars`);
* a request of a session its DELETE ended, answered as if the session were alive
  (`http-ended-session-served`);
* the same message sent on two SSE streams of a session (`http-broadcast`);
* a request without the session id the server assigned (`http-session-missing`), served anyway
  (`http-session-missing-accepted`);
* an answer to a 2026-07-28 request that carries a session id (`http-modern-session`);
* a 2026-07-28 JSON-RPC error sent with another HTTP status than the one it goes with
  (`http-error-status`).

Everything here is pure: the state is what earlier exchanges taught (sessions assigned and ended,
messages seen per session, whether the server speaks 2026-07-28), in bounded tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import orjson

from mcptape.check.http.sessionrules import (
    ERROR_STATUS,
    HTTP_BROADCAST,
    HTTP_ENDED_SESSION_SERVED,
    HTTP_ERROR_STATUS,
    HTTP_MODERN_SESSION,
    HTTP_SESSION_ID_CHARS,
    HTTP_SESSION_MISSING,
    HTTP_SESSION_MISSING_ACCEPTED,
)
from mcptape.check.http.values import ok, status_line
from mcptape.check.model import CLIENT
from mcptape.check.protocol import is_stateless, meta_version

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Exchange

SESSION_HEADER = "mcp-session-id"
MAX_SEEN = 4096  # identifiable messages remembered per session (the oldest forgotten first)
MAX_SESSIONS = 256  # sessions whose messages are remembered at once
MAX_REPORTED = 1024  # session ids already reported (not visible ASCII)


class Say(Protocol):
    """`HttpTransport._say`: one finding on an exchange's request or response."""

    def __call__(
        self,
        rule: str,
        exchange: Exchange,
        response: bool,
        offset: int,
        raw: bytes,
        message: str,
        event: int,
        party: str | None = None,
    ) -> None: ...


def visible_ascii(value: str) -> bool:
    """Whether every character of `value` is visible ASCII (0x21 to 0x7E)."""
    return all("\x21" <= c <= "\x7e" for c in value)


def modern_shaped(exchange: Exchange) -> bool:
    """A 2026-07-28 request: its body's `_meta` states a protocol version (of any value: legacy
    requests carry none), or its MCP-Protocol-Version header names 2026-07-28 or later."""
    value = exchange.value
    if type(value) is dict and meta_version(value.get("params")) is not None:
        return True
    head = exchange.request.head
    return head is not None and is_stateless(head.get("mcp-protocol-version"))


def _stateless(exchange: Exchange) -> bool:
    """A 2026-07-28 request by the version it states (body `_meta`, else its header)."""
    value = exchange.value
    stated = meta_version(value.get("params")) if type(value) is dict else None
    if stated is not None:
        return is_stateless(stated)
    head = exchange.request.head
    return head is not None and is_stateless(head.get("mcp-protocol-version"))


def identity(value: dict[str, Any]) -> str | None:
    """What makes a server message one message: a request's id (never reused in a session), a
    progress notification's token and value (progress increases with each one); None for a message
    two of which may be alike (a log line, a list_changed)."""
    method = value.get("method")
    if type(method) is not str:
        return None
    rid = value.get("id")
    if type(rid) is int or type(rid) is str:
        return f"the server request {method} (id {rid!r})"
    params = value.get("params")
    if method == "notifications/progress" and type(params) is dict:
        token, progress = params.get("progressToken"), params.get("progress")
        if type(token) in (int, str) and type(progress) in (int, float):
            return f"the progress notification {progress!r} of token {token!r}"
    return None


def _bounded_add(table: dict[Any, Any], key: Any, value: Any, cap: int) -> None:
    if len(table) >= cap:
        del table[next(iter(table))]
    table[key] = value


class SessionRules:
    """What earlier exchanges taught about sessions, and the findings they make of later ones."""

    def __init__(self, say: Say) -> None:
        self.say = say
        self.first_assigned: float | None = None  # when an initialize answer first assigned a session
        self.ended: dict[str, float] = {}  # session id -> when its DELETE was answered 2xx
        self.reported: dict[str, None] = {}  # session ids already said not to be visible ASCII
        self.seen: dict[str, dict[int, int]] = {}  # session -> hash of a message -> its exchange
        self.modern_server = False  # the server answered a 2026-07-28 request as a 2026-07-28 server

    # -- the request ---------------------------------------------------------------------------
    def _without_session(self, exchange: Exchange) -> bool:
        """A request of the handshake era, sent after a session was assigned, without a session id
        (an initialize opens a session: it has none; a 2026-07-28 request needs none)."""
        head, value = exchange.request.head, exchange.value
        if head is None or self.first_assigned is None or exchange.request.t < self.first_assigned:
            return False
        if head.get(SESSION_HEADER) is not None or modern_shaped(exchange):
            return False
        if head.method == "POST":
            return type(value) is dict and value.get("method") != "initialize"
        return head.method in ("GET", "DELETE")

    def request(self, exchange: Exchange) -> None:
        """ "If an `MCP-Session-Id` is returned by the server during initialization, clients using
        the Streamable HTTP transport **MUST** include it in the `MCP-Session-Id` header on all of
        their subsequent HTTP requests." (2025-03-26 to 2025-11-25)"""
        if self._without_session(exchange):
            self.say(
                HTTP_SESSION_MISSING,
                exchange,
                False,
                0,
                exchange.request_line(),
                "a request without the Mcp-Session-Id header, after the server assigned a session"
                " (clients MUST include it on all subsequent requests)",
                exchange.request.first_event,
                CLIENT,
            )

    # -- the response's head ------------------------------------------------------------------------
    def response_head(self, exchange: Exchange) -> None:
        request, head = exchange.request.head, exchange.response.head
        if head is None:
            return
        assigned = head.get(SESSION_HEADER)
        if assigned is not None:
            self._assigned(exchange, assigned)
        if request is None:
            return
        sent = request.get(SESSION_HEADER)
        if sent is not None and request.method == "DELETE" and ok(head.status):
            self.ended.setdefault(sent, exchange.response.t)
        elif sent is not None and sent in self.ended and exchange.request.t > self.ended[sent]:
            self._ended_served(exchange, sent, head.status)
        if ok(head.status) and self._without_session(exchange):
            self._respond(
                HTTP_SESSION_MISSING_ACCEPTED,
                exchange,
                status_line(head.status),
                f"a request without the session id the server assigned was answered {head.status}"
                " (servers that require a session id SHOULD answer 400 Bad Request)",
            )

    def _assigned(self, exchange: Exchange, assigned: str) -> None:
        value = exchange.value
        if _stateless(exchange):
            self._respond(
                HTTP_MODERN_SESSION,
                exchange,
                f"Mcp-Session-Id: {assigned}".encode("latin-1", "replace"),
                f"the answer to a 2026-07-28 request carries Mcp-Session-Id {assigned!r} (the revision"
                " has no sessions: a server SHOULD neither mint nor echo session ids)",
            )
        elif type(value) is dict and value.get("method") == "initialize" and self.first_assigned is None:
            self.first_assigned = exchange.response.t
        if not visible_ascii(assigned) and assigned not in self.reported:
            _bounded_add(self.reported, assigned, None, MAX_REPORTED)
            shown = ", ".join(f"{ord(c):#04x}" for c in dict.fromkeys(assigned) if not "\x21" <= c <= "\x7e")
            self._respond(
                HTTP_SESSION_ID_CHARS,
                exchange,
                f"Mcp-Session-Id: {assigned}".encode("latin-1", "replace"),
                f"the session id {assigned!r} has characters outside visible ASCII 0x21-0x7E ({shown})",
            )

    def _ended_served(self, exchange: Exchange, session: str, status: int) -> None:
        """ "The server **MAY** terminate the session at any time, after which it **MUST** respond
        to requests containing that session ID with HTTP 404 Not Found." (2025-03-26 to 2025-11-25:
        a DELETE the server accepted terminates it)"""
        if status >= 400:
            return  # refused (404, or a refusal that comes first: Origin, authorization)
        self._respond(
            HTTP_ENDED_SESSION_SERVED,
            exchange,
            status_line(status),
            f"a request of session {session!r}, which a DELETE ended, was answered {status}"
            " (MUST be 404 Not Found)",
        )

    def _respond(self, rule: str, exchange: Exchange, raw: bytes, message: str, offset: int = 0) -> None:
        self.say(rule, exchange, True, offset, raw, message, exchange.response.first_event)

    # -- the messages a response carried ------------------------------------------------------------
    def carried(self, exchange: Exchange, value: Any, offset: int, sse: bool) -> None:
        """One JSON-RPC message of a response: its JSON body (`offset` 0) or an SSE event's data
        (`offset` where the event starts in the stream)."""
        if type(value) is not dict:
            return
        if "method" not in value and modern_shaped(exchange):
            if type(value.get("result")) is dict and "resultType" in value["result"]:
                self.modern_server = True
            error = value.get("error")
            if type(error) is dict and type(error.get("code")) is int:
                self._error_status(exchange, value, error["code"], offset)
        if sse:
            self._broadcast(exchange, value, offset)

    def _error_status(self, exchange: Exchange, value: dict[str, Any], code: int, offset: int) -> None:
        """The status a 2026-07-28 error goes with (docs/http.md cites each sentence): -32601 with
        404, -32020, -32021 and -32022 with 400. -32601 is judged once the server showed it speaks
        2026-07-28 (a legacy server may refuse a modern request with it, at any status)."""
        expected = ERROR_STATUS.get(code)
        head = exchange.response.head
        if expected is None or head is None or head.status == expected:
            return
        if code == -32601 and not self.modern_server:
            return
        if code == -32020 and exchange.mismatch is not None and ok(head.status):
            return  # http-mismatch-accepted says it
        asked = exchange.value.get("id") if type(exchange.value) is dict else None
        if value.get("id") not in (None, asked):
            return  # another request's answer: http-wrong-stream
        if code != -32601:
            self.modern_server = True
        self._respond(
            HTTP_ERROR_STATUS,
            exchange,
            orjson.dumps(value),
            f"the 2026-07-28 error {code} was sent with HTTP status {head.status} (MUST be {expected})",
            offset,
        )

    def _broadcast(self, exchange: Exchange, value: dict[str, Any], offset: int) -> None:
        """ "The server **MUST** send each of its JSON-RPC messages on only one of the connected
        streams; that is, it **MUST NOT** broadcast the same message across multiple streams."
        (2025-03-26 to 2025-11-25; a stream resumed with Last-Event-ID may replay its messages)"""
        request = exchange.request.head
        what = identity(value)
        if what is None or request is None or request.get("last-event-id") is not None:
            return
        session = request.get(SESSION_HEADER)
        if session is None:
            return  # without a session, the streams of one client cannot be told from another's
        seen = self.seen.get(session)
        if seen is None:
            seen = {}
            _bounded_add(self.seen, session, seen, MAX_SESSIONS)
        key = hash(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))
        first = seen.get(key)
        if first is None:
            _bounded_add(seen, key, exchange.x, MAX_SEEN)
        elif first != exchange.x:
            self.say(
                HTTP_BROADCAST,
                exchange,
                True,
                offset,
                orjson.dumps(value),
                f"{what} was sent on the stream of exchange {first} too (the server MUST NOT"
                " broadcast a message across streams)",
                exchange.response.last_event,
            )

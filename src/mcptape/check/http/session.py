"""The session and status rules of Streamable HTTP, judged on an HTTP transcript's exchanges.

`HttpTransport` (transport.py) calls `SessionRules` at four places: a request read whole
(`request`), a response's head read (`response_head`), each JSON-RPC message a response carried,
its JSON body or one SSE event (`carried`), and a response's end (`done`). What is judged, each
with the sentence of the specification it enforces (docs/http.md has the table):

* a session id the server sends that is not visible ASCII (`http-session-id-chars`);
* a request of a session its DELETE ended, answered as if the session were alive
  (`http-ended-session-served`);
* the same message sent on two SSE streams of a session (`http-broadcast`, check/http/broadcast.py);
* a request to the MCP endpoint without the session id the server assigned (`http-session-missing`);
* a server that supports only 2026-07-28 echoing or minting a session id on a 2xx answer to a
  request carrying one (`http-modern-session`);
* a 2026-07-28 JSON-RPC error sent with another HTTP status than the one it goes with
  (`http-error-status`).

Everything here is pure: the state is what earlier exchanges taught (sessions assigned and ended,
messages seen per session, the revisions the server speaks), in bounded tables keyed by a session
id's digest when it is long. A message quotes a value cut short (values.quoted) and a message's
bytes are the bytes the transcript holds, never the message encoded again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcptape.check.http.broadcast import SESSION_HEADER, Key, Streams, bounded_add, sid_key
from mcptape.check.http.sessionrules import (
    ERROR_STATUS,
    HTTP_BROADCAST,
    HTTP_ENDED_SESSION_SERVED,
    HTTP_ERROR_STATUS,
    HTTP_MODERN_SESSION,
    HTTP_SESSION_ID_CHARS,
    HTTP_SESSION_MISSING,
)
from mcptape.check.http.values import ok, quoted_header, status_line
from mcptape.check.model import CLIENT
from mcptape.check.protocol import STATELESS_VERSION, is_stateless, meta_version

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Exchange, Head
    from mcptape.check.http.findings import Say

MAX_REPORTED = 1024  # session ids already reported, per rule (the oldest forgotten first)
MAX_ENDED = 1024  # sessions a DELETE ended (the oldest forgotten first)
SHOWN = 4096  # characters of a session id a finding's bytes keep
SHOWN_CHARS = 8  # offending characters of a session id a message names
MODERN_ERRORS = (-32020, -32021, -32022)  # errors only a 2026-07-28 server sends


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


def endpoint_path(target: str) -> str:
    """The path a request target names: `/mcp` of `/mcp?x=1` or of `http://host:9/mcp`."""
    path = target.partition("?")[0].partition("#")[0]
    if "://" in path:
        path = "/" + path.partition("://")[2].partition("/")[2]
    return path


def _older(version: object) -> bool:
    """A protocol version before 2026-07-28 (a date)."""
    return type(version) is str and len(version) == 10 and version[4] == "-" and version < STATELESS_VERSION


def _header(session: str) -> bytes:
    return f"Mcp-Session-Id: {session[:SHOWN]}".encode("latin-1", "replace")


class SessionRules:
    """What earlier exchanges taught about sessions, and the findings they make of later ones."""

    def __init__(self, say: Say) -> None:
        self.say = say
        self.first_assigned: float | None = None  # when an initialize answer first assigned a session
        self.endpoint: str | None = None  # the path of the first POST of a JSON-RPC request: the MCP endpoint
        self.ended: dict[Key, float] = {}  # session -> when its DELETE was answered 2xx
        self.reported: dict[tuple[str, Key], None] = {}  # (rule, session id) already reported
        self.streams = Streams()  # the messages of each session's SSE streams (http-broadcast)
        # -32601 is judged: a 2026-07-28 request was answered a result with resultType, or a -3202x error
        self.modern_server = False
        self.speaks_modern = False  # it answered server/discover, or a 2026-07-28 request with a result
        self.speaks_older = False  # it answered an initialize, or its server/discover named an older version

    @property
    def modern_only(self) -> bool:
        """The server is known to support only 2026-07-28 (as far as the transcript has shown)."""
        return self.speaks_modern and not self.speaks_older

    def _first(self, rule: str, session: str) -> bool:
        """Whether `rule` has not yet been reported for this session id (now it has)."""
        key = (rule, sid_key(session))
        if key in self.reported:
            return False
        bounded_add(self.reported, key, None, MAX_REPORTED)
        return True

    def for_endpoint(self, head: Head) -> bool:
        """A request to the MCP endpoint, the path the first POST of a JSON-RPC request or notification
        went to (not, say, OAuth metadata under /.well-known/: before that POST, any other path)."""
        path = endpoint_path(head.target)
        return path == self.endpoint if self.endpoint is not None else not path.startswith("/.well-known/")

    # -- the request ---------------------------------------------------------------------------
    def _without_session(self, exchange: Exchange) -> bool:
        """A request of the handshake era to the MCP endpoint, sent after a session was assigned,
        without a session id (an initialize opens a session: it has none; a 2026-07-28 request needs
        none)."""
        head, value = exchange.request.head, exchange.value
        if head is None or self.first_assigned is None or exchange.request.t < self.first_assigned:
            return False
        if head.get(SESSION_HEADER) is not None or modern_shaped(exchange) or not self.for_endpoint(head):
            return False
        if head.method == "POST":
            return type(value) is dict and value.get("method") != "initialize"
        return head.method in ("GET", "DELETE")

    def request(self, exchange: Exchange) -> None:
        """ "If an `MCP-Session-Id` is returned by the server during initialization, clients using
        the Streamable HTTP transport **MUST** include it in the `MCP-Session-Id` header on all of
        their subsequent HTTP requests." (2025-03-26 to 2025-11-25)"""
        head, value = exchange.request.head, exchange.value
        jsonrpc = type(value) is dict and type(value.get("method")) is str
        if self.endpoint is None and head is not None and head.method == "POST" and jsonrpc:
            self.endpoint = endpoint_path(head.target)
        self.streams.request(exchange)
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

    def done(self, exchange: Exchange) -> None:
        """An exchange's response ended (its request is no longer active)."""
        self.streams.done(exchange)

    # -- the response's head ------------------------------------------------------------------------
    def response_head(self, exchange: Exchange) -> None:
        request, head = exchange.request.head, exchange.response.head
        if head is None:
            return
        assigned = head.get(SESSION_HEADER)
        if assigned is not None:
            self._assigned(exchange, assigned, head.status)
        if request is None or not self.for_endpoint(request):
            return
        sent = request.get(SESSION_HEADER)
        if sent is None:
            return
        key = sid_key(sent)
        if request.method == "DELETE" and ok(head.status):
            if key not in self.ended:
                bounded_add(self.ended, key, exchange.response.t, MAX_ENDED)
        elif key in self.ended and exchange.request.t > self.ended[key]:
            self._ended_served(exchange, sent, head.status)
        if assigned is not None and ok(head.status) and not self.speaks_older:
            if self.modern_only:
                self._modern_session(exchange, assigned)
            else:  # its body may show that the server supports only 2026-07-28 (a discover answer)
                exchange.pending_session = assigned

    def _assigned(self, exchange: Exchange, assigned: str, status: int) -> None:
        value = exchange.value
        initialize = type(value) is dict and value.get("method") == "initialize"
        if initialize and ok(status) and self.first_assigned is None:
            self.first_assigned = exchange.response.t
        if not visible_ascii(assigned) and self._first(HTTP_SESSION_ID_CHARS, assigned):
            odd = [f"{ord(c):#04x}" for c in dict.fromkeys(assigned) if not "\x21" <= c <= "\x7e"]
            shown = ", ".join(odd[:SHOWN_CHARS]) + (", ..." if len(odd) > SHOWN_CHARS else "")
            self._respond(
                HTTP_SESSION_ID_CHARS,
                exchange,
                _header(assigned),
                f"the session id {quoted_header(assigned)} has characters outside visible ASCII"
                f" 0x21-0x7E ({shown})",
            )

    def _modern_session(self, exchange: Exchange, assigned: str) -> None:
        """ "A server that supports only this revision and receives such traffic from an older
        client **SHOULD** respond as follows: ... An `Mcp-Session-Id` header on a request: ignore it,
        and do not mint or echo session IDs." (2026-07-28, Backward Compatibility): a 2xx answer to a
        request carrying a session id, by a server known to support only 2026-07-28; once per id."""
        head, request = exchange.response.head, exchange.request.head
        sent = request.get(SESSION_HEADER) if request is not None else None
        if head is None or sent is None or not self._first(HTTP_MODERN_SESSION, assigned):
            return
        how = "echoed it" if assigned == sent else f"minted {quoted_header(assigned)}"
        self._respond(
            HTTP_MODERN_SESSION,
            exchange,
            _header(assigned),
            f"a request carrying Mcp-Session-Id {quoted_header(sent)} was answered {head.status} and"
            f" the answer {how}: a server that supports only 2026-07-28 SHOULD ignore it, and neither"
            " mint nor echo session ids",
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
            f"a request of session {quoted_header(session)}, which a DELETE ended, was answered {status}"
            " (MUST be 404 Not Found)",
        )

    def _respond(self, rule: str, exchange: Exchange, raw: bytes, message: str, offset: int = 0) -> None:
        self.say(rule, exchange, True, offset, raw, message, exchange.response.first_event)

    # -- the messages a response carried ------------------------------------------------------------
    def carried(self, exchange: Exchange, value: Any, raw: bytes, offset: int, sse: bool) -> None:
        """One JSON-RPC message of a response, `raw` its bytes: its JSON body (`offset` 0) or an SSE
        event's data (`offset` where the event starts in the stream)."""
        if type(value) is not dict:
            return
        if "method" not in value:
            self._learn(exchange, value)
            error = value.get("error")
            if type(error) is dict and type(error.get("code")) is int and modern_shaped(exchange):
                self._error_status(exchange, value, raw, error["code"], offset if sse else -1)
        if sse:
            found = self.streams.message(exchange, value, raw)
            if found is not None:
                self.say(
                    HTTP_BROADCAST,
                    exchange,
                    True,
                    offset,
                    raw,
                    f"{found[1]} was sent on the stream of exchange {found[0]} too (the server MUST NOT"
                    " broadcast a message across streams)",
                    exchange.response.last_event,
                )

    def _learn(self, exchange: Exchange, value: dict[str, Any]) -> None:
        """What an answer tells of the revisions the server speaks; a session id its head carried is
        judged once that shows the server supports only 2026-07-28."""
        asked = exchange.value.get("method") if type(exchange.value) is dict else None
        result, error = value.get("result"), value.get("error")
        if type(result) is dict:
            if asked == "initialize":
                self.speaks_older = True  # the handshake is the older revisions'
            elif asked == "server/discover" or (modern_shaped(exchange) and "resultType" in result):
                self.speaks_modern = True
                self.modern_server = self.modern_server or "resultType" in result
                versions = result.get("supportedVersions") if asked == "server/discover" else None
                if type(versions) is list and any(_older(v) for v in versions):
                    self.speaks_older = True
        elif type(error) is dict and error.get("code") in MODERN_ERRORS and modern_shaped(exchange):
            self.modern_server = True
        pending, exchange.pending_session = exchange.pending_session, None
        if pending is not None and self.modern_only:
            self._modern_session(exchange, pending)

    def _error_status(
        self, exchange: Exchange, value: dict[str, Any], raw: bytes, code: int, at: int
    ) -> None:
        """The status a 2026-07-28 error goes with (docs/http.md cites each sentence): -32601 with
        404, -32020, -32021 and -32022 with 400. -32601 is judged once the server showed it speaks
        2026-07-28 (a legacy server may refuse a modern request with it, at any status). `at` is the
        error's offset in an SSE stream (-1 for a JSON body): an error after other bytes of the stream
        came after its status (200) was sent, and is not judged."""
        expected = ERROR_STATUS.get(code)
        head = exchange.response.head
        if expected is None or head is None or head.status == expected or at > 0:
            return
        if code == -32601 and not self.modern_server:
            return
        if code == -32020 and exchange.mismatch is not None and ok(head.status):
            return  # http-mismatch-accepted says it
        asked = exchange.value.get("id") if type(exchange.value) is dict else None
        if value.get("id") not in (None, asked):
            return  # another request's answer: http-wrong-stream
        self._respond(
            HTTP_ERROR_STATUS,
            exchange,
            raw,
            f"the 2026-07-28 error {code} was sent with HTTP status {head.status} (MUST be {expected})",
            max(at, 0),
        )

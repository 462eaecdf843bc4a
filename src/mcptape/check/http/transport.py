"""The Streamable HTTP transport's rules, judged on an HTTP transcript's exchanges (`exchanges.py`).

The analyzer hands every `http-in`/`http-out` record (with its exchange number) and every byte of an
HTTP server's `stdout` to `HttpTransport`, in time order. The messages those exchanges carried are on
`in`/`out` and get every stdio rule there; this module judges what only HTTP has: the bytes are
HTTP, a JSON-RPC body is one JSON value, an SSE stream is well formed, the headers agree with the
body, a notification is answered 202, a session id stays put, a message comes on the stream it
belongs to, a cross-origin request is refused. A finding names the exchange (`line` is its number),
the byte offset in its body (or in the message, for bytes that are not HTTP) and the raw bytes from
there. Each rule and the spec sentence it enforces: docs/http.md.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcptape.check.http.broadcast import Key, sid_key
from mcptape.check.http.findings import Say
from mcptape.check.http.paramheaders import param_mismatches
from mcptape.check.http.responses import ResponseRules
from mcptape.check.http.session import SessionRules
from mcptape.check.http.sessionkeys import SessionKeys
from mcptape.check.http.settling import Settling
from mcptape.check.http.values import (
    Bad,
    accepts,
    decoded,
    differs,
    json_value,
    lines,
    quoted_header,
)
from mcptape.check.model import CLIENT, SERVER, Finding, Message
from mcptape.check.protocol import is_stateless, meta_version
from mcptape.check.rules import (
    HTTP_ACCEPT,
    HTTP_HEADER_MISMATCH,
    HTTP_NOT_HTTP,
    HTTP_SESSION_CHANGED,
    NON_PROTOCOL_INPUT,
    NON_PROTOCOL_OUTPUT,
)
from mcptape.transcript.events import NOTE
from mcptape.transcript.reader import Payload
from mcptape.transcript.wire import HTTP_IN, STDOUT, WIRE_CHANNELS, carried_line

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Budget, Exchange, Head, HttpMessage

HTTP_CHANNELS = WIRE_CHANNELS | {STDOUT}  # what the analyzer hands over
_ACCEPT = {"POST": ("application/json", "text/event-stream"), "GET": ("text/event-stream",)}
HTTP_END = {"of": HTTP_IN}  # the fields of the eof record that ends an HTTP recording (the proxy closed)
NAMED = frozenset({"tools/call", "resources/read", "prompts/get"})  # requests that need Mcp-Name
HEADER_SINCE = "2025-06-18"  # the first revision with the MCP-Protocol-Version header
MAX_OPEN = 4096  # exchanges read at once (a stream per exchange: constant memory beyond that)
MAX_NOT_JSON = 64  # bodies said not to be JSON whose in/out line is still awaited, per channel


class HttpTransport(ResponseRules, Settling):
    """Judge an HTTP transcript's exchanges; `finish()` returns the notes to add to the report. Made
    for every analysis, it costs nothing until an HTTP record comes (h11 is imported then)."""

    def __init__(
        self,
        emit: Callable[[Finding], None],
        settle: Callable[[Any, int], None] | None = None,
        schema_of: Callable[[str], Any] | None = None,
    ) -> None:
        self.emit = emit
        self.schema_of = schema_of  # a tool's inputSchema as the session's tools/list gave it
        # a request that needs no answer by id any more (the pairing's cancel): see client_left and
        # _answered_without_id
        self.settle = settle
        self.cancelled: list[int] = []  # exchanges whose 2026-07-28 request the client's close cancelled
        self.open: dict[int, Exchange] = {}
        self.sessions: dict[Key, None] = {}  # session ids the server assigned (responses._session)
        self.negotiated: str | None = None  # the version an initialize answer fixed (before 2026-07-28)
        self.stdout_bytes = 0
        self.stdout_lines = 0
        self.stdout_event = -1
        self.ended = False  # the recording's end was seen (its proxy closed)
        self.budget: Budget | None = None  # the bytes of bodies still keepable (made with the first exchange)
        self.dropped = 0  # exchanges given up (more than MAX_OPEN open at once)
        # the in/out lines the recorder carries for bodies (or SSE events) said not to be JSON
        self.not_json: dict[str, deque[tuple[int, int]]] = {}
        self._say = Say(emit)  # every finding on an exchange: check/http/findings.py
        self.session_rules = SessionRules(self._say)  # sessions and statuses: check/http/session.py
        self.session_keys = SessionKeys()  # the session of each exchange's in/out lines (sessionkeys.py)

    # -- input -----------------------------------------------------------------------------
    def push(self, t: float, ch: str, payload: Payload, index: int) -> None:
        """One record the analyzer met: an exchange's bytes (`{"x", "data"}`: bytes without a number,
        as in a redacted copy, are not judged), the server's stdout, or the recording's end."""
        if isinstance(payload, dict):
            if payload == HTTP_END:
                self.ended = True
            elif ch == NOTE:
                self.client_left(payload)
            elif ch in WIRE_CHANNELS and type(payload.get("x")) is int:
                self.record(t, ch, payload["x"], payload["data"], index)
        elif ch == STDOUT:
            self.stdout(payload.encode() if isinstance(payload, str) else payload, index)

    def record(self, t: float, ch: str, x: int, data: bytes, index: int) -> None:
        exchange = self.open.get(x)
        if exchange is None:
            from mcptape.check.http.exchanges import Budget, Exchange  # h11: only for an HTTP transcript

            if self.budget is None:
                self.budget = Budget()
            if len(self.open) >= MAX_OPEN:  # the oldest open exchange is given up (a note says so)
                self.open.pop(next(iter(self.open))).release()
                self.dropped += 1
            exchange = self.open[x] = Exchange(x, self.budget)
        message = exchange.request if ch == HTTP_IN else exchange.response
        message.feed(data, index, t)
        if ch == HTTP_IN:
            self._broken(exchange, message, CLIENT)
            if message.complete and not exchange.judged_request:
                exchange.judged_request = True
                self._request(exchange)
                self.session_rules.request(exchange)
                self.session_keys.request(exchange)
                message.release()
        else:
            self._broken(exchange, message, SERVER)
            if message.head is not None and not exchange.judged_head:
                exchange.judged_head = True
                self._response_head(exchange)
                self.session_rules.response_head(exchange)
                self.session_keys.response_head(exchange)
            self._sse(exchange)
            if message.complete:
                self._response_end(exchange)
                self._answered_without_id(exchange)
                self.session_rules.done(exchange)
                del self.open[x]
                exchange.release()

    def stdout(self, data: bytes, index: int) -> None:
        if self.stdout_event < 0:
            self.stdout_event = index
        self.stdout_bytes += len(data)
        self.stdout_lines += data.count(b"\n")

    def finish(self) -> list[str]:
        for exchange in list(self.open.values()):
            exchange.response.close(exchange.response.first_event)
            self._broken(exchange, exchange.response, SERVER)
            if exchange.response.complete:
                self._response_end(exchange)
        self.open.clear()
        notes = []
        if self.dropped:
            notes.append(
                f"{self.dropped} HTTP exchanges were not judged to the end: more than {MAX_OPEN} open at once"
            )
        if self.cancelled:
            shown = ", ".join(map(str, self.cancelled[:10])) + (", ..." if len(self.cancelled) > 10 else "")
            notes.append(
                f"{len(self.cancelled)} request(s) cancelled by the client closing their connection before"
                f" the answer (exchange {shown}): on 2026-07-28 that is how a client cancels, so they are"
                " not unanswered"
            )
        if self.stdout_bytes:
            notes.append(
                f"the HTTP server wrote {self.stdout_bytes} bytes ({lines(self.stdout_lines)}) on its stdout,"
                f" from transcript event {self.stdout_event}: an HTTP server's stdout is not the protocol,"
                " so this is harmless (it is not judged)"
            )
        return notes

    # -- one fault, one finding ---------------------------------------------------------------
    def _not_json(self, channel: str, data: bytes) -> None:
        """A body (or SSE event's data) was found not to be JSON: the line the recorder carries it
        on (`channel`, after its raw bytes) is the same fault, so it is not a second finding."""
        kept = self.not_json.setdefault(channel, deque(maxlen=MAX_NOT_JSON))
        line = carried_line(data)
        kept.append((len(line), hash(line)))

    def explains(self, msg: Message) -> bool:
        """Whether a rejected `in`/`out` line is a body this transport already reported as not JSON
        (`http-body-not-json`: the exchange, its byte offset and party say more than
        `non-protocol-input`/`-output` would)."""
        kept = self.not_json.get(msg.frame.channel)
        if not kept or msg.rule not in (NON_PROTOCOL_INPUT, NON_PROTOCOL_OUTPUT):
            return False
        raw = msg.frame.raw
        try:
            kept.remove((len(raw), hash(raw)))
        except ValueError:
            return False
        return True

    # -- findings ----------------------------------------------------------------------------
    def _broken(self, exchange: Exchange, message: HttpMessage, party: str) -> None:
        broken = message.broken
        if broken is None or message.reported:
            return
        message.reported = True
        where = "request" if message.request else "response"
        self._say(
            HTTP_NOT_HTTP,
            exchange,
            not message.request,
            broken.offset,
            broken.raw,
            f"the {where}, from byte {broken.offset} of its bytes, is {broken.why}",
            broken.event,
            party,
        )

    # -- the request ---------------------------------------------------------------------------
    def _request(self, exchange: Exchange) -> None:
        message = exchange.request
        head = message.head
        if head is not None and (head.method != "GET" or self.session_rules.for_endpoint(head)):
            self._accept(exchange, head.method, head.get("accept"))  # a GET elsewhere: OAuth metadata
        if head is None or head.method != "POST" or message.over:
            return
        body = bytes(message.body)
        value = json_value(body)
        if isinstance(value, Bad):
            self._body_not_json(exchange, False, body, value, "POST", message.event_at(value.offset))
            return
        exchange.value = value
        if type(value) is not dict:
            return
        self._headers(exchange, value)

    def _accept(self, exchange: Exchange, method: str, accept: str | None) -> None:
        """ "The client MUST include an Accept header listing both application/json and
        text/event-stream" on a POST; "listing text/event-stream" on a GET (transports, every
        revision with Streamable HTTP)."""
        needed = _ACCEPT.get(method)
        missing = [media for media in needed or () if not accepts(accept, media)]
        if missing:
            said = "no Accept header" if accept is None else f"Accept: {accept}"
            self._say(
                HTTP_ACCEPT,
                exchange,
                False,
                0,
                exchange.request_line(),
                f"the {method} does not accept {' and '.join(missing)} ({said})",
                exchange.request.first_event,
            )

    def _stated(self, head: Head, value: dict[str, Any], stated: str) -> list[str]:
        """How a 2026-07-28 request's headers disagree with its body: MCP-Protocol-Version with
        `_meta`'s, Mcp-Method with the method, Mcp-Name with the name or uri, Mcp-Param-* with the
        arguments the tool's schema marks."""
        method = value.get("method")
        params = value.get("params")
        header_version = head.get("mcp-protocol-version")
        wrong: list[str] = []
        if header_version != stated:
            wrong.append(differs("MCP-Protocol-Version", header_version, stated, "_meta's protocolVersion"))
        if "id" in value and type(method) is str:
            if head.get("mcp-method") != method:
                wrong.append(differs("Mcp-Method", head.get("mcp-method"), method, "method"))
            if method in NAMED and type(params) is dict:
                source = "uri" if method == "resources/read" else "name"
                expected = params.get(source)
                named = decoded(head.get("mcp-name"))
                if type(expected) is str and named != expected:
                    wrong.append(differs("Mcp-Name", head.get("mcp-name"), expected, f"params.{source}"))
            if method == "tools/call" and type(params) is dict and self.schema_of is not None:
                name = params.get("name")
                schema = self.schema_of(name) if type(name) is str else None
                if schema is not None:
                    wrong += param_mismatches(schema, params.get("arguments"), head.get)
        return wrong

    def _headers(self, exchange: Exchange, value: dict[str, Any]) -> None:
        """MCP-Protocol-Version, Mcp-Method and Mcp-Name against the body (2026-07-28), or the
        negotiated version (2025-06-18 to 2025-11-25)."""
        head = exchange.request.head
        assert head is not None
        method = value.get("method")
        params = value.get("params")
        stated = meta_version(params)
        header_version = head.get("mcp-protocol-version")
        wrong: list[str] = []
        if stated is not None and is_stateless(stated):
            wrong = self._stated(head, value, stated)
        elif (
            stated is None  # a request stating its own version in _meta is no handshake session's
            and self.negotiated is not None
            and self.negotiated >= HEADER_SINCE
            and method != "initialize"
            and header_version != self.negotiated
        ):
            wrong.append(
                differs("MCP-Protocol-Version", header_version, self.negotiated, "the negotiated version")
            )
        if wrong:
            exchange.mismatch = "; ".join(wrong)
            self._say(
                HTTP_HEADER_MISMATCH,
                exchange,
                False,
                0,
                exchange.request_line(),
                "the headers disagree with the body: " + "; ".join(wrong),
                exchange.request.first_event,
            )
        session = head.get("mcp-session-id")
        if (
            session is not None
            and method != "initialize"
            and self.sessions
            and sid_key(session) not in self.sessions
        ):
            self._say(
                HTTP_SESSION_CHANGED,
                exchange,
                False,
                0,
                session.encode(),
                f"Mcp-Session-Id {quoted_header(session)} is no session the server assigned",
                exchange.request.first_event,
            )

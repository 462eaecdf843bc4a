"""The response half of the Streamable HTTP transport rules (`transport.py` has the rest): the status
and content type an answer must have, the session id it must keep, the SSE stream it is sent on
(well formed, carrying JSON, the messages that belong there), and a JSON body's value."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcptape.check.http.broadcast import Key, bounded_add, sid_key
from mcptape.check.http.session import modern_shaped
from mcptape.check.http.values import (
    Bad,
    authority,
    json_value,
    ok,
    quoted_header,
    same_machine,
    shown_id,
    status_line,
)
from mcptape.check.http.values import kind as kind_of
from mcptape.check.protocol import is_stateless, meta_version
from mcptape.check.rules import (
    HTTP_BODY_NOT_JSON,
    HTTP_CONTENT_TYPE,
    HTTP_MISMATCH_ACCEPTED,
    HTTP_NOTIFICATION_STATUS,
    HTTP_ORIGIN_ACCEPTED,
    HTTP_SESSION_CHANGED,
    HTTP_SSE_MALFORMED,
    HTTP_WRONG_STREAM,
)
from mcptape.transcript.wire import SSE_TYPE, is_json_type

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Exchange
    from mcptape.check.http.findings import Say
    from mcptape.check.http.session import SessionRules


MAX_ASSIGNED = 65536  # session ids remembered as assigned


def _media(media: str) -> str:
    return quoted_header(media) if media else "'none'"


class ResponseRules:
    """What `HttpTransport` judges of each response (a base class: it states what it needs)."""

    sessions: dict[Key, None]  # session ids the server assigned (sid_key; the oldest forgotten first)
    negotiated: str | None  # the version an initialize answer fixed (before 2026-07-28)
    session_rules: SessionRules  # the session and status rules (check/http/session.py)
    _say: Say  # one finding on an exchange (check/http/findings.py)

    def _not_json(self, channel: str, data: bytes) -> None:
        raise NotImplementedError

    def _body_not_json(
        self, exchange: Exchange, response: bool, body: bytes, bad: Bad, what: str, event: int
    ) -> None:
        """A request's or a response's body that is not one JSON value: one finding (the in/out line
        the recorder carries of it is then no second one)."""
        self._not_json("out" if response else "in", body)
        message = f"the {what} body is not one JSON value ({bad.why}, body byte {bad.offset})"
        self._say(HTTP_BODY_NOT_JSON, exchange, response, bad.offset, body[bad.offset :], message, event)

    # -- the response --------------------------------------------------------------------------
    def _response_head(self, exchange: Exchange) -> None:
        """The status and Content-Type a response's head gives its request, its session, its Origin."""
        response = exchange.response
        head = response.head
        request = exchange.request.head
        assert head is not None
        status, media = head.status, head.media
        event = response.first_event
        value = exchange.value
        kind = kind_of(value)
        if exchange.mismatch is not None and ok(status):
            self._say(
                HTTP_MISMATCH_ACCEPTED,
                exchange,
                True,
                0,
                status_line(head.status),
                f"answered {status} to a request whose headers disagree with its body"
                " (the server MUST reject it: 400 and a -32020 HeaderMismatch error)",
                event,
            )
        if kind in ("notification", "response") and ok(status) and status != 202:
            self._say(
                HTTP_NOTIFICATION_STATUS,
                exchange,
                True,
                0,
                status_line(status),
                f"a JSON-RPC {kind} accepted with {status}, not 202 Accepted",
                event,
            )
        if kind == "request" and ok(status) and media != SSE_TYPE and not is_json_type(media):
            self._say(
                HTTP_CONTENT_TYPE,
                exchange,
                True,
                0,
                status_line(status),
                f"a JSON-RPC request answered {status} with Content-Type {_media(media)},"
                " neither application/json nor text/event-stream",
                event,
            )
        get = request is not None and request.method == "GET" and self.session_rules.for_endpoint(request)
        if get and ok(status) and media != SSE_TYPE:
            self._say(
                HTTP_CONTENT_TYPE,
                exchange,
                True,
                0,
                status_line(status),
                f"a GET answered {status} with Content-Type {_media(media)}, not text/event-stream",
                event,
            )
        self._session(exchange, head.get("mcp-session-id"))
        self._origin(exchange, status, event)

    def _origin(self, exchange: Exchange, status: int, event: int) -> None:
        """A request from a foreign Origin that was served (servers MUST validate Origin)."""
        request = exchange.request.head
        origin = request.get("origin") if request is not None else None
        host = request.get("host") if request is not None else None
        if (
            origin is not None
            and ok(status)
            and authority(origin) != (host or "").lower()
            and not same_machine(origin, host or "")
        ):
            self._say(
                HTTP_ORIGIN_ACCEPTED,
                exchange,
                True,
                0,
                f"Origin: {origin}".encode(),
                f"a request from Origin {quoted_header(origin)} to host {quoted_header(host or '')} was"
                f" answered {status}"
                " (servers MUST validate Origin, and refuse an invalid one with 403)",
                event,
            )

    def _session(self, exchange: Exchange, assigned: str | None) -> None:
        value = exchange.value
        initialize = type(value) is dict and value.get("method") == "initialize"
        request = exchange.request.head
        sent = request.get("mcp-session-id") if request is not None else None
        if assigned is None:
            return
        if initialize:
            bounded_add(self.sessions, sid_key(assigned), None, MAX_ASSIGNED)
        elif sent is not None and assigned != sent and not modern_shaped(exchange):  # http-modern-session
            self._say(
                HTTP_SESSION_CHANGED,
                exchange,
                True,
                0,
                assigned.encode(),
                f"the response carries Mcp-Session-Id {quoted_header(assigned)}, the request"
                f" {quoted_header(sent)}",
                exchange.response.first_event,
            )

    def _sse(self, exchange: Exchange) -> None:
        response = exchange.response
        for problem in exchange.new_sse_problems():
            self._say(
                HTTP_SSE_MALFORMED,
                exchange,
                True,
                problem.offset,
                problem.raw,
                f"SSE stream, body byte {problem.offset}: {problem.why} (an SSE client ignores the line)",
                response.last_event,
            )
        events, response.events = response.events, []
        for event in events:
            value = json_value(event.data)
            if isinstance(value, Bad):
                self._not_json("out", event.data)
                self._say(
                    HTTP_BODY_NOT_JSON,
                    exchange,
                    True,
                    event.start,
                    event.data[value.offset :],
                    f"the data of the SSE event at body byte {event.start} is not a JSON value ({value.why})",
                    response.last_event,
                )
                continue
            self._learn(value)
            self.session_rules.carried(exchange, value, event.data, event.start, True)
            self._stream(exchange, value, event.data, event.start)

    def _stream(self, exchange: Exchange, value: Any, raw: bytes, offset: int) -> None:
        """A message on an SSE stream (`raw` its bytes): is it on the stream it belongs to?"""
        if type(value) is not dict:
            return
        request = exchange.request.head
        is_response = "id" in value and ("result" in value or "error" in value) and "method" not in value
        why = None
        if request is not None and request.method == "GET":
            if is_response and request.get("last-event-id") is None:
                why = "a JSON-RPC response on the GET stream (allowed only when resuming a request's stream)"
        elif type(exchange.value) is dict:
            asked = exchange.value.get("id")
            if is_response and value.get("id") != asked:
                why = (
                    f"the response to request {shown_id(value.get('id'))} on the stream of request"
                    f" {shown_id(asked)}"
                )
            elif (
                "method" in value
                and "id" in value
                and is_stateless(meta_version(exchange.value.get("params")))
            ):
                why = "a server request on a 2026-07-28 response stream (input requests go in results)"
        if why is not None:
            self._say(
                HTTP_WRONG_STREAM,
                exchange,
                True,
                offset,
                raw,
                why,
                exchange.response.last_event,
            )

    def _response_end(self, exchange: Exchange) -> None:
        response = exchange.response
        head = response.head
        if head is None or response.broken is not None:
            return
        if response.sse is not None:
            problem = response.sse.close()
            if problem is not None:
                response.sse.problems.append(problem)
            self._sse(exchange)
            return
        body = bytes(response.body)
        if head.status == 202 and body and kind_of(exchange.value) in ("notification", "response"):
            self._say(
                HTTP_NOTIFICATION_STATUS,
                exchange,
                True,
                0,
                body,
                "202 Accepted with a body (MUST have none)",
                response.event_at(0),
            )
        if not response.json_body or response.over or not body:
            return
        value = json_value(body)
        if isinstance(value, Bad):
            self._body_not_json(exchange, True, body, value, head.media, response.event_at(value.offset))
            return
        self._learn(value)
        self.session_rules.carried(exchange, value, body, 0, False)

    def _learn(self, value: Any) -> None:
        """An initialize answer fixes the version the later requests' header must state."""
        if type(value) is dict and type(value.get("result")) is dict:
            version = value["result"].get("protocolVersion")
            if type(version) is str and "capabilities" in value["result"]:
                self.negotiated = version

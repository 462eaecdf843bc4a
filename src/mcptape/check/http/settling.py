"""What the pairing learns from HTTP (a mixin of `HttpTransport`, transport.py): a POST's response
answers that POST, if not by id, and a 2026-07-28 request whose connection the client closed is
cancelled. `settle(id, x)` tells the pairing of exchange x's session that a request needs no answer
by id any more."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcptape.check.http.values import Bad, json_value
from mcptape.check.protocol import is_stateless, meta_version

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Exchange


class Settling:
    """The requests HTTP settles without an answer by id (a base class: it states what it needs)."""

    settle: Callable[[Any, int], None] | None  # the pairing's cancel (an id, in exchange x's session)
    open: dict[int, Exchange]  # the exchanges being read
    cancelled: list[int]  # exchanges whose 2026-07-28 request the client's close cancelled

    def client_left(self, note: dict[str, Any]) -> None:
        """The recorder's note that the client closed an exchange's connection before its response
        ended: on 2026-07-28 that cancels the request ("Closing the SSE response stream **MUST** be
        treated by the server as cancellation of that request."), so it may stay unanswered."""
        x = note.get("x")
        exchange = self.open.get(x) if type(x) is int and note.get("closed") == "client" else None
        if exchange is None or self.settle is None:
            return
        value = exchange.value
        if type(value) is not dict or "id" not in value or "method" not in value:
            return
        stated = meta_version(value.get("params"))
        if stated is not None and is_stateless(stated):
            self.settle(value["id"], exchange.x)
            self.cancelled.append(exchange.x)

    def _answered_without_id(self, exchange: Exchange) -> None:
        """A request's own exchange refused it (4xx), answered a JSON-RPC error whose id is null, or
        answered a JSON body that is not JSON (`http-body-not-json` is that fault, one finding: the
        request is not also unanswered): an HTTP response answers the POST it is the response to,
        so the request is answered, if not by id. (An older server refuses a 2026-07-28
        `server/discover` with `400` and an error without id, and the client falls back: "On `400
        Bad Request`, the client **SHOULD** inspect the response body before falling back"; a
        foreign Origin: "servers **MUST** respond with HTTP 403 Forbidden. The HTTP response body
        **MAY** comprise a JSON-RPC _error response_ that has no `id`.")"""
        response, value = exchange.response, exchange.value
        head = response.head
        if self.settle is None or head is None or type(value) is not dict or "method" not in value:
            return
        if "id" not in value:
            return
        answer = None
        if response.sse is None and response.json_body and not response.over:
            answer = json_value(bytes(response.body))
        if type(answer) is dict and "id" in answer and answer["id"] == value["id"]:
            return  # answered by id: the pairing has it
        refused = 400 <= head.status < 500 or isinstance(answer, Bad)
        if refused or (type(answer) is dict and "error" in answer and answer.get("id") is None):
            self.settle(value["id"], exchange.x)

"""How every Streamable HTTP rule reports: `Say`, one finding on an exchange's request or response,
built by the check core's one constructor (`check/findings.finding`). `HttpTransport` makes one;
its response rules (`responses.py`) and its session rules (`session.py`) report through it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcptape.check.findings import finding
from mcptape.check.http.values import request_id
from mcptape.check.model import CLIENT, Finding, Ref
from mcptape.transcript.wire import HTTP_IN, HTTP_OUT

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Exchange

SHOWN = 4096  # bytes of an offending place kept in a finding


class Say:
    """`say(rule, exchange, response, offset, raw, message, event, party)`: one finding on `exchange`'s
    response (or its request) at body byte `offset`, `raw` its bytes from there, `event` the record
    it was read in; `line` is the exchange's number, and a response names its request as related. A
    request's bytes are the client's: its party is the client unless `party` says otherwise."""

    __slots__ = ("emit",)

    def __init__(self, emit: Callable[[Finding], None]) -> None:
        self.emit = emit

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
    ) -> None:
        msg = exchange.response if response else exchange.request
        if party is None and not response:
            party = CLIENT  # a request's bytes are the client's: its rule's default party may be the server's
        related: tuple[Ref, ...] = ()
        if response and exchange.request.first_event >= 0:
            related = (
                Ref("request", HTTP_IN, exchange.x, 0, exchange.request_line(), exchange.request.first_event),
            )
        self.emit(
            finding(
                rule,
                channel=HTTP_OUT if response else HTTP_IN,
                line=exchange.x,
                offset=offset,
                raw=raw[:SHOWN],
                message=f"exchange {exchange.x} ({exchange.describe()}): {message}",
                t=msg.t,
                event=event,
                related=related,
                party=party,
                request_id=request_id(exchange.value),
            )
        )

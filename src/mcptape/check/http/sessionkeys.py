"""Which HTTP session an exchange's `in`/`out` lines belong to, so that the pairing keeps each
session's request ids apart: over Streamable HTTP one transcript can hold several sessions at once
(one `Mcp-Session-Id` each), and each numbers its ids on its own ("The request ID **MUST NOT** have
been previously used by the requestor within the same session", basic/index 2025-03-26 to
2025-11-25). A session's key is its id (`sid_key`); an `initialize` sent without one is the session
of its own exchange (`("x", number)`) until its response assigns an id, and then it is that id's
(or, assigned none, of no session); an exchange of no session (stdio has none, nor a stateless
server) has the key None."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcptape.check.http.broadcast import SESSION_HEADER, bounded_add, sid_key

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Exchange

MAX_EXCHANGES = 4096  # exchanges whose session is remembered (the oldest forgotten first)
Where = tuple[Any, Any]  # (the session's key, the key its pairing had before: an initialize's own)


class SessionKeys:
    """The session of each recent exchange that has one, learnt from its request's and its response's
    headers as the transport reads them (before the `in`/`out` lines they carry)."""

    __slots__ = ("keys",)

    def __init__(self) -> None:
        self.keys: dict[int, Where] = {}

    def request(self, exchange: Exchange) -> None:
        head = exchange.request.head
        sent = head.get(SESSION_HEADER) if head is not None else None
        if sent is not None:
            bounded_add(self.keys, exchange.x, (sid_key(sent), None), MAX_EXCHANGES)
            return
        value = exchange.value
        if type(value) is dict and value.get("method") == "initialize":
            own = ("x", exchange.x)
            bounded_add(self.keys, exchange.x, (own, None), MAX_EXCHANGES)

    def response_head(self, exchange: Exchange) -> None:
        """An initialize's response assigning a session id: its session is that id's from now on."""
        x = exchange.x
        where = self.keys.get(x)
        head = exchange.response.head
        if where is None or where[0] != ("x", x) or head is None:
            return
        assigned = head.get(SESSION_HEADER)  # none (a stateless server): the requests of no session
        self.keys[x] = (None if assigned is None else sid_key(assigned), where[0])

    def of(self, x: int) -> Where:
        """Exchange `x`'s session key, and the key its pairing had before (None when unchanged)."""
        return self.keys.get(x) or (None, None)

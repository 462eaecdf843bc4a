"""`http-broadcast`: one server message sent on two SSE streams of a session (check/http/session.py
calls it; docs/http.md cites the sentence).

What makes a server message one message: a server request's method and id (never reused in a
session), a progress notification's token, value and the request it belongs to (progress increases
with each one; a token need only be unique among the active requests, so a client may reuse it once
a request ended), and the message's bytes. A log line or a `list_changed` twice may be two messages:
not judged. A message is keyed by those and a digest of its bytes, never by re-encoding it (a
message nested 300 deep is read by orjson but not written again).
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

from mcptape.check.http.values import quoted, shown_id

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import Exchange

SESSION_HEADER = "mcp-session-id"
MAX_SEEN = 4096  # identifiable messages remembered per session (the oldest forgotten first)
MAX_SESSIONS = 256  # sessions whose messages are remembered at once
MAX_TOKENS = 4096  # progress tokens remembered (the oldest forgotten first)
MAX_ACTIVE = 4096  # requests remembered as active (their response not ended)
SHORT_ID = 64  # a session id up to this long is its own key; a longer one is keyed by a digest

Key = str | bytes  # a session id as a table key (sid_key)
AMBIGUOUS = -1  # a token two active requests declared (the client's fault): its progress is not judged


def sid_key(session: str) -> Key:
    """A session id as a table key: itself when short, else a 16-byte digest (a table of 1 MiB ids
    would not be bounded by its length)."""
    if len(session) <= SHORT_ID:
        return session
    return hashlib.blake2b(session.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def bounded_add(table: dict[Any, Any], key: Any, value: Any, cap: int) -> None:
    """`table[key] = value`, the oldest entry forgotten first once `cap` are kept."""
    if key not in table and len(table) >= cap:
        del table[next(iter(table))]
    table[key] = value


def progress_token(value: Any) -> int | str | None:
    """The progress token a client request declares (`params._meta.progressToken`)."""
    params = value.get("params") if type(value) is dict and "id" in value else None
    meta = params.get("_meta") if type(params) is dict else None
    token = meta.get("progressToken") if type(meta) is dict else None
    return token if type(token) is int or type(token) is str else None


def identity(value: dict[str, Any]) -> tuple[tuple[Hashable, ...], str] | None:
    """What makes a server message one message, and how a finding names it; None for a message two of
    which may be alike. A progress notification's key still lacks the request it belongs to."""
    method = value.get("method")
    if type(method) is not str:
        return None
    rid = value.get("id")
    if type(rid) is int or type(rid) is str:
        return ("request", method, type(rid) is int, rid), (
            f"the server request {quoted(method)} (id {shown_id(rid)})"
        )
    params = value.get("params")
    if method == "notifications/progress" and type(params) is dict:
        token, progress = params.get("progressToken"), params.get("progress")
        if (type(token) is int or type(token) is str) and type(progress) in (int, float):
            return ("progress", type(token) is int, token, progress), (
                f"the progress notification {progress!r} of token {shown_id(token)}"
            )
    return None


class Streams:
    """The messages seen on each session's SSE streams, and the progress tokens of its requests."""

    def __init__(self) -> None:
        self.seen: dict[Key, dict[Hashable, int]] = {}  # session -> a message's key -> its exchange
        # (session, int token?, token) -> the exchange of the latest request that declared it
        self.tokens: dict[tuple[Key, bool, int | str], int] = {}
        self.active: dict[int, None] = {}  # exchanges whose request was read and response not ended

    def request(self, exchange: Exchange) -> None:
        """A client request read: the progress token it declares belongs to it (a token reused while
        its holder is still active is the client's fault: that token's progress is not judged)."""
        head = exchange.request.head
        session = head.get(SESSION_HEADER) if head is not None else None
        token = progress_token(exchange.value)
        if session is None or token is None:
            return
        key = (sid_key(session), type(token) is int, token)
        holder = self.tokens.get(key)
        held = holder is not None and (holder == AMBIGUOUS or holder in self.active)
        bounded_add(self.tokens, key, AMBIGUOUS if held else exchange.x, MAX_TOKENS)
        bounded_add(self.active, exchange.x, None, MAX_ACTIVE)

    def done(self, exchange: Exchange) -> None:
        """An exchange's response ended: its request is no longer active."""
        self.active.pop(exchange.x, None)

    def message(self, exchange: Exchange, value: dict[str, Any], raw: bytes) -> tuple[int, str] | None:
        """A server message on an SSE stream: (the exchange whose stream carried it first, what it
        is) when another stream of its session carried it already, else None."""
        request = exchange.request.head
        if request is None or request.get("last-event-id") is not None:
            return None  # a stream resumed with Last-Event-ID may replay its messages
        session = request.get(SESSION_HEADER)
        if session is None:
            return None  # without a session, the streams of one client cannot be told from another's
        known = identity(value)
        if known is None:
            return None
        what, named = known
        sid = sid_key(session)
        if what[0] == "progress":
            token = value["params"]["progressToken"]  # identity read it: an int or a str
            owner = self.tokens.get((sid, type(token) is int, token))
            if owner is None or owner == AMBIGUOUS:
                return None  # no request (or two) declared that token: whose progress it is is unknown
            what = (*what, owner)
        seen = self.seen.get(sid)
        if seen is None:
            seen = {}
            bounded_add(self.seen, sid, seen, MAX_SESSIONS)
        key = (what, hash(raw))
        first = seen.get(key)
        if first is None:
            bounded_add(seen, key, exchange.x, MAX_SEEN)
            return None
        return (first, named) if first != exchange.x else None

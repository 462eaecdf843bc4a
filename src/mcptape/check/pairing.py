"""Pairing: requests and their responses, by id, for one sender.

State is per id in flight (plus a small bounded memory of recently closed ids), so memory does not
grow with the transcript's length. Requests sent by the client (`in`) are answered on `out`;
requests sent by the server (`out`) are answered on `in`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from mcptape.check import rules
from mcptape.check.classify import classify_value, lenient
from mcptape.check.findings import finding, finding_at
from mcptape.check.model import (
    CLIENT,
    IN,
    OUT,
    SERVER,
    At,
    Finding,
    Frame,
    Kind,
    Message,
    Ref,
    RequestId,
    Severity,
)
from mcptape.check.protocol import LONG_LIVED_REQUESTS, VersionTracker


class Pending(NamedTuple):
    """A request in flight: where it was sent (the first six fields are its `At`), and what it asks.

    `valid` is False for a request-shaped line that was itself rejected (kept only to pair its
    answer). The analysis' hot loop builds the client's requests with `tuple.__new__(Pending, (...))`
    (a NamedTuple's own constructor costs twice that), once per request: the request's place and its
    pairing record are one value."""

    channel: str
    line: int
    offset: int
    raw: str | bytes
    t: float
    event: int
    method: str
    valid: bool

    @property
    def at(self) -> At:
        """The request's place, for a rule that points at it."""
        return At(self.channel, self.line, self.offset, self.raw, self.t, self.event)

    def ref(self, role: str = "request") -> Ref:
        """A pointer to this request, for a finding's `related` list."""
        raw = self.raw.encode() if isinstance(self.raw, str) else self.raw
        return Ref(role, self.channel, self.line, self.offset, raw.rstrip(b"\n"), self.event)


RECENT = 4096  # closed ids remembered, to tell "answered twice" and "cancelled" from "never sent"


class Pairing:
    """The requests one side has sent and not yet seen answered."""

    __slots__ = ("closed", "declared", "earlier", "extra", "listed", "older", "pending", "shared")

    def __init__(self) -> None:
        self.pending: dict[RequestId, Pending] = {}
        # the client requests of no HTTP session (a stateless server): several clients' at once
        self.shared = False
        self.declared: dict[str, Any] | None = None  # the capabilities the client's initialize declared
        self.listed: frozenset[str] | None = None  # over HTTP, the session's tool names (promises.names)
        # recently closed id -> "answered" | "cancelled", in two generations of at most RECENT ids
        self.closed: dict[RequestId, str] = {}
        self.older: dict[RequestId, str] = {}
        self.extra: dict[RequestId, int] = {}  # duplicate requests still expecting an answer
        # the closed ids of the sessions before the last `initialize` (a new session may use them)
        self.earlier: dict[RequestId, str] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> Pairing:
        """Its ids and requests are immutable values: copying the dicts copies the state (a
        `view --follow` snapshot of a session with many requests in flight stays cheap)."""
        twin = Pairing()
        twin.pending, twin.closed = dict(self.pending), dict(self.closed)
        twin.older, twin.extra = dict(self.older), dict(self.extra)
        twin.shared, twin.declared, twin.listed = self.shared, self.declared, self.listed
        return twin

    def open(self, rid: RequestId, pending: Pending) -> Pending | None:
        """Register a request; return the request already in flight with that id, if any."""
        previous = self.pending.get(rid)
        if previous is not None:
            self.extra[rid] = self.extra.get(rid, 0) + 1
            return previous
        self.pending[rid] = pending
        return None

    def take(self, rid: RequestId) -> Pending | None:
        """The request `rid` answers, now closed, when it is in flight once; else None (`close`
        then says why). `close` in one call for the common answer (the session's hot path)."""
        if self.extra:
            return None
        pending = self.pending.pop(rid, None)
        if pending is not None:
            closed = self.closed
            closed[rid] = "answered"
            if len(closed) > RECENT:
                self.older = closed
                self.closed = {}
        return pending

    def close(self, rid: RequestId) -> tuple[Pending | None, str | None]:
        """The request `rid` answers, or (None, why the answer is unexpected)."""
        pending = self.pending.get(rid)
        if pending is not None:
            if self.extra and rid in self.extra:
                n = self.extra[rid] - 1
                if n:
                    self.extra[rid] = n
                else:
                    del self.extra[rid]
            else:
                del self.pending[rid]
                self.remember(rid, "answered")
            return pending, None
        state = self.closed.get(rid) or self.older.get(rid) or self.earlier.get(rid)
        if state == "cancelled":
            return None, None
        if state == "answered":
            return None, "it answers a request that was already answered"
        return None, "no request with this id is in flight"

    def cancel(self, rid: Any) -> None:
        """`notifications/cancelled`: the request may stay unanswered, a late answer is fine."""
        if (type(rid) is int or type(rid) is str) and self.pending.pop(rid, None) is not None:
            self.remember(rid, "cancelled")

    def used(self, rid: RequestId) -> str | None:
        """How a request of this session with id `rid` ended, if one did ("answered" or
        "cancelled"; among the last 4,096 to 8,192 closed ids: the memory is bounded)."""
        return self.closed.get(rid) or self.older.get(rid)

    def new_session(self) -> None:
        """An `initialize`: a new session begins, whose requests may use the ids of the last one."""
        self.earlier = {**self.older, **self.closed}
        self.closed, self.older = {}, {}

    def remember(self, rid: RequestId, state: str = "answered") -> None:
        closed = self.closed
        closed[rid] = state
        if len(closed) > RECENT:
            self.older = closed
            self.closed = {}


# -- what pairing finds -------------------------------------------------------------------------
def _body(raw: str | bytes) -> bytes:
    return (raw.encode() if isinstance(raw, str) else raw).rstrip(b"\n")


def _id_reused(
    ch: str, rid: RequestId, pending: Pending, message: str, related: tuple[Ref, ...] = ()
) -> Finding:
    """A `duplicate-id` finding on request `pending`, sent on `ch` with the id `rid`."""
    return finding(
        rules.DUPLICATE_ID,
        channel=ch,
        line=pending.line,
        offset=pending.offset,
        raw=_body(pending.raw),
        message=message,
        request_id=rid,
        t=pending.t,
        event=pending.event,
        related=related,
    )


def duplicate_id(ch: str, rid: RequestId, pending: Pending, previous: Pending) -> Finding:
    """A request reusing the id of one still in flight (`previous`), sent on `ch`."""
    return _id_reused(
        ch,
        rid,
        pending,
        f"request id {rid!r} ({pending.method}) is already in flight: {ch} line {previous.line} "
        f"({previous.method}) has not been answered",
        (previous.ref(),) if ch == IN else (),
    )


def reused_id(
    ch: str, rid: RequestId, pending: Pending, pairing: Pairing, tracker: VersionTracker
) -> Finding | None:
    """A request whose id an earlier, closed request of its sender (`pairing`) had, in a handshake
    revision: "The request ID **MUST NOT** have been previously used by the requestor within the
    same session." (basic/index, Requests, 2025-03-26 to 2025-11-25; 2024-11-05: basic/messages).
    2026-07-28 only forbids the ids in flight ("**MUST NOT** match the ID of any other request the
    sender has issued and not yet received a response for"), which `duplicate_id` judges in every
    revision; nothing is judged before a revision is known."""
    version = tracker.version
    ended = pairing.used(rid)
    if version is None or tracker.stateless or ended is None:
        return None
    return _id_reused(
        ch,
        rid,
        pending,
        f"request id {rid!r} ({pending.method}) was used before in this session by the same sender"
        f" (that request was {ended}): in {version}, a request id MUST NOT have been previously used by"
        " the requestor within the same session",
    )


def open_request(
    pairing: Pairing, ch: str, rid: RequestId, pending: Pending, tracker: VersionTracker
) -> Finding | None:
    """A request of the side `pairing` holds (the server's, on `out`): in flight now; the id of
    one still in flight (`duplicate_id`) or, in a handshake revision, of one closed (`reused_id`).
    The client requests of no HTTP session are judged by neither: several clients of a stateless
    server each number their own ids, and nothing in the transcript tells whose a request is."""
    previous = pairing.open(rid, pending)
    if pairing.shared:
        return None
    if previous is not None:
        return duplicate_id(ch, rid, pending, previous)
    if rid in pairing.closed or rid in pairing.older:
        return reused_id(ch, rid, pending, pairing, tracker)
    return None


def unknown_response_id(rid: RequestId, at: At, why: str) -> Finding:
    """A response at `at` to an id that is not in flight (`why`: never sent, or answered already)."""
    return finding_at(rules.UNKNOWN_RESPONSE_ID, at, f"response to id {rid!r}: {why}", rid)


def cancel_unknown(target: Any, pairing: Pairing, at: At) -> Finding | None:
    """A `notifications/cancelled` at `at` for request `target` of its sender (`pairing`: the
    requests that sender made), in a revision before 2026-07-28 (check/modern.py judges that one):
    "Cancellation notifications **MUST** only reference requests that: Were previously issued in
    the same direction" (basic/utilities/cancellation, 2024-11-05 to 2025-11-25). A request already
    answered is fine (the race the same page describes); None when there is nothing to find."""
    if type(target) is not int and type(target) is not str:
        return None
    if (
        target in pairing.pending
        or target in pairing.closed
        or target in pairing.older
        or target in pairing.earlier
    ):
        return None
    who = "client" if at.channel == IN else "server"
    return finding_at(
        rules.CANCEL_UNKNOWN,
        at,
        f"notifications/cancelled references request {target!r}, which the {who} never sent",
    )


def unanswered_request(
    ch: str, rid: RequestId, pending: Pending, client_left: float | None = None
) -> Finding | None:
    """A request sent on `ch` still in flight at the end (None when that is not a finding: a
    request line that was itself rejected, a request open by design). Its party is the receiver,
    who owed the answer: the server for a client request, the client for a server's request
    (`roots/list`, `sampling/createMessage`, ... that the client never answered).

    `client_left`: when the client closed the server's stdin while the server still ran. A client
    request in flight then was abandoned by the client, not left unanswered by the server: "the
    client SHOULD initiate shutdown by: First, closing the input stream to the child process (the
    server)" (basic/lifecycle, Shutdown, stdio; 2026-07-28: transports/stdio), and the server may
    end without finishing it (an SDK MCPServer answers -32000 "Connection closed"; server-everything
    runs on until the client's SIGTERM). Info, the client's: seen, not a fault. Not for a request
    of a batch: a batch none of whose requests was answered was dropped, not being worked on
    (mcp-server-time and server-everything on 2025-03-26, which "MUST support receiving JSON-RPC
    batches")."""
    if not pending.valid or pending.method in LONG_LIVED_REQUESTS:
        return None
    other = OUT if ch == IN else IN
    message = f"request {rid!r} ({pending.method}) never got a response on {other}"
    party = SERVER if ch == IN else CLIENT
    severity: Severity | None = None
    raw = _body(pending.raw)
    if ch == IN and client_left is not None and pending.t <= client_left and raw.lstrip()[:1] != b"[":
        message = (
            f"request {rid!r} ({pending.method}) was still in flight when the client closed the server's"
            " stdin (the stdio shutdown): the client abandoned it, the server owed no answer after that"
        )
        party, severity = CLIENT, Severity.INFO
    return finding(
        rules.UNANSWERED_REQUEST,
        channel=ch,
        line=pending.line,
        offset=pending.offset,
        raw=raw,
        message=message,
        request_id=rid,
        t=pending.t,
        event=pending.event,
        party=party,
        severity=severity,
    )


def pair_rejected(msg: Message, client: Pairing, server: Pairing) -> None:
    """A rejected line (or an item of a rejected batch) that still names a request or an answer:
    pair it, judge nothing more (a request of it left unanswered is no finding: a server may drop
    a line it must not accept). `client`/`server`: the requests each side sent."""
    frame = msg.frame
    value = msg.value
    if msg.id is not None and type(value) is dict:
        pairing = client if frame.channel == IN else server
        answers = server if frame.channel == IN else client
        if msg.method is not None:
            pairing.open(msg.id, Pending(*At.of(frame), msg.method, False))
        elif "result" in value or "error" in value:
            answers.close(msg.id)


def pair_lenient(frame: Frame, version: str | None, client: Pairing, server: Pairing) -> None:
    """A line refused for its bytes (not UTF-8, a BOM, a carriage return) that a lenient reader
    still reads as a message: its requests and answers are paired as a rejected line's (a server
    that answers a request on a line holding a stray 0xff byte answers a request the client sent:
    no `unknown-response-id`; the client's request it answers is not unanswered)."""
    value = lenient(frame.body)
    if value is None:
        return
    read = classify_value(frame, value, version)
    for item in read.items if read.kind is Kind.BATCH else (read,):
        pair_rejected(item, client, server)


def still_in_flight(client: Pairing, server: Pairing, client_left: float | None) -> list[Finding]:
    """At the end: the requests of each side nobody answered (see `unanswered_request`)."""
    found = [unanswered_request(IN, rid, pending, client_left) for rid, pending in client.pending.items()]
    found += [unanswered_request(OUT, rid, pending) for rid, pending in server.pending.items()]
    return [one for one in found if one is not None]


MAX_SESSIONS = 1024  # HTTP sessions whose pairings are kept at once (the oldest forgotten first)
_MOVED = object()  # the key in use was renamed: the pairings in use must be looked up again


class Sessions:
    """The pairings (client's, server's) of each session of an HTTP transcript, by the key
    check/http/sessionkeys.py gives its exchanges: each session numbers its request ids on its own.
    The key None is the transcript's one session when it has no session ids (stdio, a stateless
    server), which every `initialize` renews, as on stdio. At most MAX_SESSIONS are kept: the
    requests in flight of one forgotten are not reported."""

    __slots__ = ("key", "pairs")

    def __init__(self, client: Pairing, server: Pairing) -> None:
        self.pairs: dict[Any, tuple[Pairing, Pairing]] = {None: (client, server)}
        self.key: Any = None  # the session in use

    def switch(self, key: Any, before: Any = None) -> tuple[Pairing, Pairing] | None:
        """The pairings of session `key` when it is not the one in use (None when it is). `before`:
        the key its pairings had until now (an initialize's own exchange, now given its id)."""
        pairs = self.pairs
        pairs[None][0].shared = True  # an HTTP transcript: the requests of no session are several clients'
        if before is not None and before in pairs:
            moved = pairs.pop(before)
            kept = pairs.setdefault(key, moved)
            if kept is not moved:  # a server that assigned no id: its requests are of no session
                kept[0].pending.update(moved[0].pending)
                kept[1].pending.update(moved[1].pending)
            if self.key == before:
                self.key = _MOVED
        if key == self.key:
            return None
        pair = pairs.get(key)
        if pair is None:
            if len(pairs) > MAX_SESSIONS:
                del pairs[next(k for k in pairs if k is not None and k != self.key)]
            pair = pairs[key] = (Pairing(), Pairing())
            if type(key) is tuple:  # an initialize: a new session for the requests of none, too (stdio's)
                for none in pairs[None]:
                    none.new_session()
        self.key = key
        return pair

    def unanswered(self, client_left: float | None) -> list[Finding]:
        """At the end: the requests of every session nobody answered."""
        return [
            f for client, server in self.pairs.values() for f in still_in_flight(client, server, client_left)
        ]

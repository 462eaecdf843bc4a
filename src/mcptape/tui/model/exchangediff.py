"""Two HTTP transcripts' exchanges aligned for the diff viewer: status, media type, headers, session.

Each exchange's heads are read by the check core's own h11 readers (`check.http.exchanges.HttpMessage`),
and the JSON-RPC method its request carried by the check core's framing and classifier
(`check.framing.lines_of`, `classify_line`). The exchanges of the two sessions are aligned by what
they are, as replay's diff aligns notifications: the n-th `POST tools/call` of one session with the
n-th of the other, the n-th `GET` with the n-th `GET` (so a GET stream opened a little earlier or
later does not shift everything after it), in the old session's order, an exchange only the new one
has after the new exchange before it. Compared: the status, the response's media type, and every
header but those whose value is the run's own (`VOLATILE`: a date, a port, a length, a session id
the server mints), which are compared by presence. The message pairs of replay's diff (`Diff`) are
then grouped under the exchange that carried them (by the `x` of their records; an executor call
under the exchange of the request it is attributed to).

Pure but for reading the two files once, when the diff viewer opens on two HTTP transcripts; the
heads only are read (a body is never kept), one exchange's readers at a time being open.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcptape.check.classify import classify_line
from mcptape.check.framing import lines_of
from mcptape.check.model import Kind
from mcptape.diff.sessions import EXECUTOR, RESPONSE, Diff, Pair
from mcptape.transcript.events import HTTP_IN, HTTP_OUT
from mcptape.transcript.reader import open_transcript

if TYPE_CHECKING:
    from mcptape.check.http.exchanges import HttpMessage

VOLATILE = frozenset(
    {
        "date",
        "host",
        "content-length",
        "mcp-session-id",
        "last-event-id",
        "etag",
        "x-request-id",
        "traceparent",
    }
)
"""Headers whose value differs from run to run: compared by presence only."""
SESSION = "mcp-session-id"
HEAD_READ = 64 * 1024  # bytes of a message read to find its head
LINE_READ = 64 * 1024  # bytes of an exchange's `in` records read to find its JSON-RPC method
NONE = "(none)"
ABSENT = "(absent)"
PRESENT = "present"


@dataclass
class ExchangeSide:
    """One side's exchange: its number, what h11 read of its heads, the JSON-RPC method it carried.
    Strings are as recorded (h11's latin-1 text): whoever shows them escapes them."""

    x: int
    method: str = "?"
    target: str = ""
    status: int = 0
    media: str = ""
    rpc: str = ""
    request_headers: dict[str, str] = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)
    t: float = 0.0  # when its first record was written

    @property
    def key(self) -> tuple[str, str]:
        """What aligns it with the other session's: the HTTP method and the JSON-RPC method."""
        return (self.method, self.rpc)

    @property
    def session(self) -> str:
        """The Mcp-Session-Id it names (the request's, else the one its response assigns)."""
        return self.request_headers.get(SESSION) or self.response_headers.get(SESSION) or ""


@dataclass(frozen=True)
class HeadChange:
    """One difference of two aligned exchanges: `where` is `status`, `content type`, or a header
    (`> name` of the request, `< name` of the response); `old`, `new` as recorded (or `ABSENT`,
    `PRESENT`, `NONE`): whoever shows them escapes them."""

    where: str
    old: str
    new: str

    @property
    def header(self) -> str | None:
        """The header's name, for a header's change."""
        return self.where[2:] if self.where[:2] in ("> ", "< ") else None


@dataclass
class ExchangePair:
    """Two aligned exchanges (either may be missing), what differs in their heads, and the message
    pairs they carried (indexes into the diff's pairs, in the diff's order)."""

    old: ExchangeSide | None
    new: ExchangeSide | None
    changes: list[HeadChange] = field(default_factory=list)
    pairs: list[int] = field(default_factory=list)

    @property
    def heads_differ(self) -> bool:
        """One side lacks it, or its status, media type or a header differs."""
        return self.old is None or self.new is None or bool(self.changes)

    @property
    def side(self) -> ExchangeSide:
        side = self.old or self.new
        assert side is not None
        return side


@dataclass
class ExchangeDiff:
    """The exchanges aligned, each with its message pairs; the message pairs no exchange carried."""

    exchanges: list[ExchangePair]
    loose: list[int]
    diff: Diff

    def differs(self, exchange: ExchangePair) -> bool:
        """Its heads differ, or a message pair it carried does."""
        return exchange.heads_differ or any(self.diff.pairs[p].differs for p in exchange.pairs)

    @property
    def differing(self) -> list[ExchangePair]:
        return [e for e in self.exchanges if self.differs(e)]


def _reader(*, request: bool) -> HttpMessage:
    from mcptape.check.http.exchanges import Budget, HttpMessage  # h11: only for an HTTP transcript

    return HttpMessage(request=request, budget=Budget(0))  # the heads are compared: no body is kept


class _Reading:
    """One exchange being read: its two head readers (dropped once their head is read)."""

    def __init__(self) -> None:
        self.request: HttpMessage | None = _reader(request=True)
        self.response: HttpMessage | None = _reader(request=False)
        self.read = [0, 0]  # bytes fed to each
        self.line = bytearray()  # its first `in` bytes, until a whole line
        self.classified = False


def read_exchanges(path: str | os.PathLike[str]) -> tuple[list[ExchangeSide], dict[int, int]]:
    """A transcript's exchanges in the order their requests came (their number), and the exchange of
    each `in`/`out` event (by event index)."""
    sides: dict[int, ExchangeSide] = {}
    reading: dict[int, _Reading] = {}
    carried: dict[int, int] = {}
    for event in open_transcript(path).events():
        x = (event.fields or {}).get("x")
        if type(x) is not int:
            continue
        side = sides.get(x)
        if side is None:
            side = sides[x] = ExchangeSide(x, t=event.t)
            reading[x] = _Reading()
        if event.ch in ("in", "out"):
            carried[event.index] = x
        now = reading.get(x)
        if now is None:
            continue
        if event.ch == "in":
            _classify(side, now, event.data)
        elif event.ch in (HTTP_IN, HTTP_OUT):
            _head(side, now, event.data, event.index, request=event.ch == HTTP_IN)
        if now.request is None and now.response is None and now.classified:
            del reading[x]
    return sorted(sides.values(), key=lambda s: s.x), carried


def _classify(side: ExchangeSide, now: _Reading, data: bytes) -> None:
    """The JSON-RPC method of the exchange's first message from the client (its first line)."""
    if now.classified:
        return
    now.line += data[: LINE_READ - len(now.line)]
    if b"\n" not in now.line and len(now.line) < LINE_READ:
        return
    now.classified = True
    message = classify_line(lines_of(bytes(now.line), "in")[0], "in")
    if message.method is not None:
        side.rpc = message.method
    elif message.kind is Kind.BATCH:
        side.rpc = "batch"
    now.line = bytearray()


def _head(side: ExchangeSide, now: _Reading, data: bytes, index: int, *, request: bool) -> None:
    reader = now.request if request else now.response
    if reader is None:
        return
    k = 0 if request else 1
    piece = data[: HEAD_READ - now.read[k]]
    now.read[k] += len(piece)
    reader.feed(piece, index, 0.0)
    head = reader.head
    if head is not None:
        headers = _headers(head.headers)
        if request:
            side.method, side.target, side.request_headers = head.method, head.target, headers
        else:
            side.status, side.media, side.response_headers = head.status, head.media, headers
    if head is not None or reader.broken is not None or now.read[k] >= HEAD_READ:
        if request:
            now.request = None
        else:
            now.response = None


def _headers(items: list[tuple[str, str]]) -> dict[str, str]:
    """Headers by name; a repeated header's values joined as one (`a, b`)."""
    found: dict[str, str] = {}
    for name, value in items:
        found[name] = f"{found[name]}, {value}" if name in found else value
    return found


def compare_exchanges(old: ExchangeSide, new: ExchangeSide) -> list[HeadChange]:
    """What differs between two aligned exchanges: status, media type, headers (request's, then
    response's, by name), and last the run's own headers that one side lacks."""
    changes: list[HeadChange] = []
    presence: list[HeadChange] = []
    if old.status != new.status:
        changes.append(HeadChange("status", str(old.status or NONE), str(new.status or NONE)))
    if old.media != new.media:
        changes.append(HeadChange("content type", old.media or NONE, new.media or NONE))
    sides = (
        ("> ", old.request_headers, new.request_headers),
        ("< ", old.response_headers, new.response_headers),
    )
    for mark, a, b in sides:
        for name in sorted(a.keys() | b.keys()):
            if name == "content-type" and mark == "< ":
                continue  # the media type, above (its parameters aside)
            before, after = a.get(name), b.get(name)
            if name in VOLATILE:
                if (before is None) != (after is None):
                    presence.append(HeadChange(mark + name, _presence(before), _presence(after)))
            elif before != after:
                changes.append(HeadChange(mark + name, _value(before), _value(after)))
    return changes + presence


def _value(value: str | None) -> str:
    return ABSENT if value is None else value


def _presence(value: str | None) -> str:
    return ABSENT if value is None else PRESENT


def align(old: list[ExchangeSide], new: list[ExchangeSide]) -> list[ExchangePair]:
    """The n-th exchange of a kind (HTTP method, JSON-RPC method) of one session with the n-th of the
    other; in the old session's order, one only the new session has after the new one before it."""
    nth: Counter[tuple[str, str]] = Counter()
    waiting: dict[tuple[tuple[str, str], int], ExchangeSide] = {}
    for side in new:
        nth[side.key] += 1
        waiting[(side.key, nth[side.key])] = side
    nth.clear()
    pairs: list[ExchangePair] = []
    for side in old:
        nth[side.key] += 1
        partner = waiting.pop((side.key, nth[side.key]), None)
        changes = compare_exchanges(side, partner) if partner is not None else []
        pairs.append(ExchangePair(side, partner, changes))
    slot = {p.new.x: i for i, p in enumerate(pairs) if p.new is not None}
    after: dict[int, list[ExchangePair]] = {}  # the new-only exchanges after pair i (-1: first)
    anchor = -1
    for side in new:
        if side.x in slot:
            anchor = slot[side.x]
        else:
            after.setdefault(anchor, []).append(ExchangePair(None, side))
    result = after.get(-1, [])
    for i, pair in enumerate(pairs):
        result.append(pair)
        result += after.get(i, [])
    return result


def exchange_diff(
    diff: Diff, old_path: str | os.PathLike[str], new_path: str | os.PathLike[str]
) -> ExchangeDiff:
    """Both transcripts' exchanges aligned, and replay's message pairs grouped under them."""
    old, old_of = read_exchanges(old_path)
    new, new_of = read_exchanges(new_path)
    exchanges = align(old, new)
    by_old = {p.old.x: i for i, p in enumerate(exchanges) if p.old is not None}
    by_new = {p.new.x: i for i, p in enumerate(exchanges) if p.new is not None}
    request_at: dict[object, int] = {}  # a request id -> the exchange that carried its answer
    placed: list[int | None] = []
    for pair in diff.pairs:
        where = _place(pair, old_of, by_old) if pair.old is not None else None
        if where is None and pair.new is not None:
            where = _place(pair, new_of, by_new, new=True)
        placed.append(where)
        if where is not None and pair.kind == RESPONSE:
            request_at.setdefault(pair.request_id, where)
    loose: list[int] = []
    for k, (pair, where) in enumerate(zip(diff.pairs, placed, strict=True)):
        if where is None and pair.kind == EXECUTOR:
            where = request_at.get(pair.key[2])
        if where is None:
            loose.append(k)
        else:
            exchanges[where].pairs.append(k)
    return ExchangeDiff(exchanges, loose, diff)


def _place(pair: Pair, carried: dict[int, int], at: dict[int, int], *, new: bool = False) -> int | None:
    """The exchange pair a message pair goes under: its old message's exchange (its new one's)."""
    item = pair.new if new else pair.old
    events = item.frame.events if item is not None else ()
    x = carried.get(events[0]) if events else None
    return at.get(x) if x is not None else None


def is_http(path: str | os.PathLike[str]) -> bool:
    """Whether a transcript was recorded over HTTP (its header names the upstream)."""
    return "http" in open_transcript(path).header.extra

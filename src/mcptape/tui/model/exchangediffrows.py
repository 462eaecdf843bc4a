"""What the diff viewer shows of two HTTP transcripts: one row per aligned exchange, which opens into
the message pairs it carried, and a detail text (`exchangediff` aligned and compared them).

A row: its mark (`=` `≠` `+` `−`, as a pair's), `▸`/`▾` when it carried messages (closed / opened),
the exchange numbers (`x4`, or `x4→x5`), what it is (`POST /mcp tools/call`), the status (`200`, or
`200→405`), the session ids (`38d9adb0→1a2b3c4d`; not below `COMPACT_BELOW` columns), and what
differs: the status, the content type, the headers by name (`< x-build`: `<` a response header, `>` a
request header), then how many of its message pairs differ. Every transcript byte goes through
`mcptape.textsafe.escape` (the heads: h11's latin-1 text, encoded back to the bytes it was read from)
or `escape_text` (a JSON-RPC method).
"""

from __future__ import annotations

from array import array

from mcptape.diff.sessions import Pair
from mcptape.textsafe import escape, escape_text
from mcptape.tui.model.detail import Spans
from mcptape.tui.model.diffrows import MARK, pair_line
from mcptape.tui.model.exchangediff import ExchangeDiff, ExchangePair, ExchangeSide
from mcptape.tui.model.foldview import HIDDEN, FoldedView
from mcptape.tui.model.rows import fit

INDENT = "    "  # a message pair listed under its exchange
SESSION_SHOWN = 8  # characters of a session id on a row
VALUE_SHOWN = 300  # bytes of a header value in the detail pane
LISTED = 200  # message pairs of an exchange listed in its detail
MAX_HEADERS = 64
_FIXED = 42  # the columns but `what` and `differs`, with their separators
_SESSION = 18  # the session column and its separator
COMPACT_BELOW = 110  # a narrower list drops the session column (the detail pane names the sessions)


def shown(text: str, limit: int | None = None) -> str:
    """A string h11 read from the wire (latin-1, one char per byte), escaped as the bytes it was."""
    return escape(text.encode("latin-1", "replace"), limit)


def what_width(width: int) -> int:
    fixed = _FIXED if width >= COMPACT_BELOW else _FIXED - _SESSION
    return max(14, min(40, (width - fixed) // 2))


def exchange_columns(width: int = 150) -> str:
    cells = ["  ", fit("exchange", 9), fit("request", what_width(width)), fit("status", 9)]
    if width >= COMPACT_BELOW:
        cells.append(fit("session", 17))
    return " ".join([*cells, "what differs"])


def exchange_kind(exd: ExchangeDiff, exchange: ExchangePair) -> str:
    """same / changed / added (new only) / removed (old only)."""
    if exchange.old is None:
        return "added"
    if exchange.new is None:
        return "removed"
    return "changed" if exd.differs(exchange) else "same"


def _numbers(exchange: ExchangePair) -> str:
    old, new = exchange.old, exchange.new
    if old is None or new is None:
        return f"x{old.x}→" if old is not None else f"→x{new.x}" if new is not None else ""
    return f"x{old.x}" if old.x == new.x else f"x{old.x}→x{new.x}"


def request_text(side: ExchangeSide) -> str:
    """`POST /mcp tools/call` (escaped)."""
    parts = [shown(side.method), shown(side.target), escape_text(side.rpc)]
    return " ".join(p for p in parts if p)


def _both(old: str, new: str) -> str:
    return old if old == new else f"{old}→{new}"


def status_text(exchange: ExchangePair) -> str:
    """`200`, `200→405`, `…` for a response not recorded."""
    old, new = exchange.old, exchange.new
    cells = [str(s.status) if s.status else "…" for s in (old, new) if s is not None]
    return _both(cells[0], cells[-1])


def session_text(exchange: ExchangePair, shown_chars: int = SESSION_SHOWN) -> str:
    """The session ids each side names (their start), `–` for none; empty when neither names one."""
    old, new = exchange.old, exchange.new
    ids = [shown(s.session[:shown_chars]) or "–" for s in (old, new) if s is not None]
    if all(i == "–" for i in ids):
        return ""
    return _both(ids[0], ids[-1])


def differs_text(exd: ExchangeDiff, exchange: ExchangePair) -> str:
    """What differs, by name: `status, < x-build · 1 of 3 message pairs differ`."""
    if exchange.old is None:
        return "only in NEW"
    if exchange.new is None:
        return "only in OLD"
    names = ", ".join(shown(c.where) for c in exchange.changes)
    count = len(exchange.pairs)
    differing = sum(1 for p in exchange.pairs if exd.diff.pairs[p].differs)
    noun = f"message pair{'s' if count != 1 else ''}"
    messages = f"{differing} of {count} {noun} differ" if differing else f"{count} {noun}" if count else ""
    return " · ".join(part for part in (names, messages) if part)


def exchange_title(exd: ExchangeDiff, exchange: ExchangePair) -> str:
    """`x7 DELETE /mcp: status, < allow`: what the header's cursor line names it by."""
    return f"{_numbers(exchange)} {request_text(exchange.side)}: {differs_text(exd, exchange)}"


def exchange_line(exd: ExchangeDiff, k: int, *, opened: bool, width: int = 150) -> tuple[str, str]:
    """The row of the k-th aligned exchange, `width` cells wide, and its kind."""
    exchange = exd.exchanges[k]
    kind = exchange_kind(exd, exchange)
    arrow = ("▾" if opened else "▸") if exchange.pairs else " "
    cells = [
        MARK[kind] + arrow,
        fit(_numbers(exchange), 9),
        fit(request_text(exchange.side), what_width(width)),
        fit(status_text(exchange), 9),
    ]
    if width >= COMPACT_BELOW:
        cells.append(fit(session_text(exchange), 17))
    line = " ".join(cells)
    return fit(f"{line} {differs_text(exd, exchange)}", width), kind


def pair_row(pair: Pair, width: int = 150) -> tuple[str, str]:
    """A message pair listed under its exchange: the pair's row, indented."""
    text, kind = pair_line(pair, max(40, width - len(INDENT)))
    return INDENT + text, kind


def exchange_detail(exd: ExchangeDiff, k: int) -> Spans:
    """The selected exchange: what differs (every value), the session ids, the message pairs it
    carried, then both sides' heads (headers as recorded, escaped)."""
    exchange = exd.exchanges[k]
    kind = exchange_kind(exd, exchange)
    out: Spans = [("bold", f"exchange {_numbers(exchange)} · {request_text(exchange.side)} · {kind}\n")]
    for change in exchange.changes:
        out.append(("bold yellow", f"  {shown(change.where)}: "))
        out.append(("", f"{shown(change.old, VALUE_SHOWN)} → {shown(change.new, VALUE_SHOWN)}\n"))
    sessions = [f"{label} {shown(s.session) or '(none)'}" for label, s in _sides(exchange)]
    if any(s.session for _, s in _sides(exchange)):
        out.append(("dim", f"  session: {' · '.join(sessions)} (compared by presence)\n"))
    count = len(exchange.pairs)
    differing = [p for p in exchange.pairs if exd.diff.pairs[p].differs]
    noun = f"message pair{'s' if count != 1 else ''}"
    said = f"carried {count} {noun}, {len(differing)} differ" if count else "carried no message pair"
    out.append(("bold", said + "\n"))
    for p in exchange.pairs[:LISTED]:
        text, _ = pair_line(exd.diff.pairs[p], 100)
        out.append(("", f"  {text.rstrip()}\n"))
    if count > LISTED:
        out.append(("dim", f"  ... {count - LISTED} more\n"))
    for label, side in _sides(exchange):
        out += _head(label, side)
    return out


def _sides(exchange: ExchangePair) -> list[tuple[str, ExchangeSide]]:
    return [(label, s) for label, s in (("old", exchange.old), ("new", exchange.new)) if s is not None]


def _head(label: str, side: ExchangeSide) -> Spans:
    response = f"{side.status} {shown(side.media)}".rstrip() if side.status else "no response head recorded"
    out: Spans = [("bold", f"{label} x{side.x}: {shown(side.method)} {shown(side.target)} → {response}\n")]
    for mark, headers in (("> ", side.request_headers), ("< ", side.response_headers)):
        for name, value in list(headers.items())[:MAX_HEADERS]:
            out.append(("dim", f"  {mark}{shown(name)}: {shown(value, VALUE_SHOWN)}\n"))
        if len(headers) > MAX_HEADERS:
            out.append(("dim", f"  {mark}... {len(headers) - MAX_HEADERS} more headers\n"))
    return out


def exchange_summary(exd: ExchangeDiff) -> str:
    """`7 exchanges, 2 differ (status 1)`: for the header's second line."""
    total, differing = len(exd.exchanges), exd.differing
    text = f"{total} exchange{'s' if total != 1 else ''}, {len(differing)} differ"
    status = sum(1 for e in differing if any(c.where == "status" for c in e.changes))
    return f"{text} (status {status})" if status else text


def listing(exd: ExchangeDiff, opened: set[int], *, only_differing: bool = False) -> FoldedView:
    """The list: exchange k is row k, message pair p is row E + p (E exchanges); an opened exchange
    lists its pairs under it; then the pairs no exchange carried. `only_differing`: the differing
    exchanges, and the differing pairs of those opened."""
    count = len(exd.exchanges)
    total = count + len(exd.diff.pairs)
    rows = array("i")
    where = array("i", [HIDDEN]) * total
    of_row = array("i", [0]) * total
    heads: dict[int, int] = {}
    pairs = exd.diff.pairs
    for k, exchange in enumerate(exd.exchanges):
        heads[k + 1] = k
        of_row[k] = k + 1
        for p in exchange.pairs:
            of_row[count + p] = k + 1
        if only_differing and not exd.differs(exchange):
            continue
        where[k] = len(rows)
        rows.append(k)
        if k in opened:
            for p in exchange.pairs:
                if not only_differing or pairs[p].differs:
                    where[count + p] = len(rows)
                    rows.append(count + p)
    for p in exd.loose:
        if not only_differing or pairs[p].differs:
            where[count + p] = len(rows)
            rows.append(count + p)
    return FoldedView(rows, where, heads, of_row)

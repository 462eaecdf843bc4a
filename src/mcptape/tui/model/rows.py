"""What one row of the message list shows, and how it is laid out in columns."""

from __future__ import annotations

from dataclasses import dataclass

# Row kinds, from least to most alarming; each has a component class on the message list.
PENDING = "pending"  # not analysed yet
WIRE = "wire"  # an HTTP transcript's raw bytes (http-in, http-out): the messages they carry are rows too
PROTOCOL = "protocol"
INFO = "info"  # a line only info findings point at (a client mistake the server handled well): dimmed
CONTROL = "control"  # eof / exit / note
STDERR = "stderr"
REJECT = "reject"  # an answer that rejects its request: a JSON-RPC error, isError: true, a schema violation
FINDING = "finding"  # a line a check rule pointed at
NONPROTOCOL = "nonprotocol"
BADLINE = "badline"  # not a well-formed transcript event
EXEC = "exec"
EXEC_AFTER_REJECT = "exec-after-reject"

KINDS = (
    PENDING,
    WIRE,
    PROTOCOL,
    INFO,
    CONTROL,
    STDERR,
    REJECT,
    FINDING,
    NONPROTOCOL,
    BADLINE,
    EXEC,
    EXEC_AFTER_REJECT,
)

ARROWS = {"in": "→", "out": "←", "err": "!", "exec": "⚙", "http": "⇢", "http-in": "→", "http-out": "←"}


@dataclass(frozen=True)
class RowInfo:
    """The cells of one row; every string here is already escaped."""

    row: int
    t: float | None
    ch: str
    size: int
    preview: str
    label: str = ""
    latency: str = ""
    status: str = ""
    kind: str = PENDING
    exchange: str = ""
    """HTTP transcripts: the exchange that carried the row (`x3 POST /mcp 200 sse`)..."""
    exchange_short: str = ""
    """... and without the path, for a narrow list (`x3 POST 200 sse`)."""
    arrow: str = ""
    """In place of the channel's arrow: `▸` / `▾` for a folded / opened HTTP exchange."""


COMPACT_BELOW = 110
"""Narrower lists drop the time, size and latency columns (the detail pane has them) for the bytes."""


@dataclass(frozen=True)
class Layout:
    """The columns a row shows at one width: `number` is the row number's width, in digits."""

    number: int = 6
    compact: bool = False
    http: bool = False
    """An HTTP transcript: wider channel names (`http-out`) and the exchange column."""

    @property
    def method_width(self) -> int:
        return 15 if self.compact else 20

    @property
    def channel_width(self) -> int:
        return 8 if self.http else 4

    @property
    def exchange_width(self) -> int:
        return 16 if self.compact else 24

    status_width = 19  # the longest rule id, non-protocol-output


def layout_for(width: int, rows: int, *, http: bool = False) -> Layout:
    """The layout for a list `width` cells wide over `rows` rows (row numbers are never cut)."""
    return Layout(number=max(6, len(str(rows))), compact=width < COMPACT_BELOW, http=http)


def fit(text: str, width: int, *, right: bool = False) -> str:
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.rjust(width) if right else text.ljust(width)


def header_text(layout: Layout = Layout()) -> str:
    cells = [fit("#", layout.number, right=True)]
    if not layout.compact:
        cells.append(fit("time", 8, right=True))
    cells += [" ", fit("ch", layout.channel_width), fit("method / id", layout.method_width)]
    if layout.http:
        cells.append(fit("exchange", layout.exchange_width))
    if not layout.compact:
        cells += [fit("size", 6, right=True), fit("lat", 7, right=True)]
    cells += [fit("status", layout.status_width), "content"]
    return " ".join(cells)


def row_text(info: RowInfo, layout: Layout = Layout()) -> str:
    """The plain text of a row (styles are applied by the list, per kind)."""
    cells = [fit(str(info.row + 1), layout.number, right=True)]
    if not layout.compact:
        cells.append(fit("" if info.t is None else f"{info.t:.3f}", 8, right=True))
    cells += [
        info.arrow or ARROWS.get(info.ch, " "),
        fit(info.ch, layout.channel_width),
        fit(info.label, layout.method_width),
    ]
    if layout.http:
        cells.append(fit(info.exchange_short if layout.compact else info.exchange, layout.exchange_width))
    if not layout.compact:
        size = _size(info.size) if info.size or not info.arrow else ""
        cells += [fit(size, 6, right=True), fit(info.latency, 7, right=True)]
    cells += [fit(info.status, layout.status_width), info.preview]
    return " ".join(cells)


def _size(n: int) -> str:
    if n < 10_000:
        return f"{n}B"
    if n < 10_000_000:
        return f"{n // 1024}K"
    return f"{n // (1 << 20)}M"

"""What one row of the message list shows, and how it is laid out in columns."""

from __future__ import annotations

from dataclasses import dataclass

# Row kinds, from least to most alarming; each has a component class on the message list.
PENDING = "pending"  # not analysed yet
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

ARROWS = {"in": "→", "out": "←", "err": "!", "exec": "⚙", "http": "⇢"}


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


COMPACT_BELOW = 110
"""Narrower lists drop the time, size and latency columns (the detail pane has them) for the bytes."""


@dataclass(frozen=True)
class Layout:
    """The columns a row shows at one width: `number` is the row number's width, in digits."""

    number: int = 6
    compact: bool = False

    @property
    def method_width(self) -> int:
        return 15 if self.compact else 20

    status_width = 19  # the longest rule id, non-protocol-output


def layout_for(width: int, rows: int) -> Layout:
    """The layout for a list `width` cells wide over `rows` rows (row numbers are never cut)."""
    return Layout(number=max(6, len(str(rows))), compact=width < COMPACT_BELOW)


def fit(text: str, width: int, *, right: bool = False) -> str:
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.rjust(width) if right else text.ljust(width)


def header_text(layout: Layout = Layout()) -> str:
    cells = [fit("#", layout.number, right=True)]
    if not layout.compact:
        cells.append(fit("time", 8, right=True))
    cells += [" ", fit("ch", 4), fit("method / id", layout.method_width)]
    if not layout.compact:
        cells += [fit("size", 6, right=True), fit("lat", 7, right=True)]
    cells += [fit("status", layout.status_width), "content"]
    return " ".join(cells)


def row_text(info: RowInfo, layout: Layout = Layout()) -> str:
    """The plain text of a row (styles are applied by the list, per kind)."""
    cells = [fit(str(info.row + 1), layout.number, right=True)]
    if not layout.compact:
        cells.append(fit("" if info.t is None else f"{info.t:.3f}", 8, right=True))
    cells += [ARROWS.get(info.ch, " "), fit(info.ch, 4), fit(info.label, layout.method_width)]
    if not layout.compact:
        cells += [fit(_size(info.size), 6, right=True), fit(info.latency, 7, right=True)]
    cells += [fit(info.status, layout.status_width), info.preview]
    return " ".join(cells)


def _size(n: int) -> str:
    if n < 10_000:
        return f"{n}B"
    if n < 10_000_000:
        return f"{n // 1024}K"
    return f"{n // (1 << 20)}M"

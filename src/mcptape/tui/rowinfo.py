"""What one row of the message list shows, and how it is laid out in columns."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

# Row kinds, from least to most alarming; each has a component class on the message list.
PENDING = "pending"  # not analysed yet
PROTOCOL = "protocol"
CONTROL = "control"  # eof / exit / note
STDERR = "stderr"
REJECT = "reject"  # a JSON-RPC error or a tool error
FINDING = "finding"  # a line a check rule pointed at
NONPROTOCOL = "nonprotocol"
BADLINE = "badline"  # not a well-formed transcript event
EXEC = "exec"
EXEC_AFTER_REJECT = "exec-after-reject"

KINDS = (
    PENDING,
    PROTOCOL,
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


COLUMNS = (("#", 6), ("time", 8), ("", 1), ("ch", 4), ("method / id", 20), ("size", 6), ("lat", 7))
STATUS_WIDTH = 19


def fit(text: str, width: int, *, right: bool = False) -> str:
    if len(text) > width:
        return text[: max(0, width - 1)] + "…"
    return text.rjust(width) if right else text.ljust(width)


def header_text() -> Text:
    cells = [fit(name, width, right=name in ("#", "time", "size", "lat")) for name, width in COLUMNS]
    cells.append(fit("status", STATUS_WIDTH))
    cells.append("raw")
    return Text(" ".join(cells))


def row_text(info: RowInfo) -> str:
    """The plain text of a row (styles are applied by the list, per kind)."""
    t = "" if info.t is None else f"{info.t:.3f}"
    cells = [
        fit(str(info.row + 1), 6, right=True),
        fit(t, 8, right=True),
        ARROWS.get(info.ch, " "),
        fit(info.ch, 4),
        fit(info.label, 20),
        fit(_size(info.size), 6, right=True),
        fit(info.latency, 7, right=True),
        fit(info.status, STATUS_WIDTH),
        info.preview,
    ]
    return " ".join(cells)


def _size(n: int) -> str:
    if n < 10_000:
        return f"{n}B"
    if n < 10_000_000:
        return f"{n // 1024}K"
    return f"{n // (1 << 20)}M"

"""The row that stands for a folded HTTP exchange (listed by exchange, `foldview.py`).

It says, in the list's columns: the request's time; `▸` (folded) or `▾` (opened) and `exchange`; the
method and id of the JSON-RPC request it carried; the exchange (`x6 POST /mcp 200 sse`); how long it
lasted (first to last record); the first finding on any of its rows, else `exchange`; and the session
id the exchange names (`Mcp-Session-Id`, the request's, else the one the response assigned), how many
messages it carried each way, and what the client's request says. Its style is the most alarming of
its rows' (a folded exchange never hides a finding). Nothing is read here that the check pass and
`exchange.Exchanges` did not already read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from mcptape.textsafe import escape_text
from mcptape.transcript.events import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model import rows as K
from mcptape.tui.model.exchange import Exchanges
from mcptape.tui.model.rowfacts import KIND_CODE, RowFacts
from mcptape.tui.model.rows import RowInfo

SCANNED = 100_000  # rows of one exchange scanned for its style and findings (a stream can be huge)
SESSION_SHOWN = 40  # characters of a session id shown


def exchange_info(
    head: int,
    x: int,
    *,
    opened: bool,
    facts: RowFacts,
    exchanges: Exchanges,
    index: TranscriptIndex,
    describe: Callable[[int], RowInfo],
) -> RowInfo:
    """The cells of exchange `x`'s row (`head`: the row that stands for it)."""
    info = describe(head)
    assert facts.exchanges is not None
    kind = KIND_CODE[K.PROTOCOL]
    rules: list[str] = []
    last = head
    for n, row in enumerate(facts.exchanges.rows(x)):
        if n >= SCANNED:
            break
        last = max(last, row)
        kind = max(kind, facts.kind[row])
        rules.extend(f.rule for f in facts.findings.get(row, ()))
    stream = exchanges.stream(x)
    heads = exchanges.heads(x)
    session = ""
    if heads is not None:
        for one in (heads.request, heads.response):
            if one is not None and one.session:
                session = one.session
                break
    parts = []
    if session:
        cut = escape_text(session[:SESSION_SHOWN]) + ("…" if len(session) > SESSION_SHOWN else "")
        parts.append(f"session {cut}")
    parts.append(f"{len(stream.sent)}→ {len(stream.answered)}←" + (" sse" if stream.sse else ""))
    label = ""
    if stream.sent:
        first = describe(stream.sent[0])
        label = first.label
        if first.preview:
            parts.append(first.preview)
    start, end = index.event(head), index.event(last)
    lasted = end.t - start.t if isinstance(start, Event) and isinstance(end, Event) else None
    status = "exchange"
    if rules:
        status = rules[0] + (f" +{len(rules) - 1}" if len(rules) > 1 else "")
    return replace(
        info,
        ch="exchange",
        arrow="▾" if opened else "▸",
        label=label,
        size=0,
        latency="" if lasted is None else _duration(lasted),
        status=status,
        kind=K.KINDS[kind],
        preview=" · ".join(parts),
    )


def _duration(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.2f}ms" if ms < 10 else f"{ms:.0f}ms" if ms < 10_000 else f"{seconds:.0f}s"

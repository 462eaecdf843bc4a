"""The HTML report's timeline, an inline SVG picture: requests as bars on a time axis, actions as
dots (red when after a reject), findings as triangles. What the template draws, as numbers and
escaped text (the template escapes it again: nothing from a transcript is ever markup)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from mcptape.export.session import Session
from mcptape.textsafe import escape_controls

BARS_DRAWN = 400  # requests drawn on the timeline
WIDTH, LEFT, ROW = 1000, 170, 13
SEVERITY_FILL = {"error": "#d00", "warning": "#e80", "info": "#999"}


class Bar(NamedTuple):
    """A request on the timeline."""

    x: float
    y: float
    w: float
    fill: str
    label: str
    title: str


class Dot(NamedTuple):
    """An action (a dot) or a finding (a triangle) on the timeline."""

    x: float
    y: float
    fill: str
    title: str


def x_of(t: float, end: float) -> float:
    return round(LEFT + (WIDTH - LEFT - 10) * (t / end if end > 0 else 0.0), 2)


def timeline(session: Session, raw: Callable[[bytes], str]) -> dict[str, Any]:
    """The template's `svg`: a bar per request (the first BARS_DRAWN), a dot per action (red after a
    reject), a triangle per finding on the axis, five ticks; `raw` shows an action's bytes."""
    end = max(session.end, 1e-6)
    bars: list[Bar] = []
    dots: list[Dot] = []
    after_reject = {f.event for f in session.analysis.findings if f.rule == "exec-after-reject"}
    for row, call in enumerate(session.calls[:BARS_DRAWN]):
        y = 6 + row * ROW
        stop = call.end if call.end is not None else end
        error = call.error
        fill = "#999" if error == "unanswered" else ("#e80" if error else "#36c")
        label = call.method + (f" {call.target}" if call.target else "")
        title = f"{label} (id {call.request.id}) at {call.start:.6f}s, {(stop - call.start) * 1000:.3f} ms"
        if error:
            title += f", error {error}"
        x = x_of(call.start, end)
        w = max(round(x_of(stop, end) - x, 2), 1.5)
        bars.append(Bar(x, y, w, fill, escape_controls(label[:28]), escape_controls(title)))
        for action in call.actions:
            red = action.frame.event in after_reject
            said = ("after a reject: " if red else "action: ") + raw(action.frame.body)[:300]
            dots.append(Dot(x_of(action.frame.t, end), y + 5, "#d00" if red else "#2a2", said))
    rows = min(len(session.calls), BARS_DRAWN)
    axis = 12 + rows * ROW
    marks = [
        Dot(
            x_of(f.t or 0.0, end),
            axis - 10,
            SEVERITY_FILL.get(f.severity.value, "#999"),
            f"{f.severity.value} {f.rule}: {escape_controls(f.message)[:300]}",
        )
        for f in session.analysis.findings
    ]
    anchors = ("start", "middle", "middle", "middle", "end")
    ticks = [
        {"x": x_of(end * i / 4, end), "label": f"{end * i / 4:.3f}s", "anchor": anchors[i]} for i in range(5)
    ]
    more = max(len(session.calls) - BARS_DRAWN, 0)
    return {
        "width": WIDTH,
        "height": axis + 20,
        "left": LEFT,
        "axis": axis,
        "bars": bars,
        "dots": dots,
        "marks": marks,
        "ticks": ticks,
        "more": more,
    }

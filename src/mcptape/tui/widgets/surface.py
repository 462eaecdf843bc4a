"""The detail pane's tables of a tool surface: a listing's tools, a drift's two definitions side by side.

The model (`tui/model/surfaceview.py`) has escaped every cell; each cell is handed to rich as `Text`,
never as a string (a string would be read as console markup: a server's `[bold]` would style the pane).
"""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from mcptape.tui.model.detail import Detail
from mcptape.tui.model.surfaceview import HINTS, DriftView, ToolTable

SEVERITY = {"breaking": "bold red", "suspicious": "bold yellow", "compatible": "green", "words": "yellow"}
MARKS = {" ": "", "≠": "yellow", "−": "red", "+": "green"}


def surface_tables(detail: Detail) -> list[Table | Text]:
    out: list[Table | Text] = []
    if detail.tools is not None:
        out += tools_renderables(detail.tools)
    for drift in detail.drift:
        out += drift_renderables(drift)
    return out


def tools_renderables(table: ToolTable) -> list[Table | Text]:
    grid = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=True, title_justify="left")
    grid.title = Text(table.title, style="bold underline")
    grid.add_column("name", no_wrap=True, max_width=32, style="bold")
    grid.add_column("title", max_width=24)
    for _, column, _ in HINTS:
        grid.add_column(column, no_wrap=True)
    grid.add_column("required", max_width=28)
    grid.add_column("description", ratio=1)
    for row in table.rows:
        hints = [Text(h, style="dim" if h.startswith("(") else "") for h in row.hints]
        grid.add_row(Text(row.name), Text(row.title), *hints, Text(row.required), Text(row.summary))
    out: list[Table | Text] = [grid]
    notes = list(table.notes)
    if table.more:
        notes.append(f"... {table.more} more tools")
    notes.append(
        "(yes)/(no): the hint is absent, the schema's default applies; hints are the server's claims"
    )
    out.append(Text("\n".join(notes), style="dim"))
    return out


def drift_renderables(drift: DriftView) -> list[Table | Text]:
    out: list[Table | Text] = [Text(f"\ndrift: {drift.title}", style="bold underline")]
    if drift.notes:
        out.append(Text("\n".join(drift.notes), style="dim"))
    for definition in drift.definitions:
        head = Text(definition.title, style="bold")
        for severity, text in definition.changes:
            head.append("\n  ")
            head.append(Text(f"{severity:<11}", style=SEVERITY.get(severity, "")))
            head.append(Text(text))
        out.append(head)
        sides = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, expand=True)
        sides.add_column("", width=1, no_wrap=True)
        sides.add_column("old", ratio=1, overflow="fold")
        sides.add_column("new", ratio=1, overflow="fold")
        for line in definition.lines:
            style = MARKS.get(line.mark, "")
            sides.add_row(
                Text(line.mark, style=style), Text(line.old, style=style), Text(line.new, style=style)
            )
        out.append(sides)
    return out

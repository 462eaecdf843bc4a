"""What the detail pane shows of a tool surface: a listing's tools as a table, and a drift finding's
old and new definitions side by side.

Nothing is parsed or judged here: a listing is read by the surface package's own `Extractor` (fed
the check core's messages: the request and its answer), the changes between two listings are
`surface.compare`'s, and a drift is the finding the check pass made (`tools-drift`, whose related
line is the earlier listing). This module lays them out; every string taken from a server goes
through `mcptape.textsafe` (`escape_text`), and pretty JSON through the same character filter.

The hints column follows the 2026-07-28 schema's `ToolAnnotations`: an absent hint means its default
(readOnlyHint false, destructiveHint true, idempotentHint false, openWorldHint true), shown in
parentheses; and "clients MUST consider tool annotations to be untrusted unless they come from
trusted servers" (server/tools): the table says what the server claims, not what is true.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcptape.check.model import Message
from mcptape.jsonsafe import dumps
from mcptape.surface.model import Change, Definition, Surface
from mcptape.textsafe import escape_text
from mcptape.tui.model.safe import one_line

if TYPE_CHECKING:
    from mcptape.surface.extract import Listing

HINTS = (
    ("readOnlyHint", "read-only", False),
    ("destructiveHint", "destructive", True),
    ("idempotentHint", "idempotent", False),
    ("openWorldHint", "open-world", True),
)
"""(annotation, column, the schema's default when absent)."""
LIMIT = 200  # characters of a name, a title or a description's first line shown
TABLE_ROWS = 500  # tools listed in the table (a huge listing says how many more)
JSON_LINES = 400  # lines of a definition's pretty JSON compared side by side


def shown(value: Any, limit: int = LIMIT) -> str:
    """A server's string as one safe line (cut to `limit` characters); anything else as compact JSON."""
    text = value if isinstance(value, str) else dumps(value)
    cut = text[:limit]
    return escape_text(cut).replace("\n", "\\n") + ("…" if len(text) > limit else "")


@dataclass(frozen=True)
class ToolRow:
    """One tool of the table; every cell already escaped."""

    name: str
    title: str
    hints: tuple[str, ...]  # per HINTS: "yes", "no", "(yes)"/"(no)" when absent, "?" when not a boolean
    required: str
    summary: str  # the description's first line


@dataclass
class ToolTable:
    """A listing's tools, as the detail pane draws them."""

    title: str
    rows: list[ToolRow] = field(default_factory=list)
    more: int = 0  # tools past TABLE_ROWS
    notes: list[str] = field(default_factory=list)


def _hint(annotations: Any, member: str, default: bool) -> str:
    value = annotations.get(member) if isinstance(annotations, dict) else None
    if value is None:
        return "(yes)" if default else "(no)"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "?"


def _required(schema: Any) -> str:
    required = schema.get("required") if isinstance(schema, dict) else None
    if not isinstance(required, list):
        return ""
    return ", ".join(shown(name, 60) for name in required[:20]) + (" …" if len(required) > 20 else "")


def tool_row(definition: Definition) -> ToolRow:
    """A definition's cells: its name, title, hints, required arguments and description's first line."""
    value = definition.value
    description = value.get("description")
    first = description.strip().split("\n", 1)[0] if isinstance(description, str) else ""
    title = value.get("title")
    annotations = value.get("annotations")
    if not isinstance(title, str) and isinstance(annotations, dict):  # the older place of a title
        title = annotations.get("title")
    return ToolRow(
        name=shown(definition.name),
        title=shown(title) if isinstance(title, str) else "",
        hints=tuple(_hint(annotations, member, default) for member, _, default in HINTS),
        required=_required(value.get("inputSchema")),
        summary=shown(first),
    )


def _read(request: Message | None, answer: Message) -> tuple[Listing | None, list[str]]:
    """The listing one answer carries (None when it answers no listing the surface package knows), read
    by `surface.extract.Extractor` from the request and its answer, and what it noted reading it."""
    from mcptape.surface.extract import Extractor  # with the first listing shown, not at start-up

    extractor = Extractor()
    if request is not None:
        extractor.feed(request)
    extractor.feed(answer)
    found = extractor.listings[-1] if extractor.listings else next(iter(extractor.current.values()), None)
    return found, extractor.surface.notes


def listing_of(request: Message | None, answer: Message) -> Listing | None:
    return _read(request, answer)[0]


def tools_table(request: Message | None, answer: Message) -> ToolTable | None:
    """The table of the tools a `tools/list` answer carries (None: not such an answer)."""
    listing, notes = _read(request, answer)
    if listing is None or listing.kind.member != "tools":
        return None
    items = list(listing.items.values())
    table = ToolTable(f"{len(items)} tool{'s' if len(items) != 1 else ''} listed in this answer")
    table.rows = [tool_row(d) for d in items[:TABLE_ROWS]]
    table.more = max(0, len(items) - TABLE_ROWS)
    if listing.next_cursor is not None:
        table.notes.append("this page announces another (nextCursor): the listing goes on in the next answer")
    if request is not None and _cursor(request) is not None:
        table.notes.append("this answer is a later page of a listing: its own tools only")
    table.notes.extend(one_line(note) for note in notes)
    return table


def _cursor(request: Message) -> Any:
    value = request.value
    params = value.get("params") if isinstance(value, dict) else None
    return params.get("cursor") if isinstance(params, dict) else None


# -- drift: two listings side by side ----------------------------------------------------------------


@dataclass(frozen=True)
class SideLine:
    """One line of two definitions side by side: `mark` is ` ` same, `≠` changed, `−` old only,
    `+` new only; both texts already escaped."""

    mark: str
    old: str
    new: str


@dataclass
class DefinitionDrift:
    """One definition that changed between two listings: its changes (severity, path, detail, the
    changed words) and its pretty JSON before and after, line by line."""

    title: str
    changes: list[tuple[str, str]] = field(default_factory=list)  # (severity, text)
    lines: list[SideLine] = field(default_factory=list)


@dataclass
class DriftView:
    """A drift finding laid out: which answers, and each changed definition."""

    title: str
    definitions: list[DefinitionDrift] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _alone(listing: Listing) -> Surface:
    surface = Surface()
    surface.definitions[listing.kind.member] = listing.items
    surface.listed.add(listing.kind.member)
    return surface


def drift_view(
    earlier: tuple[Message | None, Message],
    later: tuple[Message | None, Message],
    where: tuple[int, int],
) -> DriftView | None:
    """The earlier and the later listing (each a request and its answer) compared by
    `surface.compare`, every changed definition's JSON side by side. `where` names their rows."""
    from mcptape.surface.compare import compare  # jsonschema and referencing: only for a drift shown

    old, new = listing_of(*earlier), listing_of(*later)
    if old is None or new is None or old.kind is not new.kind:
        return None
    changes = compare(_alone(old), _alone(new)).changes
    view = DriftView(f"{new.kind.member} of row {where[1] + 1} against row {where[0] + 1}")
    if not changes:
        view.notes.append("these two answers list the same definitions (the drift is in pages not shown)")
    by_name: dict[str, list[Change]] = {}
    for change in changes:
        by_name.setdefault(change.name, []).append(change)
    for name, found in by_name.items():
        before, after = old.items.get(name), new.items.get(name)
        drift = DefinitionDrift(f"{found[0].kind} {shown(name)}")
        for change in found:
            drift.changes.append(
                (change.severity.value, f"{one_line(change.path)}  {one_line(change.detail)}")
            )
            if change.words:
                drift.changes.append(("words", f"words: {one_line(change.words)}"))
        drift.lines = side_by_side(
            None if before is None else before.value, None if after is None else after.value
        )
        view.definitions.append(drift)
    return view


def _pretty(value: Any) -> list[str]:
    if value is None:
        return []
    lines = dumps(value, indent=True, sort_keys=True).split("\n")
    return [one_line(line) for line in lines[:JSON_LINES]] + (["…"] if len(lines) > JSON_LINES else [])


def side_by_side(old: Any, new: Any) -> list[SideLine]:
    """Two JSON values' pretty lines (members sorted) aligned line by line, the changed ones marked."""
    a, b = _pretty(old), _pretty(new)
    out: list[SideLine] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out += [SideLine(" ", x, y) for x, y in zip(a[i1:i2], b[j1:j2], strict=True)]
            continue
        olds, news = a[i1:i2], b[j1:j2]
        for k in range(max(len(olds), len(news))):
            x = olds[k] if k < len(olds) else ""
            y = news[k] if k < len(news) else ""
            mark = "≠" if k < len(olds) and k < len(news) else ("−" if k < len(olds) else "+")
            out.append(SideLine(mark, x, y))
    return out


def table_lines(table: ToolTable) -> Iterable[str]:
    """The table as plain lines (for a test or a text export; the pane draws a real table)."""
    yield table.title
    yield " | ".join(["name", "title", *(c for _, c, _ in HINTS), "required", "description"])
    for row in table.rows:
        yield " | ".join([row.name, row.title, *row.hints, row.required, row.summary])

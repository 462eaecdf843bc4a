"""A replay's tool surface, compared: what the recorded server declared (its tools, prompts and
resources, with its serverInfo and capabilities) against what the new build declared, each change
judged by the tool surface's own diff (`surface.compare`: breaking, suspicious, compatible).

The report gives it a line of its own (`tool surface: 1 breaking, 2 suspicious changes: ...`), so a
removed tool or a rewritten description is not only a path inside the tools/list message diff.
Informative: the verdict stays the message diff's (a tools/list that differs already makes the
sessions differ; an ignore rule that hides it does not hide this line).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from mcptape.diff.sessions import Diff
from mcptape.surface.compare import Diff as SurfaceDiff
from mcptape.surface.compare import compare
from mcptape.surface.model import KIND_OF_METHOD
from mcptape.surface.report import ORDER, change_json, title
from mcptape.textsafe import escape_controls

if TYPE_CHECKING:
    from mcptape.transcript.reader import Transcript

SHOWN_CHANGES = 20


def surface_change(old: Transcript, new: Transcript, diff: Diff) -> SurfaceDiff | None:
    """The surface diff of the two sessions, or None when neither listed anything (the sessions are
    read again only then: most replays list nothing, or list it once)."""
    if not any(pair.scope in KIND_OF_METHOD for pair in diff.pairs):
        return None
    from mcptape.check.analyze import messages
    from mcptape.surface.extract import surface_of

    return compare(surface_of(messages(old.events())), surface_of(messages(new.events())))


def counts_line(change: SurfaceDiff) -> str:
    """`1 breaking, 2 suspicious changes` (empty: no change)."""
    counts = Counter(c.severity for c in change.changes)
    parts = [f"{counts[s]} {s.value}" for s in ORDER if counts[s]]
    if not parts:
        return ""
    return ", ".join(parts) + (" change" if len(change.changes) == 1 else " changes")


def surface_lines(change: SurfaceDiff | None) -> list[str]:
    """The report's line (and a line per change, most severe first), nothing when the surface is
    unchanged; the notes say what could not be compared (a kind only one session listed)."""
    if change is None:
        return []
    out = []
    if change.changes:
        ordered = sorted(change.changes, key=lambda c: ORDER.index(c.severity))
        first = ordered[0]
        out.append(f"tool surface: {counts_line(change)}: {title(first)}: {first.detail}")
        for item in ordered[:SHOWN_CHANGES]:
            where = escape_controls(item.path) or "-"
            out.append(f"  {item.severity.value:<11} {title(item)} {where}  {item.detail}")
            if item.words:
                out.append(f"  {'':<11} words: {item.words}")
        if len(ordered) > SHOWN_CHANGES:
            out.append(f"  ... and {len(ordered) - SHOWN_CHANGES} more (see --json)")
    out.extend(f"note: tool surface: {escape_controls(note)}" for note in change.notes)
    return out


def surface_json(change: SurfaceDiff | None) -> dict[str, Any] | None:
    """`changes` (each as `mcptape tools diff --json` gives it), `counts`, `summary`, `notes`; null
    when neither session listed tools, prompts or resources."""
    if change is None:
        return None
    counts = Counter(c.severity.value for c in change.changes)
    return {
        "changes": [change_json(c, False) for c in change.changes],
        "counts": {s.value: counts.get(s.value, 0) for s in ORDER},
        "summary": counts_line(change) or "no change",
        "notes": change.notes,
    }

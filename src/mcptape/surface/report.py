"""A surface diff as text (grouped by definition, the changed words shown) and as JSON.

Every name and word from a server goes through `textsafe` (`escape_controls`: a tool's name or
description can carry ESC sequences, bidi controls or invisible characters meant for the model,
and must not drive or mislead the terminal of the person reviewing it).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from mcptape.surface.compare import SERVER, Diff
from mcptape.surface.drift import Drift
from mcptape.surface.model import GATING, Change, Severity
from mcptape.textsafe import escape_controls

ORDER = (Severity.BREAKING, Severity.SUSPICIOUS, Severity.COMPATIBLE)


def title(change: Change) -> str:
    """`tool get_weather`, `prompt greet`, `server`."""
    return "server" if change.kind == SERVER else f"{change.kind} {escape_controls(change.name)}"


def summary(diff: Diff, accepted: list[bool], failing: int) -> str:
    """One line: the counts per severity, and what the gate says."""
    counts = Counter(change.severity for change in diff.changes)
    if not diff.changes:
        return "no change"
    parts = ", ".join(f"{counts[s]} {s.value}" for s in ORDER if counts[s])
    taken = sum(
        1 for change, ok in zip(diff.changes, accepted, strict=True) if ok and change.severity in GATING
    )
    verdict = f"{failing} not accepted: fail" if failing else "nothing to review: pass"
    if taken:
        verdict = f"{taken} accepted, " + verdict
    plural = "s" if len(diff.changes) != 1 else ""
    return f"{len(diff.changes)} change{plural}: {parts} ({verdict})"


def diff_text(diff: Diff, accepted: list[bool], base: str, new: str, failing: int) -> str:
    lines = [f"mcptape tools diff: {escape_controls(base)} -> {escape_controls(new)}"]
    shown: str | None = None
    for change, ok in zip(diff.changes, accepted, strict=True):
        heading = title(change)
        if heading != shown:
            lines.append(heading)
            shown = heading
        mark = " (accepted)" if ok and change.severity in GATING else ""
        where = escape_controls(change.path) or "-"
        lines.append(f"  {change.severity.value:<11} {where}  {change.detail}{mark}")
        if change.words:
            lines.append(f"  {'':<11} words: {change.words}")
    for note in diff.notes:
        lines.append(f"note: {escape_controls(note)}")
    lines.append(summary(diff, accepted, failing))
    return "\n".join(lines) + "\n"


def change_json(change: Change, accepted: bool) -> dict[str, Any]:
    """The one JSON form of a change (what an --accept file may list back)."""
    found: dict[str, Any] = {
        "kind": change.kind,
        "tool": change.name,
        "severity": change.severity.value,
        "path": change.path,
        "detail": change.detail,
        "accepted": accepted,
    }
    if change.flags:
        found["flags"] = list(change.flags)
    if change.words:
        found["words"] = change.words
    if change.before is not None:
        found["before"] = change.before
    if change.after is not None:
        found["after"] = change.after
    return found


def diff_json(diff: Diff, accepted: list[bool], base: str, new: str, failing: int) -> dict[str, Any]:
    counts = Counter(change.severity.value for change in diff.changes)
    return {
        "base": escape_controls(base),
        "new": escape_controls(new),
        "changes": [change_json(c, ok) for c, ok in zip(diff.changes, accepted, strict=True)],
        "counts": {s.value: counts.get(s.value, 0) for s in ORDER},
        "failing": failing,
        "notes": diff.notes,
        "summary": summary(diff, accepted, failing),
    }


def drift_text(drifts: list[Drift], path: str) -> str:
    """Each listing that changed mid-session, at its line, with its changes."""
    lines = [f"mcptape tools drift: {escape_controls(path)}"]
    for drift in drifts:
        lines.append(
            f"{drift.severity:<8} line {drift.event + 2}: {drift.summary} (since line {drift.previous + 2})"
        )
        for change in drift.changes:
            where = escape_controls(change.path) or "-"
            lines.append(f"  {title(change)}  {change.severity.value:<11} {where}  {change.detail}")
            if change.words:
                lines.append(f"  {'':<11} words: {change.words}")
    if not drifts:
        lines.append("no listing changed during the session")
    return "\n".join(lines) + "\n"


def drift_json(drifts: list[Drift], path: str) -> dict[str, Any]:
    return {
        "file": escape_controls(path),
        "drift": [
            {
                "kind": drift.kind,
                "severity": drift.severity,
                "event": drift.event,
                "previous": drift.previous,
                "announced": drift.announced,
                "summary": drift.summary,
                "changes": [change_json(change, False) for change in drift.changes],
            }
            for drift in drifts
        ],
    }

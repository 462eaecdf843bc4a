"""What the diff viewer shows: replay's `Diff` as rows (one per aligned pair) and a detail text.

Nothing is compared here: the pairs, their alignment and their changed paths are replay's diff
(built on the check core). This module only lays them out, escaping every transcript byte.
"""

from __future__ import annotations

from typing import Any

from mcptape.check.model import ExecCall, Message
from mcptape.diff.compare import MISSING
from mcptape.diff.sessions import Diff, Pair
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape
from mcptape.tui.model.detail import Spans
from mcptape.tui.model.essence import essence
from mcptape.tui.model.rows import fit
from mcptape.tui.model.safe import one_line, safe_text

SHORT = {"response": "resp", "notification": "notif", "server-request": "sreq", "executor": "exec"}
MARK = {"same": "=", "changed": "≠", "added": "+", "removed": "−"}
LEGEND = "row marks: = same, ≠ changed, + only in NEW, − only in OLD"
SIDE = 56  # the old side's width on a 150-column terminal
PREFIX = 38  # marker, kind, method and key columns with their separators
DETAIL = 300  # characters of a changed value in the detail pane
CONTEXT = 12  # characters kept before the first difference of two long values


def side_width(width: int) -> int:
    """Old and new share what the prefix leaves of the list's width equally."""
    return max(12, (width - PREFIX - 1) // 2)


def pair_kind(pair: Pair) -> str:
    """same / changed / added (new only) / removed (old only)."""
    if pair.old is None:
        return "added"
    if pair.new is None:
        return "removed"
    return "changed" if pair.changes else "same"


def key_text(pair: Pair) -> str:
    """What aligned the pair: the request id (a response; an executor call's request, then which
    call of it when there are several), or which notification / server request of its method."""
    if pair.kind == "response":
        return f"#{pair.key[1]}"
    if pair.kind == "executor":
        request = "#?" if pair.key[-2] is None else f"#{pair.key[-2]}"
        return request if pair.key[-1] == 1 else f"{request} n={pair.key[-1]}"
    return f"n={pair.key[2]}"  # (kind, method, n), or (kind, method, n, stream) for a stream


def raw_of(item: Message | ExecCall | None) -> bytes | None:
    return None if item is None else item.frame.raw


def preview(item: Message | ExecCall | None, limit: int = SIDE, method: str | None = None) -> str:
    """What one side says: a message's essence (a tool call and its arguments, what a tool
    answered), else the start of its raw bytes."""
    said = essence(item, method) if isinstance(item, Message) else None
    if said is not None:
        return said
    raw = raw_of(item)
    return "(none)" if raw is None else escape(raw.rstrip(b"\n"), limit)


def columns_text(width: int = 150) -> str:
    side = side_width(width)
    return " ".join(["  ", fit("kind", 5), fit("method", 20), fit("key", 7), fit("old", side), "new"])


def _cell(where: str, value: str, more: str, width: int) -> str:
    """A changed value with as much of its context as fits: path and count, then the value alone."""
    for text in (f"{where}: {value}{more}", f"{value}{more}"):
        if len(text) <= width:
            return text
    return value


def pair_line(pair: Pair, width: int = 150) -> tuple[str, str]:
    """One row, `width` cells wide: marker, kind, method, key, old and new side by side; its kind.

    A changed pair shows its first changed value on both sides, from just before where the two
    first differ when they are too long to show whole, with its path when there is room (the rest
    is in the detail pane); other pairs show what their message says (`essence`).
    """
    kind = pair_kind(pair)
    side = side_width(width)
    old, new = preview(pair.old, side, pair.scope), preview(pair.new, side, pair.scope)
    if pair.changes:
        first = pair.changes[0]
        more = f" (+{len(pair.changes) - 1} more)" if len(pair.changes) > 1 else ""
        where = one_line(first.where)
        old_value, new_value = values_apart(first.old, first.new, side - len(more))
        old = _cell(where, old_value, more, side)
        new = _cell(where, new_value, more, side)
    cells = [
        MARK[kind] + " ",
        fit(SHORT.get(pair.kind, pair.kind), 5),
        fit(one_line(pair.scope), 20),
        fit(one_line(key_text(pair)), 7),
        fit(old, side),
        fit(new, side),
    ]
    return " ".join(cells), kind


def _text(value: Any) -> str:
    return "(missing)" if value is MISSING else dumps(value, default=repr)  # any depth (jsonsafe)


def values_apart(old: Any, new: Any, room: int) -> tuple[str, str]:
    """Both sides of a change in `room` characters each, showing where they differ: when either is
    too long, both start a few characters before their first difference (`…` says what was left
    out), so two long values with the same start do not look the same."""
    a, b = _text(old), _text(new)
    if len(a) > room or len(b) > room:
        start = max(0, _common_prefix(a, b) - CONTEXT)
        if start:
            a, b = "…" + a[start:], "…" + b[start:]
    return safe_text(_clip(a, room)), safe_text(_clip(b, room))


def _common_prefix(a: str, b: str) -> int:
    """How many characters `a` and `b` share at their start (binary search over slices)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _clip(text: str, room: int) -> str:
    return text if len(text) <= room else text[: max(1, room - 1)] + "…"


def pair_detail(pair: Pair) -> Spans:
    """The selected pair: what aligned it, the changed paths, what rules hid, both sides' bytes."""
    kind = pair_kind(pair)
    out: Spans = []
    title = f"{pair.kind} · {safe_text(pair.scope)} · {safe_text(key_text(pair))} · {kind}"
    if pair.changes:
        title += f" ({len(pair.changes)} path{'s' if len(pair.changes) != 1 else ''})"
    out.append(("bold", title + "\n"))
    for change in pair.changes:
        out.append(("bold yellow", f"  {change.kind} {safe_text(change.where)}: "))
        old, new = values_apart(change.old, change.new, DETAIL)
        out.append(("", f"{old} → {new}\n"))
    for hidden in pair.hidden:
        rule = f"{safe_text(hidden.rule.text)} ({safe_text(hidden.rule.origin)})"
        out.append(("dim", f"  hidden by {rule}: {safe_text(hidden.where)}\n"))
    if pair.request is not None:
        out.append(("bold", "request  "))
        out.append(("dim", escape(pair.request.frame.raw, 400) + "\n"))
    for label, item in (("old", pair.old), ("new", pair.new)):
        out.append(("bold", f"{label:<9}"))
        raw = raw_of(item)
        out.append(("", ("(none)" if raw is None else escape(raw, 2000)) + "\n"))
    return out


def session_summary(
    diff: Diff, old_name: str, new_name: str, exchanges: str | None = None, *, heads_differ: bool = False
) -> tuple[str, str]:
    """The header's two lines: which sessions, how they ended; what differs overall. Two HTTP
    transcripts: `exchanges` says how many exchanges differ, and `heads_differ` (a status or a header
    differs) makes them DIFFERENT even when every message is the same."""
    first = f"OLD {safe_text(old_name)} ({diff.exit_old}) ⇄ NEW {safe_text(new_name)} ({diff.exit_new})"
    differing = len(diff.differing)
    parts = [] if exchanges is None else [exchanges]
    parts.append(f"{len(diff.pairs)} pairs, {differing} differ")
    if diff.stdout_added or diff.stdout_removed:
        parts.append(f"non-protocol stdout +{len(diff.stdout_added)} −{len(diff.stdout_removed)}")
    if diff.findings_added or diff.findings_removed:
        parts.append(f"findings +{len(diff.findings_added)} −{len(diff.findings_removed)}")
    if diff.exit_differs:
        parts.append("exit status differs")
    if diff.stderr_added or diff.stderr_removed:
        parts.append(f"stderr +{len(diff.stderr_added)} −{len(diff.stderr_removed)}")
    verdict = "same" if diff.same and not heads_differ else "DIFFERENT"
    return first, f"{verdict}: " + " · ".join(parts)


def session_detail(diff: Diff) -> Spans:
    """Differences that are not pairs: stray stdout lines, findings, stderr (shown under the pair)."""
    out: Spans = []
    sections: list[tuple[str, list[bytes]]] = [
        ("non-protocol stdout lines only in NEW", [f.raw for f in diff.stdout_added]),
        ("non-protocol stdout lines only in OLD", [f.raw for f in diff.stdout_removed]),
        ("stderr lines only in NEW", list(diff.stderr_added)),
        ("stderr lines only in OLD", list(diff.stderr_removed)),
    ]
    for title, lines in sections:
        if lines:
            out.append(("bold underline", f"\n{title}\n"))
            for raw in lines[:20]:
                out.append(("", escape(raw, 300) + "\n"))
    for title, findings in (
        ("findings only in NEW", diff.findings_added),
        ("findings only in OLD", diff.findings_removed),
    ):
        if findings:
            out.append(("bold underline", f"\n{title}\n"))
            for finding in findings[:20]:
                out.append(("", f"{finding.rule}: {safe_text(finding.message)}\n"))
    return out

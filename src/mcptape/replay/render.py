"""The diff and the replay report as text (for people) and as JSON values (for machines).

Titles and one-line values are `titles`'; what was not compared and what the replay substituted,
as text, `notes`'.

Every byte that comes from a transcript is shown through `textsafe.escape`.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any, Protocol

from mcptape.check.model import Finding, Frame
from mcptape.check.report import finding_json, raw_json
from mcptape.diff.compare import MISSING, Change, Hidden
from mcptape.diff.ignore import render_path
from mcptape.diff.sessions import RESPONSE, STDOUT_KEPT, Diff, Pair
from mcptape.replay.environment import Environment, environment_json, environment_lines
from mcptape.replay.notes import MAX_LINES, render_not_compared, render_substitutions, stderr_lines
from mcptape.replay.surfacechange import surface_json, surface_lines
from mcptape.replay.titles import VALUE_LIMIT, pair_title, source_title, value_of
from mcptape.replay.titles import show_value as show_value  # `render.show_value`, as before the split
from mcptape.textsafe import escape, escape_text

if TYPE_CHECKING:
    from pathlib import Path

    from mcptape.replay.outcome import Run
    from mcptape.replay.where import Server
    from mcptape.surface.compare import Diff as SurfaceDiff


class ReplayResult(Protocol):
    """What the report reads of a replay (`replay.api.ReplayResult` is one): declared here so that
    rendering needs nothing of the code that runs a replay, and the API can render itself."""

    @property
    def original(self) -> Path: ...
    @property
    def new(self) -> Path: ...
    @property
    def command(self) -> list[str]: ...
    @property
    def run(self) -> Run: ...
    @property
    def diff(self) -> Diff: ...
    @property
    def notes(self) -> list[str]: ...
    @property
    def kept(self) -> bool: ...
    @property
    def server(self) -> Server | None: ...
    @property
    def same(self) -> bool: ...
    @property
    def verdict(self) -> str: ...
    @property
    def environment(self) -> Environment | None: ...
    @property
    def surface(self) -> SurfaceDiff | None: ...


MAX_PAIRS = 50
MAX_CHANGES = 20


def _change_line(change: Change) -> str:
    return f"    {escape_text(change.where)}: {show_value(change.old)} -> {show_value(change.new)}"


def _pair_lines(pair: Pair) -> list[str]:
    lines = [f"  {pair_title(pair)}"]
    if pair.new is None:
        what = "no answer" if pair.kind == RESPONSE else "not sent"
        lines.append(f"    {what} in the new session (old: {show_value(value_of(pair.old))})")
    elif pair.old is None:
        lines.append(f"    only in the new session: {show_value(value_of(pair.new))}")
    else:
        for change in pair.changes[:MAX_CHANGES]:
            lines.append(_change_line(change))
        if len(pair.changes) > MAX_CHANGES:
            lines.append(f"    ... and {len(pair.changes) - MAX_CHANGES} more changed paths")
    return lines


def _frame_line(sign: str, frame: Frame) -> str:
    return f"  {sign} {frame.channel} line {frame.line}: {escape(frame.body, limit=VALUE_LIMIT)}"


def _finding_line(sign: str, finding: Finding) -> str:
    return f"  {sign} {finding.rule}: {escape_text(finding.message)}"


def render_diff(diff: Diff) -> list[str]:
    """The per-message diff, then stdout, findings, exit status, stderr, what rules hid, and what
    was not compared (nothing is left out silently)."""
    out: list[str] = []
    differing = diff.differing
    if differing:
        out.append(f"messages: {len(differing)} differ")
        for pair in differing[:MAX_PAIRS]:
            out.extend(_pair_lines(pair))
        if len(differing) > MAX_PAIRS:
            out.append(f"  ... and {len(differing) - MAX_PAIRS} more differing messages (see --json)")
    for sign, frames, what in (("+", diff.stdout_added, "new"), ("-", diff.stdout_removed, "gone")):
        if frames:
            out.append(f"stdout: {len(frames)} {what} line(s) that are not protocol")
            out.extend(_frame_line(sign, f) for f in frames[:MAX_LINES])
            if len(frames) > MAX_LINES:
                out.append(f"  ... and {len(frames) - MAX_LINES} more")
    if any(diff.stdout_not_compared):
        old_n, new_n = diff.stdout_not_compared
        out.append(
            f"stdout: past the first {STDOUT_KEPT} lines that are not protocol, {old_n} (old) and "
            f"{new_n} (new) more were counted, not compared"
        )
    for sign, findings, what in (("+", diff.findings_added, "new"), ("-", diff.findings_removed, "gone")):
        if findings:
            out.append(f"findings: {len(findings)} {what}")
            out.extend(_finding_line(sign, f) for f in findings[:MAX_LINES])
            if len(findings) > MAX_LINES:
                out.append(f"  ... and {len(findings) - MAX_LINES} more")
    if diff.exit_differs:
        out.append(f"exit status: {diff.exit_old} -> {diff.exit_new}")
    if diff.stderr_compared:
        out.extend(stderr_lines(diff))
    out.extend(render_hidden(diff))
    out.extend(render_not_compared(diff))
    return out


def render_hidden(diff: Diff) -> list[str]:
    """What the ignore rules hid (nothing is ignored silently), and the rules that hid nothing."""
    out: list[str] = []
    by_rule: dict[str, list[tuple[Pair, Hidden]]] = {}
    for pair, hidden in diff.hidden:
        by_rule.setdefault(hidden.rule.text, []).append((pair, hidden))
    if by_rule:
        total = sum(len(v) for v in by_rule.values())
        out.append(f"ignored: {total} difference(s) hidden by rules")
        for text, items in by_rule.items():
            origin = items[0][1].rule.origin
            out.append(f"  {escape_text(text)} ({escape_text(origin)}): hid {len(items)}")
            for pair, hidden in items[:3]:
                out.append(
                    f"    {pair_title(pair)}: {escape_text(hidden.where)}: "
                    f"{show_value(hidden.old, 80)} -> {show_value(hidden.new, 80)}"
                )
            if len(items) > 3:
                out.append(f"    ... and {len(items) - 3} more")
    for rule in diff.unused_rules if diff.unused_reported else ():
        out.append(f"ignore rule {escape_text(rule.text)} ({escape_text(rule.origin)}) hid nothing")
    return out


def render_diff_report(diff: Diff, old: str, new: str) -> str:
    """What `mcptape diff` prints."""
    lines = [f"mcptape diff: {escape_text(old)} -> {escape_text(new)}"]
    lines.extend(f"  note: {escape_text(note)}" for note in diff.notes)
    body = render_diff(diff)
    lines.extend(body)
    lines.append("same" if diff.same else "different")
    return "\n".join(lines) + "\n"


def render_replay(result: ReplayResult) -> str:
    """What `mcptape replay` prints (and the failure message of `assert_same` and the pytest item)."""
    run = result.run
    lines = [
        f"mcptape replay: {escape_text(str(result.original))} "
        f"against {escape_text(shlex.join(result.command))}",
        f"  sent {run.sent} of {run.total} client chunks, answered {run.answered} server request(s) "
        f"from the recording, {run.seconds:.2f}s; new session: {_where(result)}",
    ]
    for note in result.notes:
        lines.append(f"  note: {escape_text(note)}")
    if run.ran_writers:
        tools = ", ".join(escape_text(name) for name in run.ran_writers)
        lines.append(f"  note: --allow-mutating: called tools that may change data: {tools}")
    for issue in run.issues:
        label = "error" if issue.error else "warning"
        lines.append(f"{label} ({issue.kind}): {escape_text(issue.message)}")
    lines.extend(render_substitutions(run.substitutions))
    lines.extend(surface_lines(result.surface))
    lines.extend(render_diff(result.diff))
    lines.extend(environment_lines(result.environment, result.diff))
    analysis = result.diff.new_analysis
    if analysis is not None and analysis.stderr.size and (not run.completed or result.diff.exit_differs):
        head = bytes(analysis.stderr.head).splitlines()[-MAX_LINES:]
        lines.append("stderr of the new build (last lines):")
        lines.extend(f"  | {escape(line, limit=VALUE_LIMIT)}" for line in head)
    lines.append(result.verdict)
    return "\n".join(lines) + "\n"


def _where(result: ReplayResult) -> str:
    return escape_text(str(result.new)) if result.kept else "not kept (temporary, and the same)"


# -- JSON ------------------------------------------------------------------------------------
def _json_value(value: Any) -> Any:
    return None if value is MISSING else value


def _change_json(change: Change) -> dict[str, Any]:
    out: dict[str, Any] = {"path": change.where, "kind": change.kind}
    if change.old is not MISSING:
        out["old"] = change.old
    if change.new is not MISSING:
        out["new"] = change.new
    return out


def pair_to_json(pair: Pair) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": pair.kind, "scope": pair.scope, "title": pair_title(pair)}
    if pair.kind == RESPONSE:
        out["id"] = pair.key[1]
    for side, item in (("old", pair.old), ("new", pair.new)):
        out[side] = None if item is None else {"line": item.frame.line, "value": value_of(item)}
    out["changes"] = [_change_json(c) for c in pair.changes]
    out["hidden"] = [
        {"rule": h.rule.text, "path": h.where, "old": _json_value(h.old), "new": _json_value(h.new)}
        for h in pair.hidden
    ]
    return out


def _frame_json(frame: Frame) -> dict[str, Any]:
    return {"channel": frame.channel, "line": frame.line, "offset": frame.offset, **raw_json(frame.body)}


def diff_to_json(diff: Diff) -> dict[str, Any]:
    """The diff as a JSON value (`--json`): differing pairs and every pair a rule touched."""
    shown = [p for p in diff.pairs if p.differs or p.hidden]
    return {
        "same": diff.same,
        "messages": [pair_to_json(p) for p in shown],
        "stdout": {
            "added": [_frame_json(f) for f in diff.stdout_added],
            "removed": [_frame_json(f) for f in diff.stdout_removed],
        },
        "findings": {
            "added": [finding_json(f) for f in diff.findings_added],
            "removed": [finding_json(f) for f in diff.findings_removed],
        },
        "exit": {"old": str(diff.exit_old), "new": str(diff.exit_new), "differs": diff.exit_differs},
        "stderr": {
            "compared": diff.stderr_compared,
            "added": [escape(x) for x in diff.stderr_added],
            "removed": [escape(x) for x in diff.stderr_removed],
            "numbers_only": diff.stderr_numbers_only,
        },
        "minted": [
            {"title": pair_title(p), "path": render_path(c.path), "old": c.old, "new": c.new}
            for p, c in diff.carried
        ],
        "not_compared": [
            {
                "title": pair_title(p),
                "channel": p.scope,
                "why": p.unobserved,
                "value": value_of(p.new or p.old),
            }
            for p in diff.unobserved
        ],
        "ignore_rules": [
            {"rule": r.text, "origin": r.origin, "hid": sum(1 for _, h in diff.hidden if h.rule == r)}
            for r in diff.rules
        ],
        "unused_rules": [r.text for r in diff.unused_rules],
        "notes": diff.notes,
    }


def replay_to_json(result: ReplayResult) -> dict[str, Any]:
    run = result.run
    out: dict[str, Any] = {
        "same": result.same,
        "verdict": result.verdict,
        "transcript": str(result.original),
        "new_transcript": str(result.new) if result.kept else None,
        "command": result.command,
        "sent": run.sent,
        "total": run.total,
        "completed": run.completed,
        "answered_server_requests": run.answered,
        "seconds": round(run.seconds, 3),
        "exit": None if run.status is None else {"code": run.status.code, "signal": run.status.signal},
        "issues": [{"kind": i.kind, "error": i.error, "message": i.message} for i in run.issues],
        "held": [{"at": h.event, "tools": h.tools, "why": h.why} for h in run.held],
        "called_writers": run.ran_writers,
        "substitutions": [
            {
                "line": s.use.line,
                "path": render_path(s.use.path),
                "old": s.use.value,
                "new": s.new,
                "minted_at": {
                    "title": source_title(s.use.scope, s.use.source),
                    "path": render_path(s.use.source_path),
                },
            }
            for s in run.substitutions
        ],
        "server": None
        if result.server is None
        else {
            "command": result.server.command,
            "cwd": result.server.cwd,
            "origin": result.server.origin,
            "stubs": list(result.server.stubs),
        },
        "notes": result.notes,
    }
    out["environment"] = environment_json(result.environment, result.diff)
    out["surface"] = surface_json(result.surface)
    out["diff"] = diff_to_json(result.diff)
    return out

"""What `replay` found, as a `Report` (`ci/report.py`): a suite per transcript, one test case (failed when the
sessions differ, an error when the transcript cannot be read), and a result per difference: a
message changed, missing or added, a stdout line new or gone, a finding new (with its check rule id,
in the new session) or gone, the exit status, stderr, the replay's own errors, and each change of
the tool surface (the rules of `tools diff`; informative, as the report's `tool surface:` line). A
difference is located at its line in the recording, or in the new session for what only the new
build did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcptape.check.model import Frame
from mcptape.commands.ci.findings import SHOWN, file_line, finding_result, registry_rules
from mcptape.commands.ci.report import ERROR, FAILURE, PASSED, Case, Report, Result, Rule, Suite, Where
from mcptape.commands.ci.tools import RULES as SURFACE_RULES
from mcptape.replay.surfacechange import surface_lines
from mcptape.textsafe import escape, escape_controls

if TYPE_CHECKING:
    from mcptape.replay.api import ReplayResult

REPLAY_RULES = [
    Rule("replay/changed", "the new build answered or sent a message differently", "", "error"),
    Rule("replay/missing", "a message of the recording that the new build did not send", "", "error"),
    Rule("replay/added", "a message only the new build sent", "", "error"),
    Rule("replay/stdout", "a line on stdout that is not protocol, new or gone", "", "error"),
    Rule("replay/finding-gone", "a finding of the recording the new session no longer has", "", "error"),
    Rule("replay/exit", "the server ended differently (exit code or signal)", "", "error"),
    Rule("replay/stderr", "stderr lines new or gone (compared with --stderr)", "", "error"),
    Rule(
        "replay/failed",
        "the replay itself failed (the server did not start, an answer never came)",
        "",
        "error",
    ),
    Rule("replay/warning", "something the replay ran into that does not fail it", "", "warning"),
    *(  # the tool surface's changes: the same rules as `tools diff`'s (informative: the verdict stays)
        Rule(f"tools-{name}", summary, f"{summary} (see docs/tools.md).", level)
        for name, (summary, level) in SURFACE_RULES.items()
    ),
]


@dataclass
class Replayed:
    """One transcript `replay` ran (`result`), or could not read (`error`)."""

    path: str
    result: ReplayResult | None = None
    error: str = ""


def replay_report(replayed: Sequence[Replayed]) -> Report:
    """`replay`'s report: a suite per transcript, a result per difference."""
    from mcptape.replay.notes import what_differed

    report = Report("replay", rules=[*REPLAY_RULES, *registry_rules()])
    same = different = 0
    for one in replayed:
        result = one.result
        if result is None:
            report.suites.append(
                Suite(one.path, [Case("replay", "mcptape.replay", ERROR, one.error, kind="unreadable")])
            )
            report.problems.append(f"{one.path}: {one.error}")
            continue
        where = Where(one.path)
        surface = _surface_results(one.path, result)
        report.results.extend(surface)
        if result.same:
            same += 1
            case = Case(
                one.path,
                "mcptape.replay",
                PASSED,
                seconds=result.run.seconds,
                where=where,
                stdout="\n".join(surface_lines(result.surface)),  # a change an ignore rule hid
            )
        else:
            different += 1
            what = what_differed(result.diff, result.issues)
            case = Case(
                one.path,
                "mcptape.replay",
                FAILURE,
                f"{result.verdict}: {what}",
                result.render(),
                result.verdict,
                result.run.seconds,
                where,
            )
            report.results.extend(_differences(one.path, result))
        report.suites.append(Suite(one.path, [case], seconds=result.run.seconds))
    report.summary = f"mcptape replay: {same} same, {different} different, {len(report.problems)} unreadable"
    return report


def _surface_results(path: str, result: ReplayResult) -> list[Result]:
    """A result per change of the tool surface (the replay's `tool surface:` line), as `tools diff`
    reports it: breaking an error, suspicious a warning, compatible a note, at the recording."""
    from mcptape.surface.report import title

    change = result.surface
    if change is None:
        return []
    out = []
    for item in change.changes:
        severity = item.severity.value
        heading = f"{title(item)} {escape_controls(item.path) or ''}".strip()
        message = item.detail + (f"\nwords: {item.words}" if item.words else "")
        out.append(
            Result(
                f"tools-{severity}",
                SURFACE_RULES[severity][1],
                f"mcptape replay: tool surface {severity}: {heading}",
                message,
                Where(path),
            )
        )
    return out


def _side(item: Any, path: str) -> Where:
    frame: Frame = item.frame
    return Where(path, file_line(frame.event))


def _differences(original: str, result: ReplayResult) -> list[Result]:
    """A result per difference: messages, stdout lines, findings, the end, the replay's own issues."""
    new = str(result.new) if result.kept else original
    diff = result.diff
    out = [_pair_result(pair, original, new) for pair in diff.differing]
    for frames, path, what in ((diff.stdout_added, new, "new"), (diff.stdout_removed, original, "gone")):
        out.extend(
            Result(
                "replay/stdout",
                "error",
                f"mcptape replay: stdout line {what}",
                f"stdout line that is not protocol, {what}: out line {frame.line}: "
                + escape(frame.body, SHOWN),
                Where(path, file_line(frame.event)),
            )
            for frame in frames
        )
    out.extend(finding_result(f, new, "replay") for f in diff.findings_added)
    for finding in diff.findings_removed:
        gone = finding_result(finding, original, "replay")
        out.append(
            Result(
                "replay/finding-gone",
                "error",
                f"mcptape replay: {finding.rule} gone",
                f"no longer found in the new session:\n{gone.message}",
                gone.where,
            )
        )
    out.extend(_end_results(original, result))
    return out


def _pair_result(pair: Any, original: str, new: str) -> Result:
    """A message missing from the new session, only in it, or changed (its changed paths)."""
    from mcptape.diff.sessions import RESPONSE
    from mcptape.replay.titles import pair_title, show_value, value_of

    title = pair_title(pair)
    if pair.new is None:
        what = "no answer" if pair.kind == RESPONSE else "not sent"
        message = f"{title}\n{what} in the new session (old: {show_value(value_of(pair.old))})"
        return Result(
            "replay/missing", "error", f"mcptape replay: {what}", message, _side(pair.old, original)
        )
    if pair.old is None:
        message = f"{title}\nonly in the new session: {show_value(value_of(pair.new))}"
        title_ = "mcptape replay: only in the new session"
        return Result("replay/added", "error", title_, message, _side(pair.new, new))
    changes = [
        f"{escape_controls(c.where)}: {show_value(c.old)} -> {show_value(c.new)}" for c in pair.changes[:20]
    ]
    if len(pair.changes) > 20:
        changes.append(f"... and {len(pair.changes) - 20} more changed paths")
    return Result(
        "replay/changed",
        "error",
        "mcptape replay: changed",
        "\n".join([title, *changes]),
        _side(pair.old, original),
        (Where(new, _side(pair.new, new).line, "the new session's line"),),
    )


def _end_results(original: str, result: ReplayResult) -> list[Result]:
    """The exit status, stderr (with --stderr), and what the replay itself ran into."""
    diff = result.diff
    out: list[Result] = []
    if diff.exit_differs:
        out.append(
            Result(
                "replay/exit",
                "error",
                "mcptape replay: exit status",
                f"exit status: {diff.exit_old} -> {diff.exit_new}",
                Where(original),
            )
        )
    if diff.stderr_compared and (diff.stderr_added or diff.stderr_removed):
        lines = [f"+ {escape(b, SHOWN)}" for b in diff.stderr_added[:20]]
        lines += [f"- {escape(b, SHOWN)}" for b in diff.stderr_removed[:20]]
        out.append(
            Result("replay/stderr", "error", "mcptape replay: stderr", "\n".join(lines), Where(original))
        )
    for issue in result.issues:
        rule, level = ("replay/failed", "error") if issue.error else ("replay/warning", "warning")
        out.append(
            Result(
                rule, level, f"mcptape replay: {issue.kind}", escape_controls(issue.message), Where(original)
            )
        )
    return out

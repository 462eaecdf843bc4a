"""What `check` found, as a `Report`: a suite per transcript, a test case per finding (a failure when
it counts for the exit code under `--fail-on`/`--party`, skipped when it does not), a result per
finding at its transcript line, the rule registry as the rules."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mcptape.check.model import Analysis, Finding
from mcptape.commands.ci.findings import file_line, finding_result, finding_text, registry_rules
from mcptape.commands.ci.report import ERROR, FAILURE, PASSED, SKIPPED, Case, Report, Suite, Where
from mcptape.textsafe import escape_controls


@dataclass
class Checked:
    """One transcript `check` read: its analysis, its server command, how long it took."""

    path: str
    analysis: Analysis
    command: Sequence[str] = ()
    seconds: float | None = None


def check_report(
    checked: Sequence[Checked], unreadable: Sequence[tuple[str, str]], counts: Callable[[Finding], bool]
) -> Report:
    """`check`'s report: `counts(finding)` says whether a finding fails the gate (--fail-on, --party)."""
    report = Report("check", rules=registry_rules())
    failing = total = 0
    for one in checked:
        analysis = one.analysis
        suite = Suite(one.path, seconds=one.seconds)
        if one.command:
            suite.properties["command"] = shlex.join(one.command)
        if analysis.protocol_version:
            suite.properties["protocol"] = analysis.protocol_version
        for number, note in enumerate(analysis.notes, 1):
            suite.properties[f"note {number}"] = note
        for finding in analysis.findings:
            report.results.append(finding_result(finding, one.path, "check"))
            suite.cases.append(_finding_case(finding, one.path, counts(finding)))
        if analysis.findings_truncated:
            suite.cases.append(
                Case(
                    f"{analysis.findings_truncated} more findings (not kept)",
                    "mcptape.check",
                    FAILURE if analysis.errors_truncated else SKIPPED,
                    f"{analysis.findings_truncated} findings past the first {len(analysis.findings)} were "
                    f"counted, not kept ({analysis.errors_truncated} errors)",
                )
            )
        if not suite.cases:
            suite.cases.append(Case("no findings", "mcptape.check", PASSED, where=Where(one.path)))
        failed = any(case.outcome == FAILURE for case in suite.cases)
        failing += failed
        total += len(analysis.findings) + analysis.findings_truncated
        report.suites.append(suite)
    for path, why in unreadable:
        report.suites.append(Suite(path, [Case("read", "mcptape.check", ERROR, why, kind="unreadable")]))
        report.problems.append(f"{path}: {why}")
    files = len(checked) + len(unreadable)
    report.summary = (
        f"mcptape check: {files} transcript{'s' if files != 1 else ''} ({failing} failing the gate, "
        f"{len(unreadable)} unreadable), {total} finding{'s' if total != 1 else ''}"
    )
    return report


def _finding_case(finding: Finding, path: str, counted: bool) -> Case:
    rid = f" [request {finding.request_id!r}]" if finding.request_id is not None else ""
    name = f"{finding.rule} at {finding.channel} line {finding.line}{rid}"
    summary = f"{finding.severity.value} ({finding.party}): {escape_controls(finding.message)}"
    if counted:
        return Case(
            name,
            f"mcptape.check.{finding.rule}",
            FAILURE,
            summary,
            finding_text(finding),
            finding.rule,
            where=Where(path, file_line(finding.event)),
        )
    return Case(
        name,
        f"mcptape.check.{finding.rule}",
        SKIPPED,
        f"not counted by the gate (--fail-on, --party): {summary}",
        where=Where(path, file_line(finding.event)),
    )

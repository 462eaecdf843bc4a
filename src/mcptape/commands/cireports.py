"""What `check`, `replay` and `probe` found, as a `ciformats.Report` (the one CI-format writer's input).

* check: a suite per transcript, a test case per finding (a failure when it counts for the exit code
  under `--fail-on`/`--party`, skipped when it does not), a result per finding at its transcript
  line, the rule registry as the rules;
* replay: `cireplay.py`;
* probe: a suite of its cases (as probe always wrote them), a result per case that did not pass and
  per finding of the server in those cases (the client's findings there are the probe's own hard
  inputs).

A transcript's bytes are escaped here with `textsafe.escape`, its server-chosen words with
`escape_controls`, as in every other report of mcptape.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from mcptape.check.model import Analysis, Finding, Severity
from mcptape.check.rules import RULES
from mcptape.commands.ciformats import (
    ERROR,
    FAILURE,
    PASSED,
    SKIPPED,
    Case,
    Report,
    Result,
    Rule,
    Suite,
    Where,
)
from mcptape.textsafe import escape, escape_controls

if TYPE_CHECKING:
    from mcptape.probe.judge import CaseResult
    from mcptape.probe.runner import ProbeResult

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SHOWN = 240  # bytes of a line quoted in a message
FILE_LINE = 2  # a transcript's event n is on line n + 2 of its file (the header is line 1)


def file_line(event: int) -> int | None:
    """The 1-based line of transcript event `event` in its file (None when it has none)."""
    return event + FILE_LINE if event >= 0 else None


def registry_rules() -> list[Rule]:
    """The check rule registry, as SARIF rules."""
    return [
        Rule(
            rule.id,
            rule.summary,
            f"{rule.summary}.\nSeverity {rule.severity.value}"
            + (f", broken by the {rule.party}" if rule.party else ", broken by the sender of the line")
            + f"; detected by the check core's {rule.where} stage. See docs/check.md.",
            LEVEL[rule.severity],
            {"severity": rule.severity.value, "party": rule.party or "sender", "stage": rule.where},
        )
        for rule in RULES.values()
    ]


def finding_text(finding: Finding) -> str:
    """A finding's message, where it is and its bytes (and the lines it names), escaped."""
    lines = [
        escape_controls(finding.message),
        f"{finding.channel} line {finding.line} (byte {finding.offset}), severity {finding.severity.value}, "
        f"party {finding.party}",
        f"bytes: {escape(finding.raw, SHOWN)}",
    ]
    lines.extend(
        f"{ref.role}: {ref.channel} line {ref.line}: {escape(ref.raw, SHOWN)}"
        for ref in finding.related
        if (ref.channel, ref.line) != (finding.channel, finding.line)
    )
    return "\n".join(lines)


def finding_result(finding: Finding, path: str, command: str) -> Result:
    """One finding of the transcript at `path`: its rule, its level, at its line in the file."""
    related = tuple(
        Where(path, file_line(ref.event), f"{ref.role}: {ref.channel} line {ref.line}")
        for ref in finding.related
        if (ref.channel, ref.line) != (finding.channel, finding.line)
    )
    rid = finding.request_id
    return Result(
        finding.rule,
        LEVEL[finding.severity],
        f"mcptape {command}: {finding.rule} [{finding.party}]",
        finding_text(finding),
        Where(path, file_line(finding.event)),
        related,
        {
            "severity": finding.severity.value,
            "party": finding.party,
            "channel": finding.channel,
            "line": finding.line,
            "offset": finding.offset,
            "requestId": escape_controls(rid) if isinstance(rid, str) else rid,
        },
    )


# -- check ----------------------------------------------------------------------------------------
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


# -- probe ----------------------------------------------------------------------------------------
FINDINGS_SHOWN = 5


def _probe_finding_line(finding: Finding) -> str:
    where = f"{finding.channel} line {finding.line} (byte {finding.offset})"
    return f"{finding.rule} at {where}: {escape_controls(finding.message)}: {escape(finding.raw, 80)}"


def probe_report(probe: ProbeResult) -> Report:
    """`probe`'s report: its cases as JUnit test cases (failures as `<failure>`, inconclusive as
    `<error>`, n/a and not run as `<skipped>`, warnings in system-out), a result per case that did
    not pass and per server finding of those cases."""
    from mcptape.probe.observed import Verdict

    command = shlex.join(probe.plan.command)
    suite = Suite(f"mcptape probe: {command}", seconds=probe.seconds, properties={"command": command})
    if probe.stale:
        suite.properties["baseline:stale"] = ", ".join(entry.case for entry in probe.stale)
    for row in probe.reach:  # which cases' frames named each tool (docs/probe.md, the reach table)
        kind = row["may_change_data"] or "readOnlyHint: true"
        reached = (
            f"could run: {', '.join(row['cases'])}"
            if row["cases"]
            else f"no frame named it: {row['not_tested']}"
        )
        suite.properties[f"reach:{row['tool']}"] = f"{kind}; {reached}"
    report = Report("probe", [suite])
    rules: dict[str, Rule] = {}
    for result in probe.results:
        suite.cases.append(_probe_case(result))
        level = {Verdict.FAIL: "error", Verdict.INCONCLUSIVE: "error", Verdict.WARN: "warning"}.get(
            result.was or result.verdict
        )
        if level is None or not result.ran:
            continue
        rule = f"probe/{result.case.id}"
        rules.setdefault(rule, Rule(rule, result.title, _probe_help(result), "error"))
        path = str(result.transcript) if result.transcript is not None else None
        server = [f for f in result.findings if f.party == "server" and f.severity is not Severity.INFO]
        first = server[0].event if server else -1
        report.results.append(
            Result(
                rule,
                level,
                f"mcptape probe: {result.case.id} {result.verdict.value}",
                "\n".join([f"{result.title}: {result.verdict.value}", f"did: {result.did}", *result.reasons]),
                Where(path, file_line(first)) if path is not None else None,
                suppressed=result.accepted,  # a deviation the baseline accepts
            )
        )
        if path is not None:
            found = [finding_result(f, path, "probe") for f in server]
            report.results.extend(replace(f, suppressed=result.accepted) for f in found)
    report.rules = [*rules.values(), *registry_rules()]
    verdicts = [r.verdict for r in probe.results]
    report.summary = (
        f"mcptape probe: {'FAIL' if probe.failed else 'INCONCLUSIVE' if probe.inconclusive else 'ok'}: "
        f"{verdicts.count(Verdict.PASS)} passed, {verdicts.count(Verdict.FAIL)} failed, "
        f"{verdicts.count(Verdict.INCONCLUSIVE)} inconclusive, {verdicts.count(Verdict.WARN)} warnings, "
        f"{verdicts.count(Verdict.ACCEPTED)} accepted "
        f"in {probe.seconds:.1f}s"
    )
    return report


def _probe_help(result: CaseResult) -> str:
    kind = "a hard input sent after a valid handshake" if result.case.group == "input" else "a clean start"
    return f"{result.title} ({kind}). See docs/probe.md."


def _probe_case(result: CaseResult) -> Case:
    from mcptape.probe.observed import Verdict

    text = "\n".join(
        [
            result.title,
            f"did: {result.did}",
            *result.reasons,
            *(f"check: {_probe_finding_line(f)}" for f in result.findings[:FINDINGS_SHOWN]),
            f"transcript: {result.transcript}",
        ]
    )
    case = Case(
        result.case.id,
        f"mcptape.probe.{result.case.group}",
        seconds=result.seconds,
        where=Where(str(result.transcript)) if result.transcript is not None else None,
        stderr=result.stderr.decode("utf-8", "backslashreplace") if result.stderr else "",
    )
    if not result.ran or result.verdict is Verdict.NA:
        return replace(case, outcome=SKIPPED, message=result.did)
    if result.verdict is Verdict.ACCEPTED:
        return replace(case, outcome=SKIPPED, message=f"accepted: {result.accepted}", stdout=text)
    if result.verdict is Verdict.FAIL:
        why = result.reasons[0] if result.reasons else result.did
        return replace(case, outcome=FAILURE, message=why, text=text)
    if result.verdict is Verdict.INCONCLUSIVE:
        return replace(case, outcome=ERROR, message=result.reasons[0], text=text, kind="inconclusive")
    return replace(case, stdout=text)

"""What `probe` found, as a `Report`: a suite of its cases (as probe always wrote them), a result per
case that did not pass and per finding of the server in those cases (the client's findings there
are the probe's own hard inputs)."""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import TYPE_CHECKING

from mcptape.check.model import Finding, Severity
from mcptape.commands.ci.findings import file_line, finding_result, registry_rules
from mcptape.commands.ci.report import ERROR, FAILURE, SKIPPED, Case, Report, Result, Rule, Suite, Where
from mcptape.textsafe import escape, escape_controls

if TYPE_CHECKING:
    from mcptape.probe.judge import CaseResult
    from mcptape.probe.runner import ProbeResult


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

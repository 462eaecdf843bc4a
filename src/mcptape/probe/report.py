"""The probe's reports: a readable table and JSON for machines (the CI formats, JUnit XML, SARIF and
GitHub annotations, are written from the table of output formats, `mcptape.commands.outputs`).

Every string that may hold a server's bytes or words goes through `textsafe` before it reaches a
terminal (the table); JSON carries them escaped by its encoder (and `textsafe.escape_json` for C1 and
bidi characters, in the command).
"""

from __future__ import annotations

import shlex
from typing import Any

from mcptape.check.model import Finding
from mcptape.check.report import finding_json
from mcptape.probe.judge import CaseResult
from mcptape.probe.observed import Verdict
from mcptape.probe.runner import ProbeResult
from mcptape.probe.safety import NOT_TESTED
from mcptape.textsafe import escape, escape_text

FINDINGS_SHOWN = 5


def counts(probe: ProbeResult) -> dict[str, int]:
    tally = {v.value: 0 for v in Verdict}
    for result in probe.results:
        tally[result.verdict.value] += 1
    return tally


def summary_line(probe: ProbeResult) -> str:
    tally = counts(probe)
    skipped = sum(1 for r in probe.results if not r.ran)
    parts = [
        f"{tally[Verdict.PASS.value]} passed",
        f"{tally[Verdict.WARN.value]} warnings",
        f"{tally[Verdict.FAIL.value] - skipped} failed",
    ]
    if skipped:
        parts.append(f"{skipped} not run")
    if tally[Verdict.INCONCLUSIVE.value]:
        parts.append(f"{tally[Verdict.INCONCLUSIVE.value]} inconclusive")
    if tally[Verdict.NA.value]:
        parts.append(f"{tally[Verdict.NA.value]} not applicable")
    if tally[Verdict.ACCEPTED.value]:
        parts.append(f"{tally[Verdict.ACCEPTED.value]} accepted by the baseline")
    verdict = "FAIL" if probe.failed else "INCONCLUSIVE" if probe.inconclusive else "ok"
    line = f"{verdict}: {', '.join(parts)} in {probe.seconds:.1f}s"
    if probe.stale:
        n = len(probe.stale)
        line += (
            f"; {n} stale baseline entr{'ies' if n != 1 else 'y'} (no longer happen{'s' if n == 1 else ''})"
        )
    if probe.skipped_tools:
        n = len(probe.skipped_tools)
        line += (
            f"; {n} tool{'s' if n != 1 else ''} not tested ({'they' if n != 1 else 'it'} may change "
            "data: no frame named them; --allow-mutating on a scratch copy)"
        )
    if probe.inconclusive and not probe.failed and (probe.refused or not probe.refused_tools):
        line += (
            "\nthe valid request was refused, so the hard inputs built from it proved nothing: "
            "give arguments the tool accepts with --tool NAME --args JSON, or --from TRANSCRIPT"
        )
    if probe.inconclusive and not probe.failed and probe.refused_tools:
        names = ", ".join(escape_text(t) for t in probe.refused_tools[:8])
        line += (
            f"\nthe arguments derived for {names} were refused, so the hard inputs built on them "
            "proved nothing: give a recorded session that calls them with --from TRANSCRIPT"
        )
    return line


def render_table(probe: ProbeResult) -> str:
    """The report for a terminal: one row per case, then the details of what did not pass."""
    rows = [(escape_text(r.case.id), r.verdict.value, escape_text(_did(r))) for r in probe.results]
    width = max([len("case")] + [len(r[0]) for r in rows])
    lines = [f"mcptape probe: {escape_text(shlex.join(probe.plan.command))}"]
    if probe.call is not None:
        what = (
            f"tools/call {escape_text(probe.call.tool)} {escape_text(_json(probe.call.arguments))}"
            if probe.call.tool
            else "tools/list"
        )
        lines.append(f"valid request: {what}; one valid call makes {probe.baseline} executor/HTTP calls")
    if probe.skipped_tools:
        left = ", ".join(f"{escape_text(name)} ({why})" for name, why in probe.skipped_tools)
        lines.append(f"may change data, so no frame names them ({NOT_TESTED}): {left}")
    lines.append("")
    vwidth = max(len("verdict"), *(len(r[1]) for r in rows)) if rows else len("verdict")
    lines.append(f"{'case':<{width}}  {'verdict':<{vwidth}}  what the server did")
    lines.append(f"{'-' * width}  {'-' * vwidth}  {'-' * 19}")
    for case_id, verdict, did in rows:
        lines.append(f"{case_id:<{width}}  {verdict:<{vwidth}}  {did}")
    shown_verdicts = (Verdict.FAIL, Verdict.WARN, Verdict.INCONCLUSIVE)
    details = [r for r in probe.results if r.verdict in shown_verdicts and r.ran]
    if details:
        lines.append("")
    for result in details:
        lines.append(f"{escape_text(result.case.id)} ({result.verdict.value}): {escape_text(result.title)}")
        for reason in result.reasons:
            lines.append(f"  - {escape_text(reason)}")
        shown = [f for f in result.findings if f.severity == "error"][:FINDINGS_SHOWN]
        for finding in shown:
            lines.append(f"  check: {_finding_text(finding)}")
        if result.stderr:
            first = result.stderr.split(b"\n", 1)[0]
            more = result.stderr.count(b"\n") - (0 if result.stderr.endswith(b"\n") else -1) - 1
            lines.append(
                f"  stderr: {escape(first, 100)}"
                + (f"   (+{more} lines in the transcript)" if more > 0 else "")
            )
        if result.transcript is not None:
            lines.append(f"  transcript: {result.transcript}   (mcptape check / mcptape view it)")
    lines.extend(reach_lines(probe))
    lines.extend(lock_lines(probe))
    if probe.stale:
        lines.append("")
        lines.append(
            "stale baseline entries (their case ran and no longer deviates as written; remove them):"
        )
        for entry in probe.stale:
            tool = f" ({escape_text(entry.tool)})" if entry.tool else ""
            lines.append(
                f"  {escape_text(entry.case)}{tool}: {entry.verdict.value} with {entry.actions} action(s)"
            )
    lines.append("")
    lines.append(summary_line(probe))
    return "\n".join(lines) + "\n"


def _did(result: CaseResult) -> str:
    if result.verdict is Verdict.ACCEPTED and result.was is not None:
        return f"{result.did} [{result.was.value}, accepted: {result.accepted}]"
    return result.did


def reach_lines(probe: ProbeResult) -> list[str]:
    """The per-tool reach table: which cases' frames named each tool (each could have run it)."""
    if not probe.reach:
        return []
    lines = [
        "",
        "what reached each tool (a frame that names a tool carries arguments for it: a server that "
        "tolerates the fault under test runs it):",
    ]
    for row in probe.reach:
        kind = row["may_change_data"] or "readOnlyHint: true"
        head = f"  {escape_text(row['tool'])} ({kind}): "
        if row["cases"]:
            n = len(row["cases"])
            shown = ", ".join(escape_text(c) for c in row["cases"])
            lines.append(f"{head}{n} case{'s' if n != 1 else ''} could run it: {shown}")
        else:
            lines.append(f"{head}no frame named it: {row['not_tested']}")
    return lines


def lock_lines(probe: ProbeResult) -> list[str]:
    """Where the tool surface the probe listed went (`tools.lock.json`), or why it did not."""
    lock = probe.surface_lock
    if lock is None:
        return []
    if lock.path is None:
        return ["", f"tool surface: not locked ({escape_text(lock.why)})"]
    return [
        "",
        f"tool surface: {lock.tools} tool{'s' if lock.tools != 1 else ''} listed, locked in {lock.path} "
        "(as mcptape tools lock writes it; mcptape tools diff it against the committed lock)",
    ]


def _finding_text(finding: Finding) -> str:
    where = f"{finding.channel} line {finding.line} (byte {finding.offset})"
    return f"{finding.rule} at {where}: {escape_text(finding.message)}: {escape(finding.raw, 80)}"


def _json(value: Any) -> str:
    import orjson

    return orjson.dumps(value).decode()


def case_json(result: CaseResult) -> dict[str, Any]:
    return {
        "id": result.case.id,
        "group": result.case.group,
        "title": result.title,
        "verdict": result.verdict.value,
        "accepted": None if result.was is None else {"was": result.was.value, "reason": result.accepted},
        "ran": result.ran,
        "did": result.did,
        "reasons": result.reasons,
        "executor_calls": result.executed,
        "http_attempts": result.http,
        "exit": result.exit,
        "seconds": round(result.seconds, 3),
        "marker": result.marker,
        "transcript": str(result.transcript) if result.transcript is not None else None,
        "stderr_head": result.stderr.decode("utf-8", "backslashreplace"),
        "findings": [finding_json(f) for f in result.findings],
    }


def _lock_json(probe: ProbeResult) -> dict[str, Any] | None:
    lock = probe.surface_lock
    if lock is None:
        return None
    path = str(lock.path) if lock.path is not None else None
    return {"path": path, "tools": lock.tools, "why_not": lock.why or None}


def to_json(probe: ProbeResult) -> dict[str, Any]:
    call = probe.call
    return {
        "command": probe.plan.command,
        "transcripts": str(probe.plan.out_dir),
        "valid_request": None if call is None else {"tool": call.tool, "arguments": call.arguments},
        "baseline_calls": probe.baseline,
        "skipped_tools": [{"tool": name, "why": why} for name, why in probe.skipped_tools],
        "reach": probe.reach,
        "stale_baseline": [entry.to_json() for entry in probe.stale],
        "tools_lock": _lock_json(probe),
        "allow_mutating": probe.plan.allow_mutating,
        "failed": probe.failed,
        "inconclusive": probe.inconclusive,
        "counts": counts(probe),
        "seconds": round(probe.seconds, 3),
        "cases": [case_json(r) for r in probe.results],
    }

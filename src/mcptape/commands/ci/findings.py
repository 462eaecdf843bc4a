"""A finding of the check core as the report formats cite it: its rule (the registry's, as SARIF
rules), its level, its message with the bytes it names, its line in the transcript file. Shared by
the adapters of check, replay, probe and probe --client.

A transcript's bytes are escaped here with `textsafe.escape`, its server-chosen words with
`escape_controls`, as in every other report of mcptape.
"""

from __future__ import annotations

from mcptape.check.model import Finding, Severity
from mcptape.check.rules import RULES
from mcptape.commands.ci.report import Result, Rule, Where
from mcptape.textsafe import escape, escape_controls

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
            + f"; detected by the check core's {rule.stage} stage. See docs/check.md.",
            LEVEL[rule.severity],
            {"severity": rule.severity.value, "party": rule.party or "sender", "stage": rule.stage},
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

"""The header's sentences: session status, verdict, and where the cursor lands and why.

Plain functions over the index and the check core's results (no textual), so they are tested
directly. Every transcript-derived string is escaped here.
"""

from __future__ import annotations

from mcptape.check.report import HTTP_FRAME_RULES
from mcptape.textsafe import escape_text
from mcptape.transcript.events import Event
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.model import rows as K
from mcptape.tui.model.rowfacts import KIND_CODE, RowFacts
from mcptape.tui.model.safe import safe_text

SEVERITY_ORDER = ("error", "warning", "info")  # the worst first: where the viewer opens


def session_line(index: TranscriptIndex) -> str:
    """The header's first line: the file and the recorded command (and, over HTTP, the upstream)."""
    header = index.header
    line = f"{index.path.name} — "
    http = header.extra.get("http")
    if isinstance(http, dict):  # the addresses first: a server's command line can be long
        line += f"HTTP {http.get('listen') or '?'} → {http.get('upstream') or '?'} — "
    return escape_text(line + (" ".join(header.command) or "(no command recorded)"))


def last_event_time(index: TranscriptIndex) -> float | None:
    """The time of the last well-formed event (the session's duration)."""
    for row in range(len(index) - 1, max(-1, len(index) - 50), -1):
        event = index.event(row)
        if isinstance(event, Event):
            return event.t
    return None


def status_line(index: TranscriptIndex, facts: RowFacts | None, *, follow: bool = False) -> str:
    """Rows, duration, exit status, protocol version, truncation, follow mode."""
    parts = ["following"] if follow else []
    parts.append(f"{len(index):,} rows")
    last = last_event_time(index)
    if last is not None:
        parts.append(f"duration {last:.3f}s")
    analysis = facts.analysis if facts is not None else None
    if analysis is not None:
        if not analysis.exited:
            parts.append("no exit recorded")
        elif analysis.exit_signal is not None:
            parts.append(f"exit signal {analysis.exit_signal}")
        else:
            parts.append(f"exit {analysis.exit_code}")
        if analysis.protocol_version:
            parts.append(f"protocol {escape_text(analysis.protocol_version)}")
    if index.truncated:
        parts.append("last line truncated (recorder killed mid-write?)")
    return " · ".join(parts)


def unreadable(facts: RowFacts) -> tuple[int, int | None]:
    """How many rows are not transcript events (damaged, cut, foreign lines), and the first one."""
    code = bytes([KIND_CODE[K.BADLINE]])
    first = facts.kind.find(code)
    return (facts.kind.count(code), first) if first >= 0 else (0, None)


def verdict(facts: RowFacts) -> tuple[str, str]:
    """The verdict text and its style (unreadable transcript lines are said after it)."""
    text, style = _verdict(facts)
    bad, _ = unreadable(facts) if facts.analysis is not None else (0, None)
    if bad:
        text += f" · {bad} transcript line{'s' if bad != 1 else ''} unreadable"
        if style == "bold green":
            style = "bold yellow"
    return text, style


def _verdict(facts: RowFacts) -> tuple[str, str]:
    analysis = facts.analysis
    if analysis is None:
        return "verdict: pending", ""
    if analysis.clean:
        return "verdict: clean (no findings)", "bold green"
    rules: dict[str, int] = {}
    severities = dict.fromkeys(SEVERITY_ORDER, 0)
    for finding in analysis.findings:
        rules[finding.rule] = rules.get(finding.rule, 0) + 1
        severities[finding.severity.value] = severities.get(finding.severity.value, 0) + 1
    severities["error"] += analysis.errors_truncated  # the errors among the findings not kept
    total = len(analysis.findings) + analysis.findings_truncated
    summary = ", ".join(f"{rule} ×{n}" for rule, n in rules.items())
    noun = "finding" if total == 1 else "findings"
    split = ", ".join(
        f"{n} {name}{'s' if n != 1 and name != 'info' else ''}" for name, n in severities.items() if n
    )
    style = "bold red" if severities["error"] else "bold yellow" if severities["warning"] else "dim"
    return f"verdict: {total} {noun} ({split}) — {summary}", style


def _first_http(facts: RowFacts) -> tuple[int, str] | None:
    """An HTTP transcript's first request or response that is not protocol (not HTTP, a body that is
    not one JSON value, a malformed SSE stream: the report's first non-protocol section), with why."""
    for row in facts.finding_rows:
        for finding in facts.findings[row]:
            if finding.rule in HTTP_FRAME_RULES:
                return row, (
                    f"cursor: first non-protocol bytes on {finding.channel} (exchange {finding.line}, "
                    f"byte {finding.offset}): {safe_text(finding.message)}"
                )
    return None


def _firsts(facts: RowFacts) -> list[tuple[int, str]]:
    """The first non-protocol line on stdout and stdin, and the first HTTP message that is not
    protocol, each with the header's sentence for it."""
    analysis = facts.analysis
    if analysis is None:
        return []
    found = []
    for ch, fnp in analysis.first_non_protocol.items():
        if fnp and fnp.frame.event >= 0:
            where = {"out": "stdout", "in": "stdin"}.get(ch, ch)
            found.append(
                (
                    fnp.frame.event,
                    f"cursor: first non-protocol line on {where} (line {fnp.frame.line}, "
                    f"byte {fnp.frame.offset}): {safe_text(fnp.problem)}",
                )
            )
    http = _first_http(facts)
    if http is not None:
        found.append(http)
    return found


def first_non_protocol_row(facts: RowFacts) -> int | None:
    """The row of the first non-protocol line on stdout or stdin (or, over HTTP, of the first
    request or response that is not protocol), if the check core saw one."""
    return min((row for row, _ in _firsts(facts)), default=None)


def _rank(severity: str) -> int:
    return SEVERITY_ORDER.index(severity) if severity in SEVERITY_ORDER else 0


def _worst(facts: RowFacts) -> int | None:
    """The rank (0 error, 1 warning, 2 info) of the worst finding placed on a row, if any."""
    return min(
        (_rank(f.severity.value) for row in facts.finding_rows for f in facts.findings[row]), default=None
    )


def landing(facts: RowFacts) -> tuple[int | None, str]:
    """Where the cursor opens: on the worst finding (error before warning before info). Among
    those, the first non-protocol line (over HTTP, the first non-protocol request or response if
    it comes first), else the first such finding; without findings, the first unreadable
    transcript line; and why."""
    if facts.analysis is None:
        return None, ""
    worst = _worst(facts)
    firsts = _firsts(facts)
    worst_firsts = [
        item
        for item in firsts
        if worst is None or any(_rank(f.severity.value) == worst for f in facts.findings.get(item[0], ()))
    ]
    if worst_firsts:
        return min(worst_firsts, key=lambda item: item[0])
    if facts.finding_rows and worst is not None:
        row, finding = next(
            (row, f)
            for row in facts.finding_rows
            for f in facts.findings[row]
            if _rank(f.severity.value) == worst
        )
        where = "" if firsts else "; every line is protocol"
        what = (
            f"first finding ({finding.rule}){where}"
            if row == facts.finding_rows[0] and not firsts
            else f"worst finding first ({finding.severity.value} {finding.rule}; the ones before it are less "
            f"severe){where}"
        )
        return row, f"cursor: {what}: {safe_text(finding.message)}"
    bad, first_bad = unreadable(facts)
    if first_bad is not None:
        return first_bad, (
            f"cursor: first unreadable transcript line (row {first_bad + 1}); {bad} in all, "
            "no findings in the rest (a damaged or edited file?)"
        )
    return None, "every line is protocol and no rule found anything; cursor on the first row"

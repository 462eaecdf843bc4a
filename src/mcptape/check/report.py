"""Render an `Analysis` as the text report of `mcptape check`, or as its JSON object.

Every transcript byte shown goes through `textsafe.escape` (in JSON too, so a consumer printing a
field cannot be driven by the server's bytes); the escaping is reversible (`\\xNN`, `\\n`, `\\\\`).
"""

from __future__ import annotations

import shlex
from typing import Any

from mcptape.check.model import (
    CAPTURE,
    CLIENT,
    DIRECTION,
    IN,
    OUT,
    SERVER,
    TRANSCRIPT,
    Analysis,
    Finding,
    FirstNonProtocol,
    Frame,
    Ref,
)
from mcptape.textsafe import escape, escape_controls
from mcptape.transcript.events import HTTP_IN, HTTP_OUT, Header

SHOW = 240  # bytes of a line shown in the text report
HTTP_FRAME_RULES = frozenset({"http-not-http", "http-body-not-json", "http-sse-malformed"})
JSON_SCHEMA_VERSION = 1


def _ms(seconds: float) -> str:
    """3 significant digits: `4.1 ms`, `638 ms`, and `1.89 s` rather than `1.89e+03 ms`."""
    if seconds < 0.9995:
        return f"{seconds * 1000:.3g} ms"
    return f"{seconds:.3g} s" if seconds < 999.5 else f"{seconds:.0f} s"


def _line(frame: Frame | Ref, limit: int = SHOW) -> str:
    raw = frame.body if isinstance(frame, Frame) else frame.raw
    return escape(raw, limit)


def render_text(analysis: Analysis, header: Header | None = None, path: str | None = None) -> str:
    """The human report: summary, first non-protocol line per direction, findings, stderr."""
    out: list[str] = []
    title = f"mcptape check: {escape_controls(path)}" if path else "mcptape check"
    out.append(title)
    if header is not None:
        out.append(f"  server:   {escape_controls(shlex.join(header.command))}")
        out.append(f"  recorded: {escape_controls(header.started)} in {escape_controls(header.cwd)}")
    out.extend(_summary(analysis))
    out.append("")
    out.append("First non-protocol line")
    for ch in (OUT, IN):
        out.extend(_first(ch, analysis.first_non_protocol.get(ch)))
    out.extend(_first_http(analysis.findings))
    out.append("")
    errors = analysis.errors
    total = len(analysis.findings) + analysis.findings_truncated
    out.append(f"Findings ({total})" if total else "Findings: none")
    known = {party for party, _ in PARTIES}
    for party, title in (*PARTIES, (None, "other")):
        mine = [f for f in analysis.findings if f.party == party or (party is None and f.party not in known)]
        if mine:
            out.append(f"  {title} ({len(mine)})")
            for finding in mine:
                out.extend(_finding(finding))
    if analysis.findings_truncated:
        out.append(f"  ... and {analysis.findings_truncated} more (not kept)")
    out.append("")
    out.extend(_stderr(analysis))
    for note in analysis.notes:
        out.append(f"note: {escape_controls(note)}")
    out.append("")
    if total:
        plural = "s" if total != 1 else ""
        out.append(f"Verdict: {total} finding{plural} ({errors} error{'s' if errors != 1 else ''})")
    else:
        out.append("Verdict: clean (no findings)")
    return "\n".join(out) + "\n"


def _summary(analysis: Analysis) -> list[str]:
    version = analysis.protocol_version
    proto = "unknown (no handshake seen)" if version is None else escape_controls(version)
    if analysis.stateless:
        proto += " (stateless, per-request _meta)"
    lines = [
        f"  protocol: {proto}",
        f"  messages: {analysis.messages[OUT]} out (server->client), {analysis.messages[IN]} in"
        f" (client->server); {_count(analysis.requests, 'client request')},"
        f" {_count(analysis.rejects, 'reject')}; {_count(analysis.exec_calls, 'executor call')}",
    ]
    lat = analysis.latency
    if lat.count:
        lines.append(
            f"  latency:  {lat.count} pairs, mean {_ms(lat.total / lat.count)},"
            f" p50 <= {_ms(lat.percentile(50))}, p95 <= {_ms(lat.percentile(95))}, max {_ms(lat.max)}"
        )
    if analysis.exited:
        how = (
            f"signal {analysis.exit_signal}"
            if analysis.exit_signal is not None
            else f"code {analysis.exit_code}"
        )
        lines.append(f"  exit:     {how}")
    return lines


def _first_http(findings: list[Finding]) -> list[str]:
    """An HTTP transcript: the first response and the first request that are not protocol (not HTTP,
    a body that is not one JSON value, a malformed SSE stream), by exchange and byte offset."""
    lines: list[str] = []
    for ch in (HTTP_OUT, HTTP_IN):
        first = next((f for f in findings if f.channel == ch and f.rule in HTTP_FRAME_RULES), None)
        if first is not None:
            lines.append(
                f"  {ch}: exchange {first.line}, byte offset {first.offset}: {escape_controls(first.message)}"
            )
            lines.append(f"      bytes:     {escape(first.raw, SHOW)}")
    return lines


def _first(ch: str, first: FirstNonProtocol | None) -> list[str]:
    label = f"  {ch} ({DIRECTION[ch]}):"
    if first is None:
        return [f"{label} none, every line is protocol"]
    frame = first.frame
    lines = [
        f"{label} line {frame.line}, byte offset {frame.offset}: {escape_controls(first.problem)}",
        f"      bytes:     {_line(frame)}",
    ]
    if first.previous is not None:
        lines.append(f"      before it: line {first.previous.line}: {_line(first.previous, 160)}")
    else:
        lines.append("      before it: nothing (first line of the stream)")
    return lines


# The report's groups, in order: who broke the rule (docs/check.md, "severity and party").
PARTIES = (
    (SERVER, "server: the server broke these"),
    (CLIENT, "client: the client broke these"),
    (CAPTURE, "capture: the recording itself"),
)


def _finding(finding: Finding) -> list[str]:
    rid = f" [request {finding.request_id!r}]" if finding.request_id is not None else ""
    byte = f" (byte {finding.offset})" if finding.offset >= 0 else ""
    lines = [
        f"  {finding.severity.value:<7} {finding.rule:<20} {finding.channel} line {finding.line}"
        f"{byte}{rid} [{finding.party}]",
        f"      {escape_controls(finding.message)}",
    ]
    if finding.raw or finding.channel != TRANSCRIPT:
        lines.append(f"      bytes: {escape(finding.raw, SHOW)}")
    for ref in finding.related:
        if ref.channel == finding.channel and ref.line == finding.line:
            continue
        lines.append(f"      {ref.role}: {ref.channel} line {ref.line}: {_line(ref, 160)}")
    return lines


def _stderr(analysis: Analysis) -> list[str]:
    err = analysis.stderr
    if err.size == 0:
        return ["Server stderr: empty"]
    noun = "line" if err.lines == 1 else "lines"
    lines = [f"Server stderr ({err.lines} {noun}, {err.size} bytes, from transcript event {err.first_event})"]
    text = bytes(err.head)
    parts = text.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    for part in parts:
        lines.append(f"  | {escape(part, SHOW)}")
    if err.truncated:
        lines.append(f"  | ... ({err.size - len(err.head)} more bytes in the transcript)")
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# -- JSON --------------------------------------------------------------------------------------
RAW_KEPT = 64 * 1024  # bytes of a line a JSON document carries (a 100 MB line stays in the transcript)


def raw_json(raw: bytes) -> dict[str, Any]:
    """`raw` (the first RAW_KEPT bytes, escaped) and `raw_size` (the line's whole length): the
    fields every JSON document of mcptape gives a line."""
    return {"raw": escape(raw[:RAW_KEPT]), "raw_size": len(raw)}


def _ref_json(ref: Ref) -> dict[str, Any]:
    return {
        "role": ref.role,
        "channel": ref.channel,
        "line": ref.line,
        "offset": ref.offset,
        **raw_json(ref.raw),
        "event": ref.event,
    }


def finding_json(finding: Finding) -> dict[str, Any]:
    """One finding as a JSON object (the `findings` items of `--json`)."""
    return {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "party": finding.party,
        "channel": finding.channel,
        "line": finding.line,
        "offset": finding.offset,
        **raw_json(finding.raw),
        "message": escape_controls(finding.message),
        "request_id": finding.request_id,
        "t": finding.t,
        "event": finding.event,
        "related": [_ref_json(r) for r in finding.related],
    }


def _first_json(first: FirstNonProtocol | None) -> dict[str, Any] | None:
    if first is None:
        return None
    frame = first.frame
    previous = first.previous
    return {
        "line": frame.line,
        "offset": frame.offset,
        **raw_json(frame.body),
        "complete": frame.complete,
        "problem": escape_controls(first.problem),
        "t": frame.t,
        "event": frame.event,
        "previous": None
        if previous is None
        else {
            "line": previous.line,
            "offset": previous.offset,
            **raw_json(previous.body),
            "event": previous.event,
        },
    }


def to_json(analysis: Analysis, header: Header | None = None) -> dict[str, Any]:
    """The `--json` object (schema in docs/check.md)."""
    lat = analysis.latency
    err = analysis.stderr
    return {
        "schema": JSON_SCHEMA_VERSION,
        "clean": analysis.clean,
        "command": header.command if header is not None else None,
        "protocol_version": analysis.protocol_version,
        "stateless": analysis.stateless,
        "first_non_protocol": {ch: _first_json(analysis.first_non_protocol.get(ch)) for ch in (OUT, IN)},
        "findings": [finding_json(f) for f in analysis.findings],
        "findings_not_kept": analysis.findings_truncated,
        "summary": {
            "messages": dict(analysis.messages),
            "client_requests": analysis.requests,
            "rejects": analysis.rejects,
            "exec_calls": analysis.exec_calls,
            "latency": {
                "pairs": lat.count,
                "mean": lat.total / lat.count if lat.count else None,
                "p50_max": lat.percentile(50) if lat.count else None,
                "p95_max": lat.percentile(95) if lat.count else None,
                "max": lat.max if lat.count else None,
            },
        },
        "exit": {"code": analysis.exit_code, "signal": analysis.exit_signal} if analysis.exited else None,
        "stderr": {
            "lines": err.lines,
            "bytes": err.size,
            "first_event": err.first_event if err.size else None,
            "head": escape(bytes(err.head)),
            "truncated": err.truncated,
        },
        "notes": [escape_controls(note) for note in analysis.notes],
    }

"""`mcptape report`: the directory a user attaches to a bug report.

`DIR/report.md` (what a maintainer needs to reproduce without the agent conversation: the launch
command, versions, protocol version, verdict, the first offending bytes with the lines around
them, the findings), `DIR/stderr.txt` (the server's stderr, as a separate attachment) and
`DIR/transcript.jsonl` (the redacted transcript). Everything is computed by the check core on the
*redacted* copy, so no secret can reach the report or stderr.txt.
"""

from __future__ import annotations

import platform
import shlex
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from mcptape.check.analyze import analyze_file
from mcptape.check.classify import classify
from mcptape.check.framing import frames
from mcptape.check.model import DIRECTION, ERR, IN, OUT, Analysis, Finding, Frame
from mcptape.check.report import render_text
from mcptape.errors import OutputError
from mcptape.share.copy import Summary, redact_file
from mcptape.share.outputs import refuse_input, write_file
from mcptape.share.rules import Rules
from mcptape.textsafe import escape, escape_text, hexdump
from mcptape.transcript import Header, open_transcript
from mcptape.version import __version__

CONTEXT = 2  # lines shown before and after the first offending line
SHOW = 400  # bytes of one line shown in the report
HEX = 64  # bytes of the first offending line shown as a hex dump
FILES = ("report.md", "stderr.txt", "transcript.jsonl")


@dataclass(frozen=True)
class Bundle:
    """What `make_report` wrote, and the verdict it found."""

    directory: Path
    analysis: Analysis
    redaction: Summary | None


def make_report(
    src: Path,
    directory: Path,
    rules: Rules,
    *,
    redact: bool = True,
    overwrite: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Bundle:
    """Write the bundle for `src` into `directory` (created if needed); raise MCPTapeError on bad input."""
    open_transcript(src)  # an unreadable input fails before anything is created
    for name in FILES:  # a bundle file that is the input under another name (a hard link)
        refuse_input([src], directory / name, hint="write the bundle to another directory")
    _prepare(directory, overwrite)
    copy = directory / "transcript.jsonl"
    summary: Summary | None = None
    if redact:
        summary = redact_file(src, copy, rules, overwrite=True, environ=environ)
    else:
        _copy(src, copy)
    header, analysis = analyze_file(str(copy))
    context, stderr = _second_pass(copy, analysis)
    _write(directory / "stderr.txt", stderr)
    text = render(header, analysis, context, summary, stderr_size=len(stderr))
    _write(directory / "report.md", text.encode("utf-8"))
    return Bundle(directory, analysis, summary)


def _prepare(directory: Path, overwrite: bool) -> None:
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"{directory} is not a directory", hint="give -o a directory for the bundle")
    existing = [name for name in FILES if (directory / name).exists()]
    if existing and not overwrite:
        raise OutputError(f"{directory / existing[0]} already exists", hint="pass --overwrite, or another -o")
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise OutputError(f"cannot create {directory}: {exc.strerror or exc}") from None


def _write(path: Path, data: bytes) -> None:
    write_file(path, data)  # a temporary file renamed into place (share/outputs.py)


def _copy(src: Path, dst: Path) -> None:
    try:
        _write(dst, src.read_bytes())
    except OSError as exc:
        raise OutputError(f"cannot copy {src}: {exc.strerror or exc}") from None


def _second_pass(path: Path, analysis: Analysis) -> tuple[dict[str, list[Frame]], bytes]:
    """The lines around each first offending line, and the whole stderr (from the check core's framing)."""
    targets = {ch: first.frame.line for ch, first in analysis.first_non_protocol.items() if first is not None}
    before: dict[str, deque[Frame]] = {ch: deque(maxlen=CONTEXT) for ch in targets}
    context: dict[str, list[Frame]] = {ch: [] for ch in targets}
    stderr = bytearray()
    for frame in frames(open_transcript(path).events()):
        ch = frame.channel
        if ch == ERR:
            stderr += frame.raw
        target = targets.get(ch)
        if target is None:
            continue
        if frame.line < target:
            before[ch].append(frame)
        elif frame.line == target:
            context[ch].extend(before[ch])
            context[ch].append(frame)
        elif frame.line <= target + CONTEXT:
            context[ch].append(frame)
    return context, bytes(stderr)


def _fence(text: str) -> str:
    """A code block whose fence is longer than any run of backticks inside."""
    longest = run = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{text}\n{fence}"


def _describe(frame: Frame) -> str:
    msg = classify(frame)
    parts = [msg.kind.value]
    if msg.method:
        parts.append(escape_text(msg.method))
    if msg.id is not None:
        parts.append(f"id={msg.id!r}")
    return " ".join(parts)


def render(
    header: Header,
    analysis: Analysis,
    context: dict[str, list[Frame]],
    summary: Summary | None,
    *,
    stderr_size: int,
) -> str:
    """report.md: every transcript byte escaped, every fact taken from the check core's `Analysis`."""
    total = len(analysis.findings) + analysis.findings_truncated
    out = _overview(header, analysis, summary, total, stderr_size)
    for ch in (OUT, IN):
        out.extend(_offending(ch, analysis, context))
    out += ["", f"## Findings ({total})", ""]
    if total == 0:
        out.append("None.")
    for finding in analysis.findings:
        out.extend(_finding(finding))
    if analysis.findings_truncated:
        out.append(f"... and {analysis.findings_truncated} more (not kept).")
    out += ["", "## `mcptape check` output", "", _fence(render_text(analysis, header).rstrip("\n")), ""]
    return "\n".join(out)


def _overview(
    header: Header, analysis: Analysis, summary: Summary | None, total: int, stderr_size: int
) -> list[str]:
    """The report's title, verdict and table of facts, up to the heading of the first offending bytes."""
    verdict = "clean (no findings)" if total == 0 else f"{total} finding(s), {analysis.errors} error(s)"
    version = _cell(analysis.protocol_version) if analysis.protocol_version else "unknown (no handshake seen)"
    if analysis.stateless:
        version += " (stateless)"
    recorder = header.recorder.get("version", "?")
    return [
        "# mcptape bug report",
        "",
        f"**Verdict: {verdict}**",
        "",
        "| | |",
        "|---|---|",
        f"| Server command | {_cell(shlex.join(header.command))} |",
        f"| Working directory | {_cell(header.cwd)} |",
        f"| Recorded | {_cell(header.started)} by mcptape {_cell(str(recorder))} |",
        f"| Report by | mcptape {__version__}, Python {platform.python_version()}"
        f" on {_cell(platform.platform())} |",
        f"| Protocol version | {version} |",
        f"| Messages | {analysis.messages[OUT]} server->client, {analysis.messages[IN]} client->server;"
        f" {analysis.requests} client requests, {analysis.rejects} rejected;"
        f" {analysis.exec_calls} executor calls |",
        f"| Server exit | {_exit_text(analysis)} |",
        f"| Redaction | {_redaction_text(summary)} |",
        "",
        "Attached: `report.md` (this file), `stderr.txt` (the server's stderr, "
        f"{stderr_size} bytes), `transcript.jsonl` (the session; replay it with `mcptape replay`).",
        "",
        "## First offending bytes",
        "",
        "Bytes are shown escaped: `\\xNN` for a byte that is not printable UTF-8, `\\n` for a newline.",
    ]


def _redaction_text(summary: Summary | None) -> str:
    """The Redaction cell: what was replaced and left out, or a warning that nothing was."""
    if summary is None:
        return "**not redacted** (`--no-redact`): this bundle may contain secrets"
    dropped = (
        f"; {summary.dropped_lines} unreadable transcript line(s) left out" if summary.dropped_lines else ""
    )
    replaced = f"{summary.replaced} secret(s) replaced ({summary.distinct} distinct)"
    return f"{replaced}{dropped}; see docs/sharing.md"


def _exit_text(analysis: Analysis) -> str:
    """The Server exit cell: the signal or code, or that no exit was recorded."""
    if not analysis.exited:
        return "not recorded"
    return (
        f"signal {analysis.exit_signal}" if analysis.exit_signal is not None else f"code {analysis.exit_code}"
    )


def _offending(ch: str, analysis: Analysis, context: dict[str, list[Frame]]) -> list[str]:
    """One channel's section: its first offending line among its neighbours, then that line in hex."""
    first = analysis.first_non_protocol.get(ch)
    out = ["", f"### `{ch}` ({DIRECTION[ch]})", ""]
    if first is None:
        out.append("Every line is protocol.")
        return out
    frame = first.frame
    out.append(f"Line {frame.line}, byte offset {frame.offset}: {_span(first.problem)}")
    out.append("")
    rows = []
    for f in context.get(ch, [frame]):
        mark = ">" if f.line == frame.line else " "
        rows.append(f"{mark} {f.line:>5} | {escape(f.raw, SHOW)}")
        if f.line != frame.line:
            rows.append(f"        | ({_describe(f)})")
    out.append(_fence("\n".join(rows)))
    out.append("")
    out.append(f"First {min(len(frame.raw), HEX)} bytes of line {frame.line}:")
    out.append("")
    out.append(_fence(hexdump(frame.raw[:HEX])))
    return out


def _finding(finding: Finding) -> list[str]:
    rid = f", request {_span(repr(finding.request_id))}" if finding.request_id is not None else ""
    lines = [
        f"- **{finding.rule}** ({finding.severity.value}), {_span(finding.channel)} line {finding.line}, "
        f"byte {finding.offset}{rid}: {_span(finding.message)}",
        "",
    ]
    rows = [f"  {finding.line:>5} | {escape(finding.raw, SHOW)}"]
    for ref in finding.related:
        if ref.channel == finding.channel and ref.line == finding.line:
            continue
        rows.append(f"  {ref.role}: {ref.channel} line {ref.line} | {escape(ref.raw, SHOW)}")
    block = _fence("\n".join(rows))
    lines.extend("  " + row for row in block.split("\n"))
    lines.append("")
    return lines


def _span(text: str) -> str:
    """Text from the transcript in running text: escaped, in a code span."""
    return code_span(escape_text(text))


def _cell(text: str) -> str:
    """Text from the transcript for a table cell: escaped, in a code span."""
    return code_span(escape_text(text), table=True)


def code_span(text: str, *, table: bool = False) -> str:
    """`text` as a Markdown code span, never live Markdown or HTML: the backtick string around it
    is longer than any run of backticks inside. In a `table` cell `|` is escaped (the row would
    split on it; GFM tables read `\\|` as `|` inside code too). `text` must hold no newline."""
    longest = run = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    ticks = "`" * (longest + 1)
    inner = text.replace("|", "\\|") if table else text
    return f"{ticks} {inner} {ticks}"

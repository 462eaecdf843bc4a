"""The pure analysis core: bytes -> frames -> classified messages -> findings.

This is the only place mcptape frames lines and classifies JSON-RPC/MCP messages: `check`, replay's
diff, probe, the bug-report bundle and the TUI all call it. No I/O here except `analyze_file`
(which only reads the transcript), no textual, no rich.

Public API (stable; see docs/check.md):

Values (`mcptape.check.model`)
    Frame(channel, line, offset, raw, t, complete, events)      one line of a byte channel
    Message(frame, kind, method, id, value, problem, rule, items)  a classified `in`/`out` line
    Kind: request / notification / response / error-response / batch / invalid / non-protocol
    ExecCall(frame, value, request_id, attributed_to)             one `exec`/`http` line
    Finding(rule, severity, channel, line, offset, raw, message, request_id, t, event, related)
    Ref(role, channel, line, offset, raw, event)                  another line a finding names
    At(channel, line, offset, raw, t, event)                      a line's place, as rules get it
    Callbacks: on_message, on_exec, on_finding, on_pair, on_reject, watch (a TypedDict: the
        keywords of Analyzer, analyze, analyze_file and Analyzer.snapshot, declared once)
    FirstNonProtocol(frame, problem, previous)
    Analysis(findings, first_non_protocol, protocol_version, stateless, messages, requests,
             rejects, exec_calls, latency, stderr, exit_code, exit_signal, exited, ...)

Framing (`mcptape.check.framing`)
    frames(events: Iterable[Event]) -> Iterator[Frame]
        every byte channel's lines in file order (fragments joined; an unterminated tail gives an
        incomplete frame at the end); `b"".join(f.raw for f in frames of channel c)` == c's bytes.
    Framer().feed(event) -> list[Frame];  Framer().close() -> list[Frame]   (the streaming form)

Classification (`mcptape.check.classify`)
    classify(frame: Frame, version: str | None = None) -> Message       never raises
    classify_line(raw: bytes, channel: str = "out", version: str | None = None) -> Message
        one line on demand (the TUI); `version` is the session's protocol version if known
        (Analyzer.version / Analysis.protocol_version), else None.

Analysis (`mcptape.check.analyze`)
    ordered(events: Iterable[Event]) -> Iterator[Event]     events by `t` across channels
    messages(events: Iterable[Event]) -> Iterator[Message]  time-ordered in/out messages, each
        classified with the protocol version known at that point (for replay's diff)
    analyze(events, *, on_message=None, on_exec=None, on_finding=None, on_pair=None) -> Analysis
        streaming, memory independent of the transcript's length. Callbacks:
        on_message(Message) for every in/out line, on_exec(ExecCall) for every exec/http line,
        on_finding(Finding), on_pair(request event index, response event index, latency s);
        each value carries the transcript event indexes it came from (`frame.events`,
        `finding.event`: every line after the header counts, see docs/format.md). Callbacks fire
        in time order, after a bounded reorder delay.
    analyze_file(path, *, on_message=..., on_exec=..., on_finding=..., on_pair=...)
        -> tuple[Header, Analysis]     raises TranscriptError for unreadable input
    Analyzer(*, max_findings=10_000, policy, flush_bytes, **callbacks)
        fed with .feed(event), .push(t, ch, text|bytes|fields, index) or
        .feed_records(records, size) (a `Transcript.batches()` batch); .finish() -> Analysis;
        .snapshot(on_...=...) -> Analysis (the analysis so far, on a copy: the analyzer goes on);
        .version (the protocol version reached so far). It has a `Session` (session.py): the
        model of pending requests (pairing), tool schemas (tools), rejected lines (rejects),
        executor attribution (attribution), tool annotations held against the attributed actions
        (promises) and the bounded findings (findings).

Findings (`mcptape.check.findings`)
    finding(rule, *, channel, line, offset, raw, message, request_id, t, event, related, ...)
        -> Finding   the one constructor (severity and party from the rule registry)

Rules (`mcptape.check.rules`)
    RULES: dict[str, Rule]      Rule(id, severity, summary) for every public rule id
    FRAME_RULES: frozenset[str] the rules a line raises by itself (derived: where == "classify")

Report (`mcptape.check.report`)
    render_text(analysis, header=None) -> str     (transcript bytes escaped with textsafe.escape)
    to_json(analysis, header=None) -> dict
    finding_json(finding) -> dict                 the one JSON form of a finding (probe, replay too)
"""

from __future__ import annotations

from mcptape.check.model import (
    Analysis,
    At,
    Callbacks,
    ExecCall,
    Finding,
    FirstNonProtocol,
    Frame,
    Kind,
    Message,
    Ref,
    Severity,
)

__all__ = [
    "Analysis",
    "At",
    "Callbacks",
    "ExecCall",
    "Finding",
    "FirstNonProtocol",
    "Frame",
    "Kind",
    "Message",
    "Ref",
    "Severity",
]

"""A session as trace spans, after the OpenTelemetry semantic conventions for MCP.

* The root span is the session (`mcp session {server}`), from the recording's start to its last
  record, with the session's own findings (those no call accounts for) as events.
* One span per call, child of the root, named `{mcp.method.name} {target}` (`tools/call add`;
  the method alone when there is no tool or prompt name), kind SERVER for a request the client sent
  (the server under record received it), CLIENT for one the server sent (sampling, elicitation).
  Attributes: `mcp.method.name`, `jsonrpc.request.id` (a string), `jsonrpc.protocol.version`,
  `gen_ai.tool.name` and `gen_ai.operation.name` = `execute_tool` (tools/call),
  `gen_ai.prompt.name` (prompts/get), `mcp.resource.uri` (resources/*), `mcp.protocol.version`,
  `mcp.session.id` (where the transport has one), `network.transport` (`pipe` for stdio, `tcp` for
  HTTP), `network.protocol.name` = `http` over HTTP. An answer that is a JSON-RPC error sets status
  ERROR, `error.type` and `rpc.response.status_code` to its code as a string; a tools/call result
  with `isError: true` sets status ERROR and `error.type` = `tool_error`; a request never answered
  ends with the session, status ERROR, `error.type` = `unanswered`.
* Each check finding on a call is an event of its span (`mcptape.finding`, with its rule,
  severity, party, message, place and raw bytes, escaped).
* Each executor, stub or HTTP sink action is a child span of the call it belongs to (`action
  {name}`), INTERNAL, at the time it was recorded; an action the check flags (after a reject) has
  status ERROR.

Ids are derived from the transcript's header (trace id) and each record's event index (span id):
exporting a transcript twice gives the same trace, which a backend stores once.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from mcptape.check.model import ExecCall, Finding
from mcptape.export.session import HTTP, Call, Session
from mcptape.export.text import message_text
from mcptape.jsonsafe import dumps
from mcptape.textsafe import escape, escape_controls

KIND_INTERNAL, KIND_SERVER, KIND_CLIENT = 1, 2, 3  # OTLP's SpanKind values
STATUS_UNSET, STATUS_OK, STATUS_ERROR = 0, 1, 2
RAW_SHOWN = 4096  # bytes of a message or a line kept in an attribute
MCP_SCOPE = "mcptape"

Attribute = str | int | float | bool
_INTERPRETER = re.compile(r"(python|pypy|node|uv|uvx|npx|deno|bun|ruby|java|sh|bash|env)[0-9.]*(\.exe)?")


@dataclass
class Event:
    name: str
    time_ns: int
    attributes: dict[str, Attribute] = field(default_factory=dict)


@dataclass
class Span:
    trace_id: bytes
    span_id: bytes
    parent_id: bytes | None
    name: str
    kind: int
    start_ns: int
    end_ns: int
    attributes: dict[str, Attribute] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    status: int = STATUS_UNSET
    status_message: str = ""


@dataclass
class Trace:
    """One session's spans and the resource they come from."""

    resource: dict[str, Attribute]
    spans: list[Span]


def _id(*parts: object, size: int) -> bytes:
    digest = hashlib.sha256("\x00".join(str(p) for p in parts).encode("utf-8", "surrogateescape")).digest()
    return digest[:size]


def span_id(trace_id: bytes, kind: str, event: int) -> bytes:
    """`_id(trace_id.hex(), kind, event, size=8)`, the id of a call's or an action's span, without
    the generator (one per span of a large session)."""
    return hashlib.sha256(f"{trace_id.hex()}\x00{kind}\x00{event}".encode()).digest()[:8]


def service_name(session: Session) -> str:
    """What the server is called: its script or executable's name (the first argument that is not an
    option, after an interpreter), or the upstream URL of an HTTP recording without a command."""
    for arg in session.header.command:
        name = os.path.basename(arg)
        if name and not name.startswith("-") and not _INTERPRETER.fullmatch(name):
            return escape_controls(name)
    http = session.header.extra.get("http")
    if isinstance(http, dict) and isinstance(http.get("upstream"), str):
        return escape_controls(http["upstream"])
    return "mcp-server"


def root_ids(session: Session) -> tuple[bytes, bytes]:
    """The session's trace id (from its header) and its root span's id."""
    trace_id = _id("mcptape", dumps(session.header.to_record(), sort_keys=True), size=16)
    return trace_id, _id(trace_id.hex(), "session", size=8)


class Root(NamedTuple):
    """What every span of a session shares: the root span, the server's name (the resource's
    `service.name`), the attributes every call carries, and the messages of the actions check
    flagged (`exec-after-reject`) by their event."""

    span: Span
    server: str
    common: dict[str, Attribute]
    flagged: dict[int, str]


def root_span(session: Session) -> Root:
    """The session's root span and what its other spans share."""
    trace_id, root_id = root_ids(session)
    server = service_name(session)
    common: dict[str, Attribute] = {"network.transport": session.transport}
    if session.analysis.protocol_version:
        common["mcp.protocol.version"] = escape_controls(session.analysis.protocol_version)
    if session.transport == HTTP:
        common["network.protocol.name"] = "http"
    root = Span(
        trace_id,
        root_id,
        None,
        f"mcp session {server}",
        KIND_INTERNAL,
        session.wall_ns(0.0),
        session.wall_ns(session.end),
        {
            **common,
            "mcptape.transcript": escape_controls(session.path.name),
            "mcptape.command": escape_controls(" ".join(session.header.command)),
            "mcptape.calls": len(session.calls),
            "mcptape.findings": len(session.analysis.findings),
        },
    )
    analysis = session.analysis
    if analysis.exited:
        if analysis.exit_code is not None:
            root.attributes["process.exit.code"] = analysis.exit_code
        if analysis.exit_signal is not None:
            root.attributes["mcptape.exit.signal"] = analysis.exit_signal
    root.events = [finding_event(session, f) for f in session.unattached_findings]
    if any(f.severity.value == "error" for f in analysis.findings):
        root.status, root.status_message = STATUS_ERROR, f"{analysis.errors} error finding(s)"
    flagged = {
        f.event: f.message for f in analysis.findings if f.rule == "exec-after-reject" and f.event >= 0
    }
    return Root(root, server, common, flagged)


def resource(server: str) -> dict[str, Attribute]:
    """The resource of a session's spans."""
    return {"service.name": server, "telemetry.sdk.name": "mcptape"}


def trace(session: Session) -> Trace:
    """The spans of one session (the root first)."""
    root, server, common, flagged = root_span(session)
    trace_id, root_id = root.trace_id, root.span_id
    spans = [root]
    for action in session.unattached_actions:
        spans.append(action_span(session, action, trace_id, root_id, flagged))
    for call in session.calls:
        span = call_span(session, call, trace_id, root_id, common)
        spans.append(span)
        spans.extend(action_span(session, action, trace_id, span.span_id, flagged) for action in call.actions)
    return Trace(resource(server), spans)


def call_span(
    session: Session, call: Call, trace_id: bytes, parent: bytes, common: dict[str, Attribute]
) -> Span:
    method = escape_controls(call.method)
    target = call.target
    name = f"{method} {escape_controls(target)}" if target else method
    attributes: dict[str, Attribute] = {
        "mcp.method.name": method,
        "jsonrpc.protocol.version": "2.0",
        **common,
    }
    if call.request.id is not None:
        attributes["jsonrpc.request.id"] = escape_controls(str(call.request.id))
    if call.method == "tools/call" and target:
        attributes["gen_ai.tool.name"] = escape_controls(target)
        attributes["gen_ai.operation.name"] = "execute_tool"
    elif call.method == "prompts/get" and target:
        attributes["gen_ai.prompt.name"] = escape_controls(target)
    uri = call.params.get("uri")
    if call.method.startswith("resources/") and type(uri) is str:
        attributes["mcp.resource.uri"] = escape_controls(uri)
    if call.exchange is not None:
        attributes["mcptape.http.exchange"] = call.exchange
        session_id = session.session_id(call)
        if session_id:
            attributes["mcp.session.id"] = escape_controls(session_id)
    attributes["mcptape.request"] = message_text(call.request.frame.body, RAW_SHOWN, is_json=True)
    if call.response is not None:
        response = call.response
        attributes["mcptape.response"] = message_text(
            response.frame.body, RAW_SHOWN, is_json=response.value is not None
        )
    attributes["mcptape.event"] = call.request.frame.event
    end = call.end
    span = Span(
        trace_id,
        span_id(trace_id, "call", call.request.frame.event),
        parent,
        name,
        KIND_SERVER if call.sender == "client" else KIND_CLIENT,
        session.wall_ns(call.start),
        session.wall_ns(end if end is not None else max(session.end, call.start)),
        attributes,
    )
    error = call.error
    if error is not None:
        span.status = STATUS_ERROR
        attributes["error.type"] = error
        if error.lstrip("-").isdigit():
            attributes["rpc.response.status_code"] = error
        span.status_message = escape_controls(call.error_message or error)
    span.events = [finding_event(session, f) for f in call.findings]
    return span


def action_name(action: ExecCall) -> str:
    """`deploy-preview` (the tap's `action`), `GET http://host/path` (the HTTP sink), or the channel."""
    value = action.value or {}
    named = value.get("action")
    if type(named) is str:
        return escape_controls(named)
    method, url = value.get("method"), value.get("url") or value.get("target")
    if type(method) is str and type(url) is str:
        return escape_controls(f"{method} {url}")
    return action.frame.channel


def action_span(
    session: Session, action: ExecCall, trace_id: bytes, parent: bytes, flagged: dict[int, str]
) -> Span:
    frame = action.frame
    attributes: dict[str, Attribute] = {
        "mcptape.action.channel": frame.channel,
        "mcptape.action.line": message_text(frame.body, RAW_SHOWN, is_json=action.value is not None),
        "mcptape.event": frame.event,
    }
    value = action.value or {}
    for key in ("kind", "outcome"):
        if type(value.get(key)) is str:
            attributes[f"mcptape.action.{key}"] = escape_controls(value[key])
    if action.attributed_to is not None:
        attributes["jsonrpc.request.id"] = escape_controls(str(action.attributed_to))
    at = session.wall_ns(frame.t)
    span = Span(
        trace_id,
        span_id(trace_id, "action", frame.event),
        parent,
        f"action {action_name(action)}",
        KIND_INTERNAL,
        at,
        at,
        attributes,
    )
    if frame.event in flagged:
        span.status, span.status_message = STATUS_ERROR, escape_controls(flagged[frame.event])
    return span


def finding_event(session: Session, found: Finding) -> Event:
    attributes: dict[str, Any] = {
        "mcptape.finding.rule": found.rule,
        "mcptape.finding.severity": found.severity.value,
        "mcptape.finding.party": found.party,
        "mcptape.finding.message": escape_controls(found.message),
        "mcptape.finding.channel": found.channel,
        "mcptape.finding.line": found.line,
        "mcptape.finding.offset": found.offset,
        "mcptape.finding.bytes": escape(found.raw, RAW_SHOWN),
    }
    if found.event >= 0:
        attributes["mcptape.event"] = found.event
    return Event("mcptape.finding", session.wall_ns(found.t or 0.0), attributes)

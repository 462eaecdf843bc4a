"""Traces in the OpenTelemetry protocol: the OTLP JSON encoding (`-o FILE`) and the protobuf body of
an OTLP/HTTP export request (`--endpoint URL`), both from one builder.

`document(traces)` is the `ExportTraceServiceRequest` as the OTLP JSON mapping writes it: field
names in lowerCamelCase, trace and span ids in hex, 64-bit integers as decimal strings, enums as
integers. `protobuf(traces)` parses that same document into the official generated message
(`opentelemetry-proto`, the `mcptape[otlp]` extra; only its ids are given back as bytes) and
serializes it: what the official OTLP/HTTP exporter sends with `Content-Type: application/x-protobuf`.
"""

from __future__ import annotations

import base64
import hashlib
import io
from typing import Any

import orjson

from mcptape.check.model import IN, Kind
from mcptape.errors import UsageError
from mcptape.export import spans as _spans
from mcptape.export.session import TOOL_ERROR, UNANSWERED, Call, Session
from mcptape.export.spans import (
    KIND_CLIENT,
    KIND_SERVER,
    RAW_SHOWN,
    STATUS_ERROR,
    Attribute,
    Event,
    Span,
    Trace,
    action_span,
    call_span,
    root_span,
    span_id,
)
from mcptape.export.text import message_text, printable_ascii
from mcptape.textsafe import escape_controls
from mcptape.version import __version__

INSTALL_HINT = "pip install 'mcptape[otlp]' (the official opentelemetry-proto package)"


def value(item: Attribute) -> dict[str, Any]:
    """An `AnyValue` of the OTLP JSON mapping."""
    if type(item) is str:  # the common case first
        return {"stringValue": item}
    if type(item) is bool:
        return {"boolValue": item}
    if type(item) is int:
        return {"intValue": str(item)}
    if type(item) is float:
        return {"doubleValue": item}
    return {"stringValue": str(item)}


def attributes(items: dict[str, Attribute]) -> list[dict[str, Any]]:
    return [
        {"key": key, "value": {"stringValue": item} if type(item) is str else value(item)}
        for key, item in items.items()
    ]


def _event(event: Event) -> dict[str, Any]:
    return {
        "timeUnixNano": str(event.time_ns),
        "name": event.name,
        "attributes": attributes(event.attributes),
    }


def span_json(span: Span) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": span.trace_id.hex(),
        "spanId": span.span_id.hex(),
        "name": span.name,
        "kind": span.kind,
        "startTimeUnixNano": str(span.start_ns),
        "endTimeUnixNano": str(span.end_ns),
        "attributes": attributes(span.attributes),
        "events": [_event(e) for e in span.events],
        "status": {"code": span.status, **({"message": span.status_message} if span.status_message else {})},
    }
    if span.parent_id is not None:
        out["parentSpanId"] = span.parent_id.hex()
    return out


def document(traces: list[Trace]) -> dict[str, Any]:
    """The export request of `traces` (one resource per session) in the OTLP JSON encoding."""
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": attributes(trace.resource)},
                "scopeSpans": [
                    {
                        "scope": {"name": "mcptape", "version": __version__},
                        "spans": [span_json(span) for span in trace.spans],
                    }
                ],
            }
            for trace in traces
        ]
    }


def json_bytes(traces: list[Trace]) -> bytes:
    """`document(traces)` as compact JSON and a newline, the same bytes, written a span at a time
    into one buffer: the document of a large session as one tree of dicts would be several times
    the size of its text (a test holds the two equal)."""
    out = io.BytesIO()
    out.write(b'{"resourceSpans":[')
    scope = orjson.dumps({"name": "mcptape", "version": __version__})
    for number, trace_ in enumerate(traces):
        out.write(b',{"resource":' if number else b'{"resource":')
        out.write(orjson.dumps({"attributes": attributes(trace_.resource)}))
        out.write(b',"scopeSpans":[{"scope":%b,"spans":[' % scope)
        for index, span in enumerate(trace_.spans):
            if index:
                out.write(b",")
            out.write(orjson.dumps(span_json(span)))
        out.write(b"]}]}")
    out.write(b"]}\n")
    return out.getvalue()


def sessions_json(sessions: list[Session]) -> bytes:
    """The OTLP JSON of a trace per session (a row of `commands/outputs.FORMATS`): the bytes of
    `json_bytes([trace(s) for s in sessions])`, each call's span written straight from the call
    (`CallSpans`) instead of through a `Span` and its dicts (a test holds the two equal)."""
    out = io.BytesIO()
    out.write(b'{"resourceSpans":[')
    scope = orjson.dumps({"name": "mcptape", "version": __version__})
    dumps = orjson.dumps
    for number, session in enumerate(sessions):
        root, server, common, flagged = root_span(session)
        out.write(b',{"resource":' if number else b'{"resource":')
        out.write(dumps({"attributes": attributes(_spans.resource(server))}))
        out.write(b',"scopeSpans":[{"scope":%b,"spans":[' % scope)
        out.write(dumps(span_json(root)))
        trace_id, root_id = root.trace_id, root.span_id
        for action in session.unattached_actions:
            out.write(b",")
            out.write(dumps(span_json(action_span(session, action, trace_id, root_id, flagged))))
        spans = CallSpans(session, trace_id, root_id, common)
        for call in session.calls:
            out.write(b",")
            out.write(spans.json(call))
            for action in call.actions:
                parent = span_id(trace_id, "call", call.request.frame.event)
                out.write(b",")
                out.write(dumps(span_json(action_span(session, action, trace_id, parent, flagged))))
        out.write(b"]}]}")
    out.write(b"]}\n")
    return out.getvalue()


_ERROR_RESPONSE = Kind.ERROR_RESPONSE


def _attr(key: str) -> tuple[bytes, bytes]:
    """The text of an attribute around its value: `{"key":KEY,"value":{"stringValue":` and `}}`."""
    return b'{"key":%b,"value":{"stringValue":' % orjson.dumps(key), b"}}"


_METHOD, _CLOSE = _attr("mcp.method.name")
_ID = _attr("jsonrpc.request.id")[0]
_TOOL = _attr("gen_ai.tool.name")[0]
_PROMPT = _attr("gen_ai.prompt.name")[0]
_URI = _attr("mcp.resource.uri")[0]
_SESSION_ID = _attr("mcp.session.id")[0]
_REQUEST = b"," + _attr("mcptape.request")[0]
_RESPONSE = b"," + _attr("mcptape.response")[0]
_ERROR_TYPE = _attr("error.type")[0]
_STATUS_CODE = _attr("rpc.response.status_code")[0]
_EXECUTE = b',{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}}'
_EXCHANGE = b',{"key":"mcptape.http.exchange","value":{"intValue":"%d"}}'
_EVENT = b',{"key":"mcptape.event","value":{"intValue":"%d"}}'


class CallSpans:
    """The OTLP JSON of each call's span of one session, as `span_json(call_span(...))` would
    write it, built from the call's fields with the text that repeats (the method's attributes,
    the span's name) made once per method and target. A call with findings (its span has events)
    takes the general path."""

    def __init__(
        self, session: Session, trace_id: bytes, root_id: bytes, common: dict[str, Attribute]
    ) -> None:
        self.session = session
        self.trace_id, self.root_id, self.common = trace_id, root_id, common
        self.started = session.started_ns
        self.end = session.end
        hex_id = trace_id.hex()
        self.head = b'{"traceId":"%b","spanId":"' % hex_id.encode()
        self.parent = b',"parentSpanId":"%b"}' % root_id.hex().encode()
        self.call_hash = hashlib.sha256(f"{hex_id}\x00call\x00".encode())
        self.common_json = b"".join(b"," + orjson.dumps(a) for a in attributes(common))
        self.methods: dict[tuple[str, str | None], tuple[bytes, bytes, bytes]] = {}

    def _method(self, method: str, target: str | None) -> tuple[bytes, bytes, bytes]:
        """The span's name, the attributes before the id, and those after it (the tool or
        prompt), for a call of `method` on `target`."""
        escaped = escape_controls(method)
        name = f"{escaped} {escape_controls(target)}" if target else escaped
        before = b'{"key":"mcp.method.name","value":{"stringValue":%b}},' % orjson.dumps(escaped)
        before += b'{"key":"jsonrpc.protocol.version","value":{"stringValue":"2.0"}}' + self.common_json
        after = b""
        if method == "tools/call" and target:
            after = b"," + _TOOL + orjson.dumps(escape_controls(target)) + _CLOSE + _EXECUTE
        elif method == "prompts/get" and target:
            after = b"," + _PROMPT + orjson.dumps(escape_controls(target)) + _CLOSE
        made = (b'"name":%b,"kind":' % orjson.dumps(name), before, after)
        self.methods[(method, target)] = made
        return made

    def json(self, call: Call) -> bytes:
        """The span of `call`, as JSON. Over 60 lines on purpose: the export's fast path, once per
        call, writing a span without findings member by member (bench/bench_export.py; held to
        `span_json` by tests/export/test_fast_paths.py)."""
        if call.findings:
            span = call_span(self.session, call, self.trace_id, self.root_id, self.common)
            return orjson.dumps(span_json(span))
        dumps = orjson.dumps
        request = call.request
        frame = request.frame
        method = request.method or ""
        value = request.value
        params = value.get("params") if type(value) is dict else None
        if type(params) is not dict:
            params = {}
        target = None
        if method == "tools/call" or method == "prompts/get":
            name = params.get("name")
            target = name if type(name) is str else None
        made = self.methods.get((method, target))
        if made is None:
            made = self._method(method, target)
        head, before, after = made
        parts = [before]
        rid = request.id
        if rid is not None:
            if type(rid) is int:
                parts.append(b',%b"%d"}}' % (_ID, rid))
            else:
                parts.append(b"," + _ID + dumps(escape_controls(str(rid))) + _CLOSE)
        parts.append(after)
        if method.startswith("resources/"):
            uri = params.get("uri")
            if type(uri) is str:
                parts.append(b"," + _URI + dumps(escape_controls(uri)) + _CLOSE)
        if call.exchange is not None:
            parts.append(_EXCHANGE % call.exchange)
            session_id = self.session.session_id(call)
            if session_id:
                parts.append(b"," + _SESSION_ID + dumps(escape_controls(session_id)) + _CLOSE)
        raw = frame.raw
        body = raw[:-1] if frame.complete and raw.endswith(b"\n") else raw
        if len(body) <= RAW_SHOWN and printable_ascii(body):
            text = body.decode("ascii")
        else:
            text = message_text(body, RAW_SHOWN, is_json=True)
        parts += (_REQUEST, dumps(text), _CLOSE)
        start = frame.t
        response = call.response
        if response is None:
            stop = max(self.end, start)
            error: str | None = UNANSWERED
            message = None
        else:
            answer = response.frame
            answered = response.value
            raw = answer.raw
            body = raw[:-1] if answer.complete and raw.endswith(b"\n") else raw
            if answered is not None and len(body) <= RAW_SHOWN and printable_ascii(body):
                text = body.decode("ascii")
            else:
                text = message_text(body, RAW_SHOWN, is_json=answered is not None)
            parts += (_RESPONSE, dumps(text), _CLOSE)
            stop = max(answer.t, start)
            error = message = None
            if type(answered) is dict:
                if response.kind is _ERROR_RESPONSE:
                    found = answered.get("error")
                    error = str(found.get("code") if type(found) is dict else None)
                else:
                    result = answered.get("result")
                    if type(result) is dict and result.get("isError") is True:
                        error = TOOL_ERROR
                found = answered.get("error")
                if type(found) is dict:
                    said = found.get("message")
                    message = said if type(said) is str else None
        events = frame.events
        event = events[0] if events else -1
        parts.append(_EVENT % event)
        if error is None:
            status = b'"status":{"code":0}'
        else:
            parts.append(b"," + _ERROR_TYPE + dumps(error) + _CLOSE)
            if error.lstrip("-").isdigit():
                parts.append(b"," + _STATUS_CODE + dumps(error) + _CLOSE)
            status = b'"status":{"code":%d,"message":%b}' % (
                STATUS_ERROR,
                dumps(escape_controls(message or error)),
            )
        digest = self.call_hash.copy()
        digest.update(b"%d" % event)
        started = self.started
        return b"".join(
            (
                self.head,
                digest.digest()[:8].hex().encode(),
                b'",',
                head,
                b'%d,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":['
                % (
                    KIND_SERVER if frame.channel == IN else KIND_CLIENT,
                    started + round(start * 1e9),
                    started + round(stop * 1e9),
                ),
                *parts,
                b'],"events":[],',
                status,
                self.parent,
            )
        )


_IDS = ("traceId", "spanId", "parentSpanId")


def _ids_as_base64(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with its hex ids as the protobuf JSON parser reads bytes (base64)."""
    for resource in doc["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in _IDS:
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode("ascii")
    return doc


def protobuf(traces: list[Trace]) -> bytes:
    """The `ExportTraceServiceRequest` of `traces`, serialized (needs opentelemetry-proto)."""
    try:
        from google.protobuf import json_format  # type: ignore[import-untyped]
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    except ImportError:
        raise UsageError(
            "sending OTLP needs opentelemetry-proto, which is not installed", hint=INSTALL_HINT
        ) from None
    message = ExportTraceServiceRequest()
    json_format.ParseDict(_ids_as_base64(document(traces)), message)
    data: bytes = message.SerializeToString()
    return data

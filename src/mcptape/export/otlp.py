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
import io
from typing import Any

import orjson

from mcptape.errors import UsageError
from mcptape.export.session import Session
from mcptape.export.spans import Attribute, Event, Span, Trace, trace
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
    """The OTLP JSON of a trace per session (a row of `commands/outputs.FORMATS`)."""
    return json_bytes([trace(s) for s in sessions])


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

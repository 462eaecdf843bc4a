"""Must show: `mcptape export --format otlp` writes OTLP JSON (hex ids, the MCP semantic conventions'
names and attributes, findings as span events, actions as child spans of their request, the session
as the root) and sends the same spans as an OTLP/HTTP protobuf body, which the official
opentelemetry-proto package decodes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.protobuf import json_format  # type: ignore[import-untyped]
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.conftest import ROOT
from tests.export.helpers import export, listener, tool_session, write_transcript

pytestmark = pytest.mark.slow

ECHO = ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl"


def attrs(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}


def spans_of(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for r in document["resourceSpans"] for scope in r["scopeSpans"] for s in scope["spans"]]


def otlp_json(tmp_path: Path, *transcripts: Path) -> dict[str, Any]:
    out = tmp_path / "traces.json"
    done = export(*map(str, transcripts), "--format", "otlp", "-o", str(out), "--overwrite")
    assert done.returncode == 0, done.stderr
    loaded: dict[str, Any] = orjson.loads(out.read_bytes())
    return loaded


def test_a_stdio_session_becomes_a_root_span_and_one_span_per_call(tmp_path: Path) -> None:
    """The SDK's recorded session: the root `mcp session echo_tool.py`, then `initialize`,
    `tools/list`, `tools/call add`, `tools/call echo` as SERVER spans under it, on `pipe`."""
    spans = spans_of(otlp_json(tmp_path, ECHO))
    root, *calls = spans
    assert root["name"] == "mcp session echo_tool.py" and "parentSpanId" not in root
    assert [s["name"] for s in calls] == ["initialize", "tools/list", "tools/call add", "tools/call echo"]
    for span in calls:
        assert span["parentSpanId"] == root["spanId"] and span["kind"] == 2  # SERVER
        assert span["traceId"] == root["traceId"]
        assert re.fullmatch("[0-9a-f]{32}", span["traceId"]) and re.fullmatch("[0-9a-f]{16}", span["spanId"])
        assert int(span["endTimeUnixNano"]) >= int(span["startTimeUnixNano"]) > 1_700_000_000 * 10**9
    add = attrs(calls[2])
    assert add["mcp.method.name"] == "tools/call" and add["gen_ai.tool.name"] == "add"
    assert add["jsonrpc.request.id"] == "3" and add["network.transport"] == "pipe"
    assert add["mcp.protocol.version"] == "2025-11-25" and add["gen_ai.operation.name"] == "execute_tool"
    assert calls[2]["status"] == {"code": 0}


def test_errors_findings_and_actions_follow_the_conventions(tmp_path: Path) -> None:
    """A JSON-RPC error sets status ERROR and error.type to its code; isError sets tool_error; the
    check's finding on the refused call is its span event; each action is a child span of its
    request, the one after the reject with status ERROR; a debug line is the root's event."""
    spans = spans_of(otlp_json(tmp_path, write_transcript(tmp_path / "t.jsonl", tool_session())))
    by_name: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        by_name.setdefault(span["name"], []).append(span)
    good, refused = by_name["tools/call deploy"]
    assert attrs(refused)["error.type"] == "-32602" and attrs(refused)["rpc.response.status_code"] == "-32602"
    assert refused["status"] == {"code": 2, "message": "branch must be a string"}
    (failed,) = by_name["tools/call fail"]
    assert attrs(failed)["error.type"] == "tool_error" and failed["status"]["code"] == 2
    first, second = by_name["action deploy-preview"]
    assert first["parentSpanId"] == good["spanId"] and first["status"]["code"] == 0
    assert second["parentSpanId"] == refused["spanId"] and second["status"]["code"] == 2
    assert attrs(first)["mcptape.action.kind"] == "create"
    assert [attrs(e)["mcptape.finding.rule"] for e in refused["events"]] == ["exec-after-reject"]
    (root,) = by_name["mcp session server.py"]
    assert [attrs(e)["mcptape.finding.rule"] for e in root["events"]] == ["non-protocol-output"]
    assert attrs(root["events"][0])["mcptape.finding.bytes"] == "debug: still here"


def test_the_endpoint_gets_the_same_spans_as_protobuf(tmp_path: Path) -> None:
    """`--endpoint URL` POSTs to URL/v1/traces with Content-Type application/x-protobuf; the body
    decodes (opentelemetry-proto) to the very spans `-o` writes as JSON, ids as bytes."""
    transcript = write_transcript(tmp_path / "t.jsonl", tool_session())
    with listener() as collector:
        done = export(str(transcript), "--format", "otlp", "--endpoint", collector.url)
    assert done.returncode == 0, done.stderr
    ((method, path, body, headers),) = collector.requests
    assert (method, path) == ("POST", "/v1/traces")
    assert headers["Content-Type"] == "application/x-protobuf"
    decoded = ExportTraceServiceRequest.FromString(body)
    sent = json_format.MessageToDict(decoded)
    written = spans_of(otlp_json(tmp_path, transcript))
    assert len(decoded.resource_spans[0].scope_spans[0].spans) == len(written)
    for proto, span in zip(decoded.resource_spans[0].scope_spans[0].spans, written, strict=True):
        assert proto.trace_id.hex() == span["traceId"] and proto.span_id.hex() == span["spanId"]
        assert proto.name == span["name"] and proto.start_time_unix_nano == int(span["startTimeUnixNano"])
    assert "sent 7 span(s) of 1 session(s)" in done.stderr
    assert sent["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"] == "server.py"


def test_a_full_traces_url_is_used_as_given(tmp_path: Path) -> None:
    """An endpoint that already ends with /v1/traces is not given the path twice."""
    with listener() as collector:
        done = export(str(ECHO), "--format", "otlp", "--endpoint", collector.url + "/v1/traces")
    assert done.returncode == 0, done.stderr
    assert [r[1] for r in collector.requests] == ["/v1/traces"]


def test_exporting_twice_gives_the_same_trace(tmp_path: Path) -> None:
    """Ids come from the transcript: a second export is the same trace, which a backend keeps once."""
    first, second = otlp_json(tmp_path, ECHO), otlp_json(tmp_path, ECHO)
    assert [s["spanId"] for s in spans_of(first)] == [s["spanId"] for s in spans_of(second)]


def test_an_http_session_names_its_transport_and_session_ids(tmp_path: Path, http_transcript: Path) -> None:
    """Over HTTP every call is on `tcp` with its exchange; only the handshake session's calls have
    the Mcp-Session-Id, every one of them the same."""
    _, *calls = spans_of(otlp_json(tmp_path, http_transcript))
    assert all(
        attrs(s)["network.transport"] == "tcp" and int(attrs(s)["mcptape.http.exchange"]) > 0 for s in calls
    )
    ids = [attrs(s).get("mcp.session.id") for s in calls]
    assert None in ids and len({i for i in ids if i is not None}) == 1
    handshake = [s for s in calls if attrs(s).get("mcp.session.id")]
    assert {s["name"] for s in handshake} >= {"tools/list", "tools/call add"}

"""End to end: recorded stdio and Streamable HTTP sessions sent with `mcptape export --format otlp
--endpoint` appear in a real Arize Phoenix (protobuf over OTLP/HTTP, which it takes; it refuses OTLP
JSON with 415), read back through its REST API with the MCP conventions' names and attributes,
the findings as events, the actions as children of their request. See tests/export/phoenix.py for
where Phoenix comes from (its own virtualenv, made on first use)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.export.helpers import export, tool_session, write_transcript
from tests.export.phoenix import Phoenix, start

ECHO = ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl"
pytestmark = [pytest.mark.timeout(1500), pytest.mark.slow]  # a first run installs Phoenix


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    with start(tmp_path_factory.mktemp("phoenix")) as running:
        yield running


def send(phoenix: Phoenix, *transcripts: Path) -> None:
    done = export(*map(str, transcripts), "--format", "otlp", "--endpoint", phoenix.url)
    assert done.returncode == 0, done.stderr


def traces(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Spans by the name of their trace's root."""
    roots = {s["context"]["trace_id"]: s["name"] for s in spans if s["parent_id"] is None}
    out: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        out.setdefault(roots.get(span["context"]["trace_id"], "?"), []).append(span)
    return out


def test_stdio_sessions_appear_with_the_conventions(tmp_path: Path, phoenix: Phoenix) -> None:
    """The SDK's recorded session and a session with a refused call and its action: each a trace
    under its session span; `tools/call add` with gen_ai.tool.name, jsonrpc.request.id "3",
    network.transport pipe; the refused call ERROR with error.type -32602 and its finding as an
    event; the action after the reject its child, ERROR."""
    tool = write_transcript(tmp_path / "deploy.jsonl", tool_session())
    send(phoenix, ECHO, tool)
    found = traces(phoenix.wait_for_spans(12))
    echo = {s["name"]: s for s in found["mcp session echo_tool.py"]}
    assert set(echo) == {
        "mcp session echo_tool.py",
        "initialize",
        "tools/list",
        "tools/call add",
        "tools/call echo",
    }
    add = echo["tools/call add"]
    assert add["parent_id"] == echo["mcp session echo_tool.py"]["context"]["span_id"]
    attributes = add["attributes"]
    assert attributes["mcp.method.name"] == "tools/call" and attributes["gen_ai.tool.name"] == "add"
    assert attributes["jsonrpc.request.id"] == "3" and attributes["network.transport"] == "pipe"
    assert attributes["mcp.protocol.version"] == "2025-11-25"
    deploy = found["mcp session server.py"]
    refused = next(s for s in deploy if s["attributes"].get("error.type") == "-32602")
    assert refused["name"] == "tools/call deploy" and refused["status_code"] == "ERROR"
    assert [e["attributes"]["mcptape.finding.rule"] for e in refused["events"]] == ["exec-after-reject"]
    (action,) = [s for s in deploy if s["parent_id"] == refused["context"]["span_id"]]
    assert action["name"] == "action deploy-preview" and action["status_code"] == "ERROR"


def test_an_http_session_appears_with_tcp_and_its_session_id(phoenix: Phoenix, http_transcript: Path) -> None:
    """The SDK client's recorded HTTP session: every call a span on `tcp`, `network.protocol.name`
    http; the handshake session's calls carry the Mcp-Session-Id the server assigned, the modern
    session's none."""
    before = len(phoenix.spans())
    send(phoenix, http_transcript)
    spans = [s for s in phoenix.wait_for_spans(before + 10) if s["name"] != "?"]
    (session,) = [
        s for s in spans if s["parent_id"] is None and s["attributes"].get("network.transport") == "tcp"
    ]
    calls = [s for s in spans if s["parent_id"] == session["context"]["span_id"]]
    names = {s["name"] for s in calls}
    assert {"tools/call add", "tools/call echo", "tools/call count", "tools/list"} <= names
    for span in calls:
        assert span["attributes"]["network.transport"] == "tcp"
        assert span["attributes"]["network.protocol.name"] == "http"
    ids = [s["attributes"].get("mcp.session.id") for s in calls]
    assert len({i for i in ids if i is not None}) == 1  # the handshake session's one id
    assert None in ids  # the modern (2026-07-28) session has none

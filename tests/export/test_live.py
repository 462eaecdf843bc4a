"""Must show: `mcptape record --otlp URL` sends each call as a span while the session goes on (before
the client is done), the session's root span at the end, with the ids a later `mcptape export` of
the same transcript gives; and a collector that refuses or never answers neither delays the relay
nor breaks the recording: the server's answers come, the transcript is whole, the exit code is the
server's, and stderr says once how many spans were dropped."""

from __future__ import annotations

import select
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from mcptape.export.live import FLUSH_WITHIN
from tests.conftest import PYTHON, SERVERS, console_script
from tests.export.helpers import export, listener
from tests.recorder.http.helpers import free_port, recording, refused_port, sdk_server
from tests.recorder.http.sdk_client import drive

pytestmark = pytest.mark.slow

HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
CALLS: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 40}},
    },
]


def read_line(stream: IO[bytes], timeout: float = 60.0) -> bytes:
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, "the server did not answer"
    return stream.readline()


def names(bodies: list[bytes]) -> Iterator[tuple[str, str, str]]:
    """(name, span id, parent id) of every span the collector got."""
    for body in bodies:
        for resource in ExportTraceServiceRequest.FromString(body).resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:
                    yield span.name, span.span_id.hex(), span.parent_span_id.hex()


def session(url: str, out: Path) -> tuple[subprocess.Popen[bytes], list[float]]:
    """Record echo_tool.py with --otlp URL, as a client that waits for each answer; the relay's
    latency of each request (write to answer), and the recorder still running (stdin open). The
    echo tools on lite (tests/servers/fast/: the SDK's answers, 0.03 s of CPU to start, not 0.7):
    the subject is the recorder's live export, not the server."""
    proc = subprocess.Popen(
        [
            console_script(),
            "record",
            "--otlp",
            url,
            "-o",
            str(out),
            "--",
            PYTHON,
            str(SERVERS / "fast" / "echo_tool.py"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    latencies = []
    for message in CALLS:
        proc.stdin.write(orjson.dumps(message) + b"\n")
        proc.stdin.flush()
        if "id" in message:
            sent = time.monotonic()
            answer = orjson.loads(read_line(proc.stdout))
            latencies.append(time.monotonic() - sent)
            assert answer["id"] == message["id"] and "result" in answer
    return proc, latencies


def finish(proc: subprocess.Popen[bytes]) -> tuple[int, str]:
    assert proc.stdin is not None and proc.stderr is not None
    proc.stdin.close()
    code = proc.wait(60)
    return code, proc.stderr.read().decode()


def test_each_call_is_sent_while_the_session_goes_on(tmp_path: Path) -> None:
    """initialize, tools/list and tools/call add reach the collector before stdin closes; the root
    comes at the end; the ids are those `mcptape export` gives the transcript afterwards."""
    out = tmp_path / "live.jsonl"
    with listener() as collector:
        proc, _ = session(collector.url, out)
        deadline = time.monotonic() + 30  # the exporter runs at nice 10: on a busy machine it waits
        while len(list(names([r[2] for r in collector.requests]))) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        during = [name for name, _, _ in names([r[2] for r in collector.requests])]
        code, stderr = finish(proc)
        live = list(names([r[2] for r in collector.requests]))
    assert during == ["initialize", "tools/list", "tools/call add"], during
    assert code == 0 and "live export" not in stderr, stderr
    root = [span for span in live if span[0] == "mcp session echo_tool.py"]
    assert len(root) == 1 and all(parent == root[0][1] for name, _, parent in live if name != root[0][0])
    later = tmp_path / "later.json"
    assert export(str(out), "--format", "otlp", "-o", str(later)).returncode == 0
    document = orjson.loads(later.read_bytes())
    batch = {
        s["name"]: s["spanId"] for r in document["resourceSpans"] for x in r["scopeSpans"] for s in x["spans"]
    }
    assert {name: span for name, span, _ in live} == batch


def test_a_refused_collector_costs_the_relay_nothing(tmp_path: Path) -> None:
    """Nothing listens: every answer comes, the transcript is whole, exit 0, one stderr line at the
    end counting the dropped spans."""
    out = tmp_path / "live.jsonl"
    with refused_port() as port:
        proc, latencies = session(f"http://127.0.0.1:{port}", out)
        code, stderr = finish(proc)
    assert code == 0
    lines = [line for line in stderr.splitlines() if line.startswith("mcptape: live export")]
    said = f"mcptape: live export to http://127.0.0.1:{port}/v1/traces: 0 span(s) sent, 4 dropped"
    assert lines == [f"{said} (Connection refused)"], stderr
    assert max(latencies[1:]) < 1.0  # (the first waits for the server to start)
    assert out.read_bytes().count(b'"ch":"out"') == 3 and b'"ch":"exit"' in out.read_bytes()


def test_a_collector_that_never_answers_does_not_hold_the_recording(tmp_path: Path) -> None:
    """A socket that accepts and says nothing: the answers come at once, and the recorder ends
    within the exporter's flush window (and the 2 s it is given after it) of the time the same
    session takes to end when the collector refuses at once, saying what it dropped."""
    out = tmp_path / "live.jsonl"
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        proc, latencies = session(f"http://127.0.0.1:{silent.getsockname()[1]}", out)
        started = time.monotonic()
        code, stderr = finish(proc)
        ended = time.monotonic() - started
    # the end of the same session with nothing to wait for, on this machine at this load: a busy
    # machine slows both ends (the exporter runs at nice 10), the collector only the silent one's
    with refused_port() as port:
        proc, _ = session(f"http://127.0.0.1:{port}", tmp_path / "refused.jsonl")
        started = time.monotonic()
        assert finish(proc)[0] == 0
        reference = time.monotonic() - started
    assert code == 0 and max(latencies[1:]) < 1.0
    assert ended < reference + FLUSH_WITHIN + 2 + 1.0, (ended, reference)
    assert stderr.count("mcptape: live export to") == 1 and "dropped" in stderr, stderr


def test_an_http_recording_is_exported_live_too(tmp_path: Path) -> None:
    """`record --http-upstream ... --otlp URL`: the SDK client's calls reach the collector on `tcp`
    with their exchange, and with the ids a later export of the transcript gives."""
    out = tmp_path / "http.jsonl"
    port = free_port()
    with listener() as collector:
        with recording(f"http://127.0.0.1:{port}/mcp", out, sdk_server(port), "--otlp", collector.url) as rec:
            drive(rec.url)
            rec.stop()  # the server's own exit code on SIGINT
        assert "live export" not in rec.stderr, rec.stderr
        bodies = [r[2] for r in collector.requests]
    spans = [
        span
        for body in bodies
        for resource in ExportTraceServiceRequest.FromString(body).resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    calls = [s for s in spans if s.name == "tools/call add"]
    assert len(calls) == 2  # the modern session's and the handshake session's
    for span in calls:
        attributes = {a.key: a.value for a in span.attributes}
        assert attributes["network.transport"].string_value == "tcp"
        assert attributes["mcptape.http.exchange"].int_value > 0
    later = tmp_path / "later.json"
    assert export(str(out), "--format", "otlp", "-o", str(later)).returncode == 0
    batch = {
        s["spanId"]
        for r in orjson.loads(later.read_bytes())["resourceSpans"]
        for x in r["scopeSpans"]
        for s in x["spans"]
    }
    assert {s.span_id.hex() for s in spans} <= batch

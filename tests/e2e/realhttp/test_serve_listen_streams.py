"""`mcptape serve FILE --listen` (a real process) beyond request and answer: the GET stream, resuming
a stream with `Last-Event-ID`, ending a session with `DELETE`; the official SDK client (handshake
revision) through `record --http-upstream` sees a GET stream and ends its session, and `check`
finds nothing in what serve sent."""

from __future__ import annotations

import http.client
import signal
from pathlib import Path

import anyio
import orjson
import pytest

from mcptape.check.analyze import analyze_file
from tests.conftest import console_script
from tests.recorder.http.helpers import free_port, recording
from tests.replay.http.helpers import Tape, notes_session
from tests.serve.helpers import listening

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@pytest.fixture
def legacy(legacy_tape: Tape) -> Tape:
    """The SDK client's legacy session with notes_http.py (tests/replay/http/recordings.py: recorded
    once per run, shared with the replay and serve tests; read it, never modify it)."""
    return legacy_tape


def _connect(url: str) -> http.client.HTTPConnection:
    host, _, port = url.split("/")[2].partition(":")
    return http.client.HTTPConnection(host, int(port), timeout=10)


def _initialize(url: str, tape: Tape) -> str:
    """The recorded initialize, sent again: the session id serve assigned."""
    recorded = next(
        orjson.loads(line)["data"]
        for line in tape.path.read_bytes().splitlines()[1:]
        if b'"ch":"in"' in line and b"initialize" in line
    )
    conn = _connect(url)
    conn.request("POST", "/mcp", recorded.encode(), HEADERS)
    response = conn.getresponse()
    response.read()
    conn.close()
    assert response.status == 200
    return response.getheader("mcp-session-id") or ""


def _events(body: bytes) -> list[tuple[str, dict[str, object]]]:
    """(id, message) of each SSE event of a body."""
    found = []
    for block in body.split(b"\r\n\r\n"):
        fields = dict(line.split(b": ", 1) for line in block.split(b"\r\n") if b": " in line)
        if b"data" in fields:
            found.append((fields.get(b"id", b"").decode(), orjson.loads(fields[b"data"])))
    return found


def test_the_sdk_client_opens_the_get_stream_and_deletes_its_session(legacy: Tape, tmp_path: Path) -> None:
    """Through `record --http-upstream`: the SDK's GET is answered 200 text/event-stream (not 405),
    its DELETE 200; the client gets the recorded answers; `check` finds nothing."""
    port = free_port()
    out = tmp_path / "served.jsonl"
    serve = [console_script(), "serve", str(legacy.path), "--listen", f"127.0.0.1:{port}"]
    with recording(f"http://127.0.0.1:{port}/mcp", out, serve) as rec:
        seen = anyio.run(notes_session, rec.url, "legacy")
        rec.stop(signal.SIGTERM)
    assert seen == legacy.seen
    heads = [
        orjson.loads(line)["data"].split("\r\n")[0]
        for line in out.read_bytes().splitlines()[1:]
        if b'"ch":"http-in"' in line and (b'"data":"GET ' in line or b'"data":"DELETE ' in line)
    ]
    answers = {
        orjson.loads(line)["x"]: orjson.loads(line)["data"].split("\r\n")[0]
        for line in out.read_bytes().splitlines()[1:]
        if b'"ch":"http-out"' in line and b'"data":"HTTP/1.1 ' in line
    }
    assert any(h.startswith("GET ") for h in heads) and any(h.startswith("DELETE ") for h in heads)
    assert all(status in ("HTTP/1.1 200 OK", "HTTP/1.1 202 Accepted") for status in answers.values())
    _, analysis = analyze_file(str(out))
    assert analysis.findings == []


def test_last_event_id_resumes_a_stream_the_client_lost(legacy: Tape, tmp_path: Path) -> None:
    """delete asks the user first: the client reads that request (event s-0) and drops the stream,
    answers the question in a POST of its own, then a GET with `Last-Event-ID: s-0` brings the
    call's answer (event s-1) and ends."""
    call = {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "tools/call",
        "params": {"name": "delete", "arguments": {"name": "notes.txt"}},
    }
    with listening(legacy.path, tmp_path) as (url, _, _):
        session = _initialize(url, legacy)
        headers = {**HEADERS, "mcp-session-id": session}
        conn = _connect(url)
        conn.request("POST", "/mcp", orjson.dumps(call), headers)
        response = conn.getresponse()
        assert response.getheader("content-type") == "text/event-stream"
        first = b""
        while b"\r\n\r\n" not in first:
            first += response.read1(65536)
        conn.close()  # the stream is lost after its first event
        [(event_id, question)] = _events(first)
        assert question["method"] == "elicitation/create"
        answer = {
            "jsonrpc": "2.0",
            "id": question["id"],
            "result": {"action": "accept", "content": {"ok": True}},
        }
        posted = _connect(url)
        posted.request("POST", "/mcp", orjson.dumps(answer), headers)
        assert posted.getresponse().status == 202
        posted.close()
        resumed = _connect(url)
        resumed.request(
            "GET", "/mcp", headers={**headers, "accept": "text/event-stream", "last-event-id": event_id}
        )
        got = resumed.getresponse()
        body = got.read()
        resumed.close()
    sid, n = event_id.split("-")
    [(next_id, result)] = _events(body)
    assert got.status == 200 and next_id == f"{sid}-{int(n) + 1}"
    assert result["id"] == 8 and "deleted notes.txt" in orjson.dumps(result).decode()


def test_delete_ends_the_session_and_its_id_is_refused_after(legacy: Tape, tmp_path: Path) -> None:
    """The GET stream opens (200 text/event-stream), a second GET meanwhile gets 409; DELETE with the
    assigned id: 200, and the open GET stream ends; then a request carrying the id: 404; an
    unknown Last-Event-ID: 400."""
    with listening(legacy.path, tmp_path) as (url, _, _):
        session = _initialize(url, legacy)
        stream = _connect(url)
        stream.request("GET", "/mcp", headers={"accept": "text/event-stream", "mcp-session-id": session})
        opened = stream.getresponse()
        other = _connect(url)
        other.request("GET", "/mcp", headers={"accept": "text/event-stream", "mcp-session-id": session})
        second = other.getresponse()
        second.read()
        other.close()
        conn = _connect(url)
        conn.request("DELETE", "/mcp", headers={"mcp-session-id": session})
        deleted = conn.getresponse()
        deleted.read()
        rest = opened.read()  # returns once the stream ended
        stream.close()
        conn.request(
            "POST",
            "/mcp",
            b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
            {**HEADERS, "mcp-session-id": session},
        )
        after = conn.getresponse()
        after.read()
        conn.request("GET", "/mcp", headers={"accept": "text/event-stream", "last-event-id": "99-0"})
        unknown = conn.getresponse()
        unknown.read()
        conn.close()
    assert (opened.status, opened.getheader("content-type"), rest) == (200, "text/event-stream", b"")
    assert (second.status, deleted.status, after.status, unknown.status) == (409, 200, 404, 400)

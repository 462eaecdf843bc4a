"""`mcptape serve FILE --listen HOST:PORT` (a real process): the recorded server for a client over
Streamable HTTP. The official SDK client gets the recorded answers (the 2026-07-28 session, answered
with JSON as recorded; the handshake one with its session id, its elicitation request and SSE
streams, as recorded); a notification gets 202, GET 405; an unrecorded request the serve error."""

from __future__ import annotations

import http.client
import re
import signal
from pathlib import Path

import anyio
import orjson
import pytest

from mcptape.check.analyze import analyze_file
from mcptape.replay.api import diff_files
from tests.conftest import console_script
from tests.recorder.http.helpers import free_port, recording
from tests.replay.http.helpers import Tape, mcptape, notes_session
from tests.serve.helpers import listening

pytestmark = pytest.mark.slow


def _post(url: str, body: object, session: str | None = None) -> tuple[int, str, bytes]:
    """One POST as a client sends it: the status, the content type and the body."""
    host, _, port = url.split("/")[2].partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session is not None:
        headers["mcp-session-id"] = session
    conn.request("POST", "/mcp", orjson.dumps(body), headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, response.getheader("content-type") or "", data


def test_the_sdk_client_gets_the_recorded_answers(tape: Tape, tmp_path: Path) -> None:
    """The same results as the recorded server gave (the recorded handle too); SIGTERM ends the
    session: exit 0 and the summary, every recorded request served."""
    with listening(tape.path, tmp_path) as (url, proc, err):
        seen = anyio.run(notes_session, url, "auto" if "auto" in tape.path.name else "legacy")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    assert seen == tape.seen
    summary = err.read_text().strip().splitlines()[-1]
    assert re.fullmatch(
        r"mcptape serve: (\d+) served, 0 unmatched, 0 unused of \1 recorded request\(s\)", summary
    )


def test_a_request_is_answered_as_recorded_json_or_sse(tape: Tape, tmp_path: Path) -> None:
    """The recorded greet was answered with JSON (2026-07-28) or an SSE stream (the handshake
    revision): so is the served one, under the client's id."""
    call = {
        "jsonrpc": "2.0",
        "id": 77,
        "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "Ada"}},
    }
    with listening(tape.path, tmp_path) as (url, _, _):
        status, media, body = _post(url, call)
    assert status == 200
    if "auto" in tape.path.name:
        assert media == "application/json"
        answer = orjson.loads(body)
    else:
        assert media == "text/event-stream"
        [data] = [line[6:] for line in body.split(b"\r\n") if line.startswith(b"data: ")]
        answer = orjson.loads(data)
    assert answer["id"] == 77 and answer["result"]["content"][0]["text"] == "Hello, Ada!"


def test_a_notification_is_accepted_and_get_is_not_allowed(auto_tape: Tape, tmp_path: Path) -> None:
    """202 with no body for a notification; 405 for a GET (no standalone stream)."""
    with listening(auto_tape.path, tmp_path) as (url, _, _):
        status, _, body = _post(url, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        host, _, port = url.split("/")[2].partition(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", "/mcp", headers={"accept": "text/event-stream"})
        got = conn.getresponse()
        got.read()
        conn.close()
    assert (status, body) == (202, b"")
    assert got.status == 405 and got.getheader("allow") == "POST"


def test_an_unrecorded_request_gets_the_serve_error(auto_tape: Tape, tmp_path: Path) -> None:
    """greet Bob was never recorded: JSON-RPC error -32001 under the client's id, a line on stderr
    naming the nearest recorded request, and exit 1."""
    call = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "Bob"}},
    }
    with listening(auto_tape.path, tmp_path) as (url, proc, err):
        status, _, body = _post(url, call)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 1
    answer = orjson.loads(body)
    assert status == 200 and answer["id"] == 5 and answer["error"]["code"] == -32001
    assert "no recorded answer for tools/call greet" in err.read_text()


def test_a_session_id_is_assigned_when_the_recording_had_one(legacy_tape: Tape, tmp_path: Path) -> None:
    """The handshake recording's server assigned an Mcp-Session-Id: the served initialize answer
    carries a new one."""
    recorded = next(
        orjson.loads(line)["data"]
        for line in legacy_tape.path.read_bytes().splitlines()[1:]
        if b'"ch":"in"' in line and b"initialize" in line
    )
    with listening(legacy_tape.path, tmp_path) as (url, _, _):
        host, _, port = url.split("/")[2].partition(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request(
            "POST",
            "/mcp",
            recorded.encode(),
            {"content-type": "application/json", "accept": "application/json, text/event-stream"},
        )
        response = conn.getresponse()
        response.read()
        conn.close()
    assert response.status == 200 and re.fullmatch(
        r"[0-9a-f]{32}", response.getheader("mcp-session-id") or ""
    )


def test_bad_listen_options_are_refused(auto_tape: Tape) -> None:
    """An address that is not HOST:PORT, and --inject (stdio cases): exit 2, one line."""
    bad = mcptape("serve", str(auto_tape.path), "--listen", "nowhere:port")
    assert bad.returncode == 2 and "is not HOST:PORT" in bad.stderr
    inject = mcptape("serve", str(auto_tape.path), "--listen", "0", "--inject", "banner-same-line")
    assert inject.returncode == 2 and "--inject is for stdio clients" in inject.stderr


def test_the_served_session_recorded_through_the_proxy_is_clean_and_the_recorded_one(
    tape: Tape, tmp_path: Path
) -> None:
    """`mcptape record --http-upstream` in front of `serve --listen`, the SDK client through it: the
    transport rules find nothing in what serve sent, and every message is the recording's (only
    the exit differs: serve ends with 0 where the recorded server died of its signal)."""
    port = free_port()
    out = tmp_path / "served.jsonl"
    serve = [console_script(), "serve", str(tape.path), "--listen", f"127.0.0.1:{port}"]
    with recording(f"http://127.0.0.1:{port}/mcp", out, serve) as rec:
        seen = anyio.run(notes_session, rec.url, "auto" if "auto" in tape.path.name else "legacy")
        rec.stop(signal.SIGTERM)
    assert seen == tape.seen
    _, analysis = analyze_file(str(out))
    assert analysis.findings == []
    diff = diff_files(tape.path, out)
    assert [p for p in diff.pairs if p.differs] == [] and diff.exit_differs

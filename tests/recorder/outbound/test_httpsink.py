"""The loopback HTTP sink: every outbound attempt is an `http` event, never forwarded.

Plain HTTP gets a neutral `200` with an empty body; a `CONNECT` (HTTPS) gets `502`, since the sink
speaks no TLS for a host it does not reach. `outcome` records which: `ok` or `failed`.
"""

from __future__ import annotations

import http.server
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from mcptape.recorder.outbound import httpsink
from mcptape.recorder.outbound.httpsink import HttpSink, redact_headers, redact_target
from mcptape.recorder.outbound.sideeffects import side_effects
from tests.conftest import console_script
from tests.recorder.outbound.helpers import ListSink, call_span, call_tools, events, records, server

HTTP = server("fx_http_server")


class Canary(http.server.BaseHTTPRequestHandler):
    """A real origin server: any request that reaches it was forwarded, which must never happen."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        Canary.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def canary() -> Iterator[str]:
    """The URL of a live origin on loopback that counts the requests reaching it."""
    Canary.hits = []
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Canary)
    thread = threading.Thread(target=origin.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{origin.server_address[1]}"
    origin.shutdown()
    origin.server_close()


async def test_urllib_requests_become_http_events_plain_http_gets_200(tmp_path: Path, canary: str) -> None:
    """urllib's GET, POST and HTTPS CONNECT are recorded during their tool call; none is forwarded."""
    out = tmp_path / "t.jsonl"
    calls = [
        ("fetch_urllib", {"url": f"{canary}/live?token=hunter2&page=1"}),
        ("fetch_urllib", {"url": "http://example.invalid/deploy", "body": "x" * 1234}),
        ("fetch_urllib", {"url": "https://example.invalid/secure"}),
    ]
    texts = await call_tools(out, HTTP, calls, flags=["--http-sink"])
    assert texts == ["status 200", "status 200", "error Tunnel connection failed: 502 Bad Gateway"]
    assert Canary.hits == []
    evs = events(out)
    seen = records(evs, "http")
    assert [(r["method"], r["target"], r["reply"], r["outcome"]) for _, r in seen] == [
        ("GET", f"{canary}/live?token=REDACTED&page=1", 200, "ok"),
        ("POST", "http://example.invalid/deploy", 200, "ok"),
        ("CONNECT", "example.invalid:443", 502, "failed"),
    ]
    get, post, connect = (r for _, r in seen)
    assert ["Authorization", "<redacted>"] in get["headers"]
    assert ["X-Trace", "fx"] in get["headers"]
    assert "s3cr3t" not in out.read_text()
    assert not [e for e in evs if e.ch == "http" and b"hunter2" in e.data]
    assert (post["content_length"], post["body_size"]) == (1234, 1234)
    assert connect["form"] == "authority"
    for (name, arguments), (t, _) in zip(calls, seen, strict=True):
        _, t_request, t_response = call_span(evs, name, arguments)
        assert t_request <= t <= t_response


async def test_httpx_requests_become_http_events_https_refused(tmp_path: Path, canary: str) -> None:
    """httpx's plain request and its HTTPS tunnel are recorded and refused; none is forwarded."""
    out = tmp_path / "t.jsonl"
    calls = [
        ("fetch_httpx", {"url": f"{canary}/via-httpx"}),
        ("fetch_httpx", {"url": "https://example.invalid/"}),
    ]
    texts = await call_tools(out, HTTP, calls, flags=["--http-sink"])
    assert texts == ["status 200", "error ProxyError: 502 Bad Gateway"]
    assert Canary.hits == []
    seen = [r for _, r in records(events(out), "http")]
    assert [(r["method"], r["target"]) for r in seen] == [
        ("GET", f"{canary}/via-httpx"),
        ("CONNECT", "example.invalid:443"),
    ]
    assert ["X-Api-Key", "<redacted>"] in seen[0]["headers"]


async def test_without_the_flag_no_proxy_is_set(tmp_path: Path, canary: str) -> None:
    """Plain `record` leaves the server's network alone: the request reaches the origin, no `http` event."""
    out = tmp_path / "t.jsonl"
    texts = await call_tools(out, HTTP, [("fetch_urllib", {"url": f"{canary}/direct"})])
    assert texts == ["status 200"]
    assert Canary.hits == ["/direct"]
    assert records(events(out), "http") == []


def _exchange(sink: HttpSink, request: bytes) -> bytes:
    with socket.create_connection((sink.host, sink.port), timeout=5) as conn:
        conn.sendall(request)
        conn.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    return reply


def test_a_chunked_body_is_read_and_counted_not_forwarded() -> None:
    """A chunked POST is read to its end, its decoded size recorded, and answered 200 with no body."""
    got = ListSink()
    sink = HttpSink(got).start()
    try:
        reply = _exchange(
            sink,
            b"POST http://api.example/x HTTP/1.1\r\nHost: api.example\r\nTransfer-Encoding: chunked\r\n"
            b"Cookie: sid=1\r\n\r\n5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\n\r\n",
        )
    finally:
        sink.stop()
    assert reply.startswith(b"HTTP/1.1 200 OK\r\n")
    assert reply.endswith(b"\r\n\r\n") and b"Content-Length: 0\r\n" in reply
    [(_, ch, line)] = got.chunks
    assert ch == "http" and line.endswith(b"}\n") and line.count(b"\n") == 1
    assert b'"body_size":8' in line and b'["Cookie","<redacted>"]' in line and b"sid=1" not in line


def test_bytes_that_are_not_http_are_recorded_and_answered_400() -> None:
    """Garbage on the sink's port is an `http` event with the raw bytes and an error, answered 400."""
    got = ListSink()
    sink = HttpSink(got).start()
    try:
        reply = _exchange(sink, b"\x16\x03\x01 hello tls\r\n\r\n")
    finally:
        sink.stop()
    assert reply.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    [(_, _, line)] = got.chunks
    assert b'"error":"not an HTTP/1.x request line"' in line and b'"reply":400' in line
    assert b'"outcome":"failed"' in line


@pytest.mark.parametrize(("status", "outcome"), [(200, "ok"), (204, None), (404, "failed"), (502, "failed")])
def test_the_plain_http_answer_can_be_chosen(status: int, outcome: str | None) -> None:
    """`reply=` sets what plain HTTP gets (a status with a body); `outcome` follows it."""
    if outcome is None:
        with pytest.raises(ValueError):
            HttpSink(ListSink(), reply=status)
        return
    got = ListSink()
    sink = HttpSink(got, reply=status).start()
    try:
        reply = _exchange(sink, b"GET http://api.example/x HTTP/1.1\r\nHost: api.example\r\n\r\n")
    finally:
        sink.stop()
    assert reply.startswith(f"HTTP/1.1 {status} ".encode())
    [(_, _, line)] = got.chunks
    assert f'"reply":{status},"outcome":"{outcome}"'.encode() in line


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("http://h/p?token=abc&x=1", "http://h/p?token=REDACTED&x=1"),
        ("http://h/p?API_KEY=abc#frag", "http://h/p?API_KEY=REDACTED#frag"),
        ("http://user:pw@h:8/p", "http://user:REDACTED@h:8/p"),
        ("http://h/p?q=token", "http://h/p?q=token"),
        ("h:443", "h:443"),
        ("/origin?password=1", "/origin?password=REDACTED"),
    ],
)
def test_credentials_in_targets_are_redacted(target: str, expected: str) -> None:
    """URL passwords and credential-named query values are replaced; the rest is kept exactly."""
    assert redact_target(target) == expected


def test_credential_headers_are_redacted_and_others_kept() -> None:
    """Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key and the like lose their values."""
    names = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "X-Auth-Token"]
    kept = [("Host", "h"), ("Accept", "*/*"), ("Keep-Alive", "5")]
    result = redact_headers([(n, "secret") for n in names] + kept)
    assert result == [[n, "<redacted>"] for n in names] + [list(p) for p in kept]


def test_the_child_environment_points_every_proxy_variable_at_the_sink() -> None:
    """Both cases of HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name the sink; NO_PROXY is removed."""
    base = {"PATH": "/bin", "NO_PROXY": "*", "no_proxy": "localhost", "HTTP_PROXY": "http://corp:3128"}
    with side_effects(ListSink(), http_sink=True) as fx:
        assert fx.http is not None
        env = fx.child_env(base)
        url = fx.http.url
    assert url.startswith("http://127.0.0.1:")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        assert env[name] == env[name.lower()] == url
    assert "NO_PROXY" not in env and "no_proxy" not in env
    assert env["PATH"] == "/bin" and env["MCPTAPE_HTTP_SINK"] == url


def test_the_record_path_does_not_import_the_sink_or_the_stubs() -> None:
    """Importing the recorder loads neither module, so `record` without the flags starts as fast as before."""
    code = (
        "import sys, mcptape.recorder.run\n"
        "print(sorted(m for m in sys.modules if m.endswith(('httpsink', 'stubs', 'sideeffects'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_requests_in_flight_at_stop_are_still_recorded() -> None:
    """`stop()` waits for a connection already accepted to be recorded before returning."""
    got = ListSink()
    sink = HttpSink(got).start()
    conn = socket.create_connection((sink.host, sink.port), timeout=5)
    conn.sendall(b"GET http://late.example/ HTTP/1.1\r\nHost: late.example\r\n")
    stopper = threading.Thread(target=sink.stop)
    stopper.start()
    conn.sendall(b"\r\n")
    stopper.join(10)
    conn.close()
    assert [line for _, _, line in got.chunks if b"late.example" in line]


def test_curl_in_the_server_process_tree_goes_through_the_sink(tmp_path: Path, canary: str) -> None:
    """curl run by the server honours the variables too: both attempts are recorded and refused."""
    out = tmp_path / "t.jsonl"
    script = (
        f'curl -sS -o /dev/null -w "%{{http_code}} " {canary}/by-curl; echo rc=$?; '
        "curl -sS -o /dev/null https://example.invalid/; echo rc=$?"
    )
    done = subprocess.run(
        [console_script(), "record", "-q", "-o", str(out), "--http-sink", "--", "sh", "-c", script],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.stdout.split() == ["200", "rc=0", "rc=56"]  # 56: curl's "CONNECT tunnel failed"
    assert Canary.hits == []
    seen = [r for _, r in records(events(out), "http")]
    assert [(r["method"], r["target"]) for r in seen] == [
        ("GET", f"{canary}/by-curl"),
        ("CONNECT", "example.invalid:443"),
    ]


def test_a_request_that_stalls_mid_head_is_still_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that sends half a request and stops is recorded with what it sent once it times out."""
    monkeypatch.setattr(httpsink, "IO_TIMEOUT", 0.2)
    got = ListSink()
    sink = HttpSink(got).start()
    try:
        with socket.create_connection((sink.host, sink.port), timeout=5) as conn:
            conn.sendall(b"GET http://slow.example/ HTTP/1.1\r\nHost: slo")
            reply = conn.recv(65536)
    finally:
        sink.stop()
    assert reply.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    [(_, _, line)] = got.chunks
    record = json.loads(line)
    assert record["error"].startswith("connection lost: ")
    assert record["raw"] == "GET http://slow.example/ HTTP/1.1\r\nHost: slo"

"""An OTLP endpoint URL is attacker-controlled text like any other input: `export --endpoint` and
`record --otlp` refuse a URL http.client cannot send with one line (exit 2, before any work), never
show a password it carries, and put /v1/traces in the URL's path, not after its query."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mcptape.export.send import traces_url
from tests.commands.tapes import assert_clean_run, run, session

UNSENDABLE = {
    "open-bracket": "http://[::1",
    "brackets-reversed": "http://a]b[/",
    "escape-in-host": "http://\x1b[31mh/",
    "crlf-in-path": "http://h/\r\nX-Injected: 1",
    "port-out-of-range": "http://h:99999/",
    "port-not-a-number": "http://h:0x1/",
    "non-ascii-path": "http://h/é",
    "space-in-host": "http://h /",
}


@pytest.mark.parametrize("url", UNSENDABLE.values(), ids=UNSENDABLE.keys())
def test_export_to_an_endpoint_http_cannot_send_to_is_one_error_line(tmp_path: Path, url: str) -> None:
    """A URL urlsplit or http.client would raise on is a usage error, told in one escaped line."""
    tape = session(tmp_path / "s.jsonl", {"content": []})
    result = run("export", str(tape), "--format", "otlp", "--endpoint", url, "--timeout", "0.1")
    assert_clean_run(result, codes=[2])
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: --endpoint ")


@pytest.mark.parametrize("url", UNSENDABLE.values(), ids=UNSENDABLE.keys())
def test_record_otlp_to_an_endpoint_http_cannot_send_to_is_one_error_line(tmp_path: Path, url: str) -> None:
    """record --otlp refuses the same URLs before the server starts, naming its own option."""
    result = run("record", "-q", "-o", str(tmp_path / "r.jsonl"), "--otlp", url, "--", "true")
    assert_clean_run(result, codes=[2])
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: --otlp ")
    assert not (tmp_path / "r.jsonl").exists()


def test_an_endpoint_with_a_password_is_refused_without_showing_it(tmp_path: Path) -> None:
    """http.client does not send a URL's user:password (it looked the whole user:pw@host up as a host
    name); the error line names the problem and masks the credentials."""
    tape = session(tmp_path / "s.jsonl", {"content": []})
    result = run("export", str(tape), "--format", "otlp", "--endpoint", "http://me:S3cretPw@127.0.0.1:1/")
    assert_clean_run(result, codes=[2])
    assert "S3cretPw" not in result.stderr and "user name or password" in result.stderr
    assert "http://***@127.0.0.1:1/" in result.stderr


def test_the_traces_path_goes_into_the_path_of_an_endpoint_with_a_query() -> None:
    """/v1/traces is appended to the path, not after a query string."""
    assert traces_url("http://h:4318/base/?tenant=a") == "http://h:4318/base/v1/traces?tenant=a"
    assert traces_url("http://[::1]:4318") == "http://[::1]:4318/v1/traces"
    assert traces_url("http://h:4318/v1/traces") == "http://h:4318/v1/traces"


@contextmanager
def collector(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    """A collector on a loopback port that reads each request's first bytes and gives `answer`."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(1 << 16)
                try:
                    answer(conn)
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


def not_http(conn: socket.socket) -> None:
    conn.sendall(b"\x00\x1b[2Jgarbage\r\n\r\n")


def endless_body(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
    for _ in range(20000):  # 1.3 GB if read whole; the client closes long before
        conn.sendall(b"10000\r\n" + b"x" * 0x10000 + b"\r\n")


def test_a_collector_answering_what_is_not_http_is_one_error_line(tmp_path: Path) -> None:
    """A status line http.client refuses (BadStatusLine) is a failed send (exit 1), said in one
    line without the collector's bytes, not a traceback."""
    tape = session(tmp_path / "s.jsonl", {"content": []})
    with collector(not_http) as url:
        result = run("export", str(tape), "--format", "otlp", "--endpoint", url, "--timeout", "2")
    assert_clean_run(result, codes=[1])
    assert result.stderr.count("\n") == 1 and "the answer is not HTTP (BadStatusLine)" in result.stderr


def test_a_collector_answering_without_end_does_not_hold_the_export(tmp_path: Path) -> None:
    """The answer's status is what counts: a body without end is not read (it was read whole: 8 GB
    of memory in 20 s, and no end)."""
    tape = session(tmp_path / "s.jsonl", {"content": []})
    with collector(endless_body) as url:
        started = time.monotonic()
        result = run("export", str(tape), "--format", "otlp", "--endpoint", url, "--timeout", "2")
    assert_clean_run(result, codes=[0])
    assert time.monotonic() - started < 10 and "mcptape: sent 2 span(s)" in result.stderr

"""A remote upstream gets its own name in `Host` (recorder/http/hostrewrite.py); a loopback one gets the
bytes unchanged; the transcript keeps what the client sent."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx
import pytest

from mcptape.recorder.http.hostrewrite import HostRewriter
from tests.recorder.http.helpers import Relay, exchanges, free_port, recording, sdk_server, wait_accepting

REQUEST = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:5000\r\nContent-Length: 5\r\n\r\nhello"
CHUNKED = (
    b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:5000\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nworld\r\n0\r\n\r\n"
)


@pytest.mark.parametrize("size", [1, 2, 7, 1000])
def test_every_head_gets_the_upstream_name_and_nothing_else_changes(size: int) -> None:
    """Two pipelined requests (one chunked) in reads of any size: only the Host lines change."""
    rewriter = HostRewriter("mcp.example.com")
    data = REQUEST + CHUNKED
    out = b"".join(rewriter.feed(data[i : i + size]) for i in range(0, len(data), size)) + rewriter.flush()
    assert out == (REQUEST + CHUNKED).replace(b"Host: 127.0.0.1:5000", b"Host: mcp.example.com").replace(
        b"host: 127.0.0.1:5000", b"host: mcp.example.com"
    )


def test_bytes_that_are_not_http_pass_unchanged() -> None:
    rewriter = HostRewriter("mcp.example.com")
    assert (
        rewriter.feed(b"NOT HTTP AT ALL\r\n\r\n") + rewriter.feed(b"more") == b"NOT HTTP AT ALL\r\n\r\nmore"
    )


def test_a_remote_upstream_sees_its_own_name_and_the_transcript_the_clients(tmp_path: Path) -> None:
    """Upstream `0.0.0.0:PORT` (not loopback by name, reached locally): the server's socket got
    `Host: 0.0.0.0:PORT`; the transcript has the Host the client sent (mcptape's address)."""
    port = free_port()
    server = subprocess.Popen(sdk_server(port), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_accepting(port)
        behind = Relay(port)
        out = tmp_path / "remote.jsonl"
        with recording(f"http://0.0.0.0:{behind.port}/mcp", out) as rec:
            httpx.post(rec.url, content=b"{}", headers={"content-type": "application/json"}, timeout=10)
            time.sleep(0.1)
            rec.stop()
        behind.close()
    finally:
        server.terminate()
        server.wait()
    seen = b"".join(bytes(c.up) for c in behind.captures)
    assert f"Host: 0.0.0.0:{behind.port}\r\n".encode() in seen
    listen = rec.url.split("/")[2]
    assert f"host: {listen}\r\n".encode() in exchanges(out, "http-in")[1].lower()

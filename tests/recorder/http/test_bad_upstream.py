"""Must show: an upstream that refuses connections, closes without answering, resets mid-stream or
answers garbage. The client gets what the upstream did (or a 502 when there was nothing), the
transcript keeps what came, and stderr has one clear line for it."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import orjson
import pytest

from tests.recorder.http.helpers import exchanges, free_port, recording, records, refused_port
from tests.recorder.http.upstreams import (
    CALL,
    HEADERS,
    planted,
)

pytestmark = pytest.mark.slow


def _post(url: str) -> httpx.Response:
    return httpx.post(url, content=orjson.dumps(CALL), headers=HEADERS, timeout=10)


def _mcptape_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("mcptape: exchange")]


def test_an_upstream_that_refuses_connections_gets_the_client_a_502(tmp_path: Path) -> None:
    """Nothing listens upstream: each request gets mcptape's 502 (saying why), both requests and both
    502s are in the transcript, and stderr says it once."""
    out = tmp_path / "refused.jsonl"
    with refused_port() as port, recording(f"http://127.0.0.1:{port}/mcp", out) as rec:
        answers = [_post(rec.url), _post(rec.url)]
        assert rec.stop() == 0
    assert [a.status_code for a in answers] == [502, 502]
    assert answers[0].headers["x-mcptape"] == "upstream" and "cannot connect" in answers[0].text
    requests, responses = exchanges(out, "http-in"), exchanges(out, "http-out")
    assert sorted(requests) == sorted(responses) == [1, 2]
    assert all(orjson.dumps(CALL) in raw for raw in requests.values())
    assert all(raw.startswith(b"HTTP/1.1 502 Bad Gateway\r\n") for raw in responses.values())
    lines = _mcptape_lines(rec.stderr)
    assert len(lines) == 1 and "cannot connect to 127.0.0.1:" in lines[0] and "502" in lines[0]


def test_an_upstream_that_closes_without_answering_gets_the_client_a_502(tmp_path: Path) -> None:
    """The upstream reads the request and closes: the client gets 502, the transcript has the request,
    the 502 and a note."""
    port = free_port()
    out = tmp_path / "closed.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", out, planted(port, "close-early")) as rec:
        answer = _post(rec.url)
        rec.stop()
    assert answer.status_code == 502 and "closed the connection before answering" in answer.text
    notes = [r["msg"] for r in records(out) if r["ch"] == "note"]
    assert any("closed the connection before answering" in note for note in notes)
    assert len(_mcptape_lines(rec.stderr)) == 1


def test_an_upstream_that_resets_mid_stream_resets_the_client_too(tmp_path: Path) -> None:
    """The upstream sends the head and one SSE event, then a TCP reset: the client gets them, then the
    reset; the transcript keeps both, and stderr says so once."""
    port = free_port()
    out = tmp_path / "reset.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", out, planted(port, "reset")) as rec:
        seen = bytearray()
        with (
            pytest.raises(httpx.TransportError),
            httpx.stream(
                "POST", rec.url, content=orjson.dumps(CALL), headers=HEADERS, timeout=10
            ) as response,
        ):
            assert response.status_code == 200
            for chunk in response.iter_raw():
                seen += chunk
        rec.stop()
    assert b"notifications/message" in seen
    raw = exchanges(out, "http-out")[1]
    assert raw.startswith(b"HTTP/1.1 200 OK\r\n") and raw.endswith(b"\n\n") and bytes(seen) in raw
    lines = _mcptape_lines(rec.stderr)
    assert len(lines) == 1 and "reset the connection" in lines[0]
    carried = [r for r in records(out) if r["ch"] == "out"]
    assert len(carried) == 1 and "notifications/message" in carried[0]["data"]


def test_an_upstream_that_answers_garbage_passes_it_on(tmp_path: Path) -> None:
    """Bytes that are not HTTP reach the client as they came (its HTTP library refuses them), are kept
    on http-out, and stderr names the exchange once."""
    port = free_port()
    out = tmp_path / "garbage.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", out, planted(port, "garbage")) as rec:
        with pytest.raises(httpx.RemoteProtocolError):
            _post(rec.url)
        rec.stop()
    assert exchanges(out, "http-out")[1] == b"this is not HTTP at all\r\n\r\n"
    lines = _mcptape_lines(rec.stderr)
    assert len(lines) == 1 and "exchange 1: the server answered what is not HTTP/1.1" in lines[0]


def test_listen_without_http_upstream_is_refused(tmp_path: Path) -> None:
    """`--listen` alone (fast path and click alike): one line, exit 2, nothing started or written."""
    import subprocess

    from tests.conftest import console_script

    for args in (["--listen", "127.0.0.1:0", "--", "true"], ["--listen", "1", "--quiet", "--", "true"]):
        done = subprocess.run(
            [console_script(), "record", "-o", str(tmp_path / "t.jsonl"), *args],
            capture_output=True,
            text=True,
        )
        assert (
            done.returncode == 2
            and done.stderr == "Error: --listen is for --http-upstream (add --http-upstream URL)\n"
        )
    assert not (tmp_path / "t.jsonl").exists()


def test_sse_events_reach_the_client_as_they_come(tmp_path: Path) -> None:
    """An event the server sends a second before the end of its stream reaches the client at once
    through the proxy (no buffering), and the transcript times each event as it came."""
    port = free_port()
    out = tmp_path / "slow.jsonl"
    with recording(f"http://127.0.0.1:{port}/mcp", out, planted(port, "slow-sse")) as rec:
        start = time.monotonic()
        arrivals = []
        with httpx.stream(
            "POST", rec.url, content=orjson.dumps(CALL), headers=HEADERS, timeout=10
        ) as response:
            for line in response.iter_lines():
                if line.startswith("data:"):
                    arrivals.append(time.monotonic() - start)
        rec.stop()
    assert len(arrivals) == 2 and arrivals[0] < 0.5 <= 0.9 < arrivals[1]
    times = [r["t"] for r in records(out) if r["ch"] == "out"]
    assert len(times) == 2 and times[1] - times[0] > 0.9

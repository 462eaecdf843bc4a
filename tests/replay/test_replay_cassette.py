"""Replays of recorded cassettes through `mcptape record` and `mcptape replay`, as a user runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.replay.api import replay
from mcptape.transcript import open_transcript
from tests.conftest import SERVERS, console_script
from tests.recorder.outbound.origins import Tripwire, headers_route, origin

pytestmark = pytest.mark.slow

FETCHER = [sys.executable, str(SERVERS / "fetcher.py")]


def client_bytes(urls: list[str]) -> list[bytes]:
    """A legacy handshake, then one `get` call per URL."""
    messages: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for n, url in enumerate(urls, start=2):
        messages.append(
            {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "get", "arguments": {"url": url}},
            }
        )
    return [orjson.dumps(m) + b"\n" for m in messages]


def record(tape: Path, urls: list[str], *options: str) -> list[dict[str, Any]]:
    """Record the fetcher under `mcptape record OPTIONS`; return its tool results."""
    argv = [console_script(), "record", "-q", "-o", str(tape), *options, "--", *FETCHER]
    results = []
    with subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for line in client_bytes(urls):
            proc.stdin.write(line)
            proc.stdin.flush()
            if b'"id"' in line:
                answer = orjson.loads(proc.stdout.readline())
                results.append(answer.get("result", answer.get("error")))
        proc.stdin.close()
        assert proc.wait(30) == 0
    return results


def http_lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(e.data) for e in open_transcript(path).events() if e.ch == "http"]


def test_a_build_that_asks_for_another_url_gets_a_502_and_the_replay_says_so(tmp_path: Path) -> None:
    """The recorded build fetched /page; a build fetching /page?v=2 finds no recorded answer: 502,
    an unmatched-http note naming the request, `different`, and no connection to the origin's port."""
    tape = tmp_path / "get.jsonl"
    with origin() as plain:
        url = f"{plain.url}/page"
        [_, result] = record(tape, [url], "--http-cassette")
        port = plain.port
    assert result["content"][0]["text"].startswith("200 <html>")
    wire = Tripwire([port])
    try:
        same = replay(tape, FETCHER, config=False)
        changed = replay(tape, [*FETCHER, "--append", "?v=2"], config=False)
    finally:
        hits = wire.close()
    assert same.same, same.render()
    assert hits == 0
    assert not changed.same
    [issue] = [i for i in changed.issues if i.kind == "unmatched-http"]
    assert issue.message.startswith(f"GET {url}?v=2: no recorded response (matching on method,url,body)")
    assert not issue.error
    text = changed.render()
    assert "unmatched-http" in text or f"{url}?v=2" in text


def test_replay_http_match_relaxes_the_matcher(tmp_path: Path) -> None:
    """`mcptape replay --http-match method,path` serves the recording to the build that adds a query;
    the diff still shows the changed URL and the tool's unchanged answer."""
    tape = tmp_path / "get.jsonl"
    with origin() as plain:
        record(tape, [f"{plain.url}/page"], "--http-cassette")
    argv = [console_script(), "replay", str(tape), "--json", "--http-match", "method,path", "--"]
    done = subprocess.run([*argv, *FETCHER, "--append", "?v=2"], capture_output=True, timeout=60)
    report = orjson.loads(done.stdout)
    assert done.returncode == 1, done.stderr.decode()
    assert not [i for i in report["issues"] if i["kind"] == "unmatched-http"]
    assert "?v=2" in done.stdout.decode()


def test_record_redact_redacts_the_cassette_bodies(tmp_path: Path) -> None:
    """`record --redact --http-cassette`: a token in a response body is replaced in the transcript
    (the server itself got the real body)."""
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    route = headers_route(200, [("Content-Type", "application/json")], orjson.dumps({"access_token": token}))
    tape = tmp_path / "secret.jsonl"
    with origin(routes={"/token": route}) as plain:
        [_, result] = record(tape, [f"{plain.url}/token"], "--http-cassette", "--redact")
    assert token in result["content"][0]["text"]
    [line] = http_lines(tape)
    assert token not in tape.read_text()
    assert "[redacted:" in line["response"]["body"]


def test_mcptape_redact_redacts_a_recorded_cassette(tmp_path: Path) -> None:
    """`mcptape redact` replaces a secret in a cassette's request and response bodies."""
    secret = "s3cr3t-" + "x" * 24
    route = headers_route(200, [("Content-Type", "text/plain")], f"password={secret}".encode())
    tape, shared = tmp_path / "raw.jsonl", tmp_path / "shared.jsonl"
    with origin(routes={"/login": route}) as plain:
        record(tape, [f"{plain.url}/login"], "--http-cassette")
    assert secret in tape.read_text()
    done = subprocess.run([console_script(), "redact", str(tape), "-o", str(shared)], capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    assert secret not in shared.read_text()
    assert "[redacted:" in http_lines(shared)[0]["response"]["body"]

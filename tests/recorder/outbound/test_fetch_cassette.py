"""The issue's must-show: mcp-server-fetch recorded with --http-cassette against local HTTP and HTTPS
origins, replayed `same` after the origins are gone, with no connection leaving the machine."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from mcptape.replay.api import replay
from mcptape.transcript import open_transcript
from tests.clients import Script, sdk_session
from tests.conftest import console_script
from tests.recorder.outbound.origins import Tripwire, make_origin_ca, origin

pytestmark = pytest.mark.slow

FETCH = [str(Path(sys.executable).parent / "mcp-server-fetch"), "--allow-private-ips"]
# readabilipy (the fetch server's HTML extractor) runs `npm install` in its own package folder on
# every call when `node` is on PATH: `--stub node` keeps that off the network and out of the venv,
# and makes it use its pure-Python extractor, in the recording and in the replay alike.
STUB_NODE = ["--stub", "node"]


def http_lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(e.data) for e in open_transcript(path).events() if e.ch == "http"]


def fetch_each(urls: list[str]) -> Script:
    """A client script calling the fetch tool on each URL: {url: (is_error, texts)}."""

    async def script(client: Client) -> dict[str, Any]:
        texts = {}
        for url in urls:
            result = await client.call_tool("fetch", {"url": url})
            texts[url] = (result.is_error, [c.text for c in result.content if c.type == "text"])
        return texts

    return script


def record_fetch(tape: Path, ca_file: Path, urls: list[str]) -> dict[str, Any]:
    """Run the SDK client against mcp-server-fetch under `mcptape record --http-cassette-ca`."""
    record = [console_script(), "record", "-q", "-o", str(tape), *STUB_NODE]
    command = [*record, "--http-cassette-ca", str(ca_file), "--", *FETCH]
    return sdk_session(command, script=fetch_each(urls)).results


def test_fetch_over_http_and_https_replays_same_from_the_cassette_with_the_origins_stopped(
    tmp_path: Path,
) -> None:
    """Recorded through the cassette (robots.txt and the page, per origin), the session replays `same`
    once both origins are stopped; listeners bound on their ports see no connection."""
    ca = make_origin_ca(tmp_path)
    tape = tmp_path / "fetch.jsonl"
    with origin() as plain, origin(tls=ca) as secure:
        urls = [f"{plain.url}/page", f"{secure.url}/secure"]
        results = record_fetch(tape, ca.ca_file, urls)
        assert [p for _, p, _ in plain.seen] == ["/robots.txt", "/page"]
        assert [p for _, p, _ in secure.seen] == ["/robots.txt", "/secure"]
    assert results[urls[0]][0] is False and "Recorded once" in results[urls[0]][1][0]
    assert results[urls[1]][0] is False and "Over TLS" in results[urls[1]][1][0]
    lines = http_lines(tape)
    assert [(x["method"], x["url"], x["response"]["status"]) for x in lines] == [
        ("GET", f"{plain.url}/robots.txt", 200),
        ("GET", f"{plain.url}/page", 200),
        ("GET", f"{secure.url}/robots.txt", 200),
        ("GET", f"{secure.url}/secure", 200),
    ]
    assert "Recorded once" in lines[1]["response"]["body"]
    assert [x.get("tunnel") for x in lines] == [None, None, *[f"127.0.0.1:{secure.port}"] * 2]
    assert open_transcript(tape).header.extra["side_effects"]["http_cassette"].startswith("http://127.0.0.1:")

    wire = Tripwire([plain.port, secure.port])  # the origins' ports, now answered by a counter only
    new = tmp_path / "again.jsonl"
    try:
        # the exit is compared too: wait for mcp-server-fetch's own (code 0, as recorded) up to 30 s,
        # not the default 2 s a busy machine exceeds (a deadline: the replay goes on when it exits)
        result = replay(tape, FETCH, output=new, config=False, stubs=["node"], shutdown_timeout=30)
    finally:
        hits = wire.close()
    assert result.same, result.render()
    assert hits == 0
    assert not [i for i in result.issues if i.kind == "unmatched-http"]
    assert http_lines(new) == lines  # every request served from the cassette, answers byte-identical

"""Must show: correct traffic recorded from real peers checks clean under the rules that judge request
ids, capabilities, structured results and progress (each case a recording under tests/check/realdata/
that once drew a false finding)."""

from __future__ import annotations

from pathlib import Path

import orjson

from mcptape.check.analyze import analyze_file

DATA = Path(__file__).parent / "realdata"


def _rules(name: str) -> list[str]:
    _, analysis = analyze_file(str(DATA / name))
    return [f.rule for f in analysis.findings]


def test_concurrent_clients_of_a_stateless_http_server_may_share_ids() -> None:
    """Three SDK clients of a stateless server (no Mcp-Session-Id) at once each number their ids from
    1: an id two of them have in flight together is no duplicate-id (nothing tells whose it is)."""
    ids: list[object] = []
    for line in (DATA / "sweep-http-stateless-concurrent-clients.tape").read_bytes().splitlines():
        event = orjson.loads(line)
        if event.get("ch") == "in" and '"method":"tools/call"' in str(event.get("data", "")):
            ids.append(orjson.loads(event["data"])["id"])
    assert len(ids) > len(set(ids))  # the clients did send the same ids
    assert _rules("sweep-http-stateless-concurrent-clients.tape") == []

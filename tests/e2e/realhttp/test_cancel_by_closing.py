"""Must show: on 2026-07-28 a client cancels a call by closing its connection ("Closing the SSE
response stream MUST be treated by the server as cancellation of that request", streamable-http,
Cancellation). The official SDK client does so when a call is abandoned: the recording says so,
mcptape makes up no answer for the client that left, and `check` does not call the request
unanswered."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import orjson
from mcp import Client

from mcptape.check.analyze import analyze_file
from tests.e2e.realhttp.helpers import record_sweep, verdicts
from tests.recorder.http.helpers import exchanges, records

BAD_GATEWAY = re.compile(r"(?<![0-9])502(?![0-9])")  # a status 502, not a port such as 50213


async def _abandon_two_calls(url: str) -> str:
    """One call abandoned mid-stream (progress had come), one before any answer, then a call."""
    async with Client(url) as client:
        with anyio.move_on_after(0.5):
            await client.call_tool("chatty", {"n": 9, "delay": 0.1}, progress_callback=_ignore)
        with anyio.move_on_after(0.3):
            await client.call_tool("slow", {"seconds": 1})
        result = await client.call_tool("add", {"a": 1, "b": 1})
        return result.content[0].text  # type: ignore[union-attr]


async def _ignore(progress: float, total: float | None, message: str | None) -> None:
    return None


def test_a_call_the_2026_client_abandons_is_cancelled_not_unanswered(tmp_path: Path) -> None:
    """Both abandoned calls get a note with `closed: client`; no 502 is recorded (the client left),
    no line on stderr, and the session checks with no error or warning."""
    path = tmp_path / "cancel.jsonl"
    after, stderr, _ = record_sweep(path, _abandon_two_calls)
    assert after == "2"
    left = [r for r in records(path) if r["ch"] == "note" and r.get("closed") == "client"]
    assert len(left) == 2, left
    assert all(b"502 Bad Gateway" not in raw for raw in exchanges(path, "http-out").values())
    assert BAD_GATEWAY.search(stderr) is None, stderr
    calls = [orjson.loads(r["data"]) for r in records(path) if r["ch"] == "in"]
    cut = {r["x"] for r in left}
    assert {c["params"]["name"] for c in calls if c.get("id") in cut} <= {"chatty", "slow"}
    assert [(f.rule, f.message) for f in verdicts(path)] == []
    _, analysis = analyze_file(str(path))
    assert any(note.startswith("2 request(s) cancelled by the client closing") for note in analysis.notes)


def test_a_json_response_server_cancelled_before_answering_checks_clean(tmp_path: Path) -> None:
    """With JSON responses (no stream at all) both calls are abandoned before any answer: the same."""
    path = tmp_path / "cancel-json.jsonl"
    after, stderr, _ = record_sweep(path, _abandon_two_calls, "--json")
    assert after == "2" and BAD_GATEWAY.search(stderr) is None, stderr
    assert [(f.rule, f.message) for f in verdicts(path)] == []

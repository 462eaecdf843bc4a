"""A recording of a server met with the initialize handshake, served to a client that asks
`server/discover` first (the official SDK client's default, mode="auto"): serve answers the probe
as the recorded server would, -32601 Method not found, so the client falls back to `initialize` and
gets every recorded answer; the probe is not an unmatched request."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from mcptape.transcript.reader import open_transcript
from tests.serve.helpers import client, record, serve, time_server

pytestmark = pytest.mark.slow


def _methods(path: Path) -> list[str]:
    """The methods of the client requests in a transcript, in order."""
    found = []
    for event in open_transcript(path).events():
        if event.ch == "in":
            value = orjson.loads(event.data)
            if "method" in value and "id" in value:
                found.append(value["method"])
    return found


def test_a_modern_client_served_a_legacy_recording_falls_back_and_is_served_everything(
    tmp_path: Path,
) -> None:
    """Recorded with --legacy, served to the default client: the same output, exit 0, 0 unmatched,
    the probe counted apart and answered -32601."""
    tape, new, report = tmp_path / "legacy.jsonl", tmp_path / "new.jsonl", tmp_path / "report.json"
    recorded = client("--legacy", "--together", *record(tape, time_server()))
    assert recorded.returncode == 0, recorded.stderr.decode()
    assert "server/discover" not in _methods(tape) and "initialize" in _methods(tape)

    served = client("--together", *serve(tape, "-o", new, "--report", report))
    assert served.returncode == 0, served.stderr.decode()
    assert served.stdout == recorded.stdout
    assert _methods(new)[:2] == ["server/discover", "initialize"]
    answer = next(
        orjson.loads(e.data) for e in open_transcript(new).events() if e.ch == "out" and b'"error"' in e.data
    )
    assert answer["error"]["code"] == -32601
    document = orjson.loads(report.read_bytes())
    assert (document["counts"]["unmatched"], document["counts"]["legacy"], document["exit"]) == (0, 1, 0)
    assert b"1 server/discover answered -32601, as the recorded older server would" in served.stderr

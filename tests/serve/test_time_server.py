"""Must show: the official SDK client against mcp-server-time, recorded; the same client code
against `mcptape serve` of it gets the recorded results; a call never recorded gets an error."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from mcptape.transcript.reader import open_transcript
from tests.serve.conftest import Recorded
from tests.serve.helpers import client, mcptape, serve

pytestmark = pytest.mark.slow


def recorded_datetimes(path: Path) -> list[str]:
    """The `datetime` values of the recorded get_current_time answers."""
    found = []
    for event in open_transcript(path).events():
        if event.ch == "out" and b'\\"datetime\\"' in event.data:
            value = orjson.loads(event.data)
            document = json.loads(value["result"]["content"][0]["text"])
            if "datetime" in document:
                found.append(document["datetime"])
    return found


@dataclass(frozen=True)
class Served:
    """The SDK client (tests/serve/sdk_client.py) against `mcptape serve RECORDING -o NEW --report
    REPORT`: what it printed and exited with, serve's new session and its report."""

    proc: subprocess.CompletedProcess[bytes]
    new: Path
    report: Path


def _served(recording: Recorded, folder: Path, *client_args: str) -> Served:
    new, report = folder / "new.jsonl", folder / "report.json"
    proc = client(*client_args, *serve(recording.path, "-o", new, "--report", report))
    return Served(proc, new, report)


UNRECORDED_CALL = (
    "--call",
    'get_current_time={"timezone": "UTC"}',
    "--call",
    'get_current_time={"timezone": "Asia/Tokyo"}',
)


# Each client run below is read by two tests (what the client printed, the report; the new session
# diffed): run once for the module, as each test ran the same client against the same recording.
@pytest.fixture(scope="module")
def served_again(time_recording: Recorded, tmp_path_factory: pytest.TempPathFactory) -> Served:
    """The same client code as the recording's (`--together`), once the clock has moved on."""
    time.sleep(max(0.0, time_recording.at + 1.2 - time.time()))  # the clock has moved on by now
    return _served(time_recording, tmp_path_factory.mktemp("served-again"), "--together")


@pytest.fixture(scope="module")
def served_unrecorded(time_recording: Recorded, tmp_path_factory: pytest.TempPathFactory) -> Served:
    """A client that also asks for a zone the recording never saw (Asia/Tokyo)."""
    return _served(time_recording, tmp_path_factory.mktemp("served-unrecorded"), *UNRECORDED_CALL)


def test_the_same_client_code_gets_the_recorded_times_from_serve(
    time_recording: Recorded, served_again: Served
) -> None:
    """Served back, the SDK client prints exactly what it printed against the real server: the
    recorded times, not the clock's (no time server runs: the new session is serve's)."""
    proc, new, report = served_again.proc, served_again.new, served_again.report
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == time_recording.stdout
    printed = [json.loads(line) for line in proc.stdout.splitlines()[1:3]]
    served = [json.loads(p["get_current_time"][0])["datetime"] for p in printed]
    assert served == recorded_datetimes(time_recording.path)
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    assert served[0] < now  # recorded more than a second ago
    assert open_transcript(new).header.command[:2] == ["mcptape", "serve"]
    document = orjson.loads(report.read_bytes())
    assert document["counts"] == {
        "served": 5,
        "repeated": 0,
        "unmatched": 0,
        "unused": 0,
        "garbage": 0,
        "legacy": 0,
        "notifications": 0,
    }
    assert document["exit"] == 0
    assert b"mcptape serve: 5 served, 0 unmatched, 0 unused of 5 recorded request(s)" in proc.stderr


def test_a_call_the_recording_never_saw_gets_an_error_and_is_in_the_summary(
    served_unrecorded: Served,
) -> None:
    """Asia/Tokyo was never asked: the client gets a JSON-RPC error, stderr says which call and how
    it differs from the nearest recorded one, the summary and the report count it."""
    proc, report = served_unrecorded.proc, served_unrecorded.report
    assert proc.returncode == 0, proc.stderr.decode()
    last = json.loads(proc.stdout.splitlines()[-1])
    assert last == {"get_current_time": {"raised": "mcptape serve: no recorded answer for tools/call"}}
    stderr = proc.stderr.decode()
    assert 'no recorded answer for tools/call get_current_time {"timezone":"Asia/Tokyo"}' in stderr
    assert '"UTC" -> "Asia/Tokyo"; answered with error -32001' in stderr
    assert "mcptape serve: 3 served, 1 unmatched, 2 unused of 5 recorded request(s)" in stderr
    assert "Traceback" not in stderr
    document = orjson.loads(report.read_bytes())
    (unmatched,) = [r for r in document["requests"] if r["status"] == "unmatched"]
    assert unmatched["params"]["arguments"] == {"timezone": "Asia/Tokyo"}
    assert unmatched["differences"] == [
        {"path": "params.arguments.timezone", "recorded": "UTC", "sent": "Asia/Tokyo"}
    ]
    assert document["exit"] == 1


def test_serve_o_is_a_transcript_mcptape_diff_compares_with_the_recording(
    time_recording: Recorded, served_again: Served, served_unrecorded: Served
) -> None:
    """The same client: `mcptape diff ORIGINAL NEW` finds them the same; a client that asks for
    another zone: different, the changed answer named."""
    same, changed = served_again.new, served_unrecorded.new
    assert served_again.proc.returncode == 0 and served_unrecorded.proc.returncode == 0
    proc = mcptape("diff", time_recording.path, same)
    assert proc.returncode == 0, proc.stdout.decode()
    proc = mcptape("diff", time_recording.path, changed)
    assert proc.returncode == 1
    assert b"response to tools/call (id 4)" in proc.stdout and b"-32001" in proc.stdout

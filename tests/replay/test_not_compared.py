"""Nothing is ignored silently: what the diff does not compare, the report names, with what differed
there (stderr lines, HTTP calls the recording could not see); the verdict is unchanged by them."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client

from mcptape.replay.api import replay
from tests.clients import python_server, sdk_session
from tests.conftest import SERVERS, console_script

pytestmark = pytest.mark.slow

SERVER = SERVERS / "telemetry_server.py"
WARNING = "telemetry_server: warning: config.toml is deprecated"


def telemetry(*flags: str) -> list[str]:
    return python_server(SERVER, *flags)


async def greet(client: Client) -> dict[str, Any]:
    greeting = await client.call_tool("greet", {"name": "Ada"})
    return {"text": greeting.content[0].text}  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def plain_tape(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session recorded without any sink: the server's HTTP call went unwatched."""
    path = tmp_path_factory.mktemp("plain") / "plain.jsonl"
    seen = sdk_session(telemetry(), record_to=path, script=greet)
    assert seen.results["text"] == "Hello, Ada!"
    assert b'"ch":"http"' not in path.read_bytes()
    return path


def test_http_calls_the_recording_could_not_see_are_a_note_not_a_difference(
    plain_tape: Path, tmp_path: Path
) -> None:
    """Replayed against the same build (the sink on): same, with a note naming the new HTTP call."""
    result = replay(plain_tape, telemetry(), output=tmp_path / "new.jsonl", config=False)
    assert result.same, result.render()
    [pair] = result.diff.unobserved
    assert pair.scope == "http" and pair.old is None and pair.new is not None
    text = result.render()
    assert "note: the new session's HTTP calls could not be compared" in text
    assert "only in the new session" not in text
    assert "http://telemetry.invalid/ping" in text


def test_json_lists_what_was_not_compared(plain_tape: Path) -> None:
    """`replay --json`: the HTTP call under diff.not_compared, with why; stderr says it was not compared."""
    proc = subprocess.run(
        [console_script(), "replay", str(plain_tape), "--json", "--no-config", "--", *telemetry("--warn")],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    diff = orjson.loads(proc.stdout)["diff"]
    [item] = diff["not_compared"]
    assert item["channel"] == "http" and "recording did not watch" in item["why"]
    assert diff["stderr"]["compared"] is False
    assert any(WARNING in line for line in diff["stderr"]["added"])


def test_a_stderr_only_change_is_a_note_naming_the_lines_and_not_a_failure(
    plain_tape: Path, tmp_path: Path
) -> None:
    """A build that warns on stderr: same by default, the note shows the new line; --stderr fails it."""
    result = replay(plain_tape, telemetry("--warn"), output=tmp_path / "warn.jsonl", config=False)
    assert result.same, result.render()
    text = result.render()
    assert "note: stderr differs, not compared (--stderr compares it):" in text
    assert f"+ {WARNING}" in text
    strict = replay(
        plain_tape, telemetry("--warn"), output=tmp_path / "strict.jsonl", stderr=True, config=False
    )
    assert not strict.same and [line.rstrip() for line in strict.diff.stderr_added] == [WARNING.encode()]
    assert "note: stderr differs" not in strict.render()


def test_stderr_lines_that_differ_only_in_numbers_are_counted_not_listed(tmp_path: Path) -> None:
    """A start-up line with the time and pid: same, no line listed, one counted; --stderr still fails."""
    tape = tmp_path / "timed.jsonl"
    sdk_session(telemetry("--log-time"), record_to=tape, script=greet)
    result = replay(tape, telemetry("--log-time"), output=tmp_path / "new.jsonl", config=False)
    assert result.same and result.diff.stderr_added == [] and result.diff.stderr_numbers_only == 1
    text = result.render()
    assert "note: stderr differs" not in text
    assert "note: 1 stderr line(s) differ only in numbers (times, counts, ids)" in text
    changed = replay(tape, telemetry("--log-time", "--warn"), output=tmp_path / "warn.jsonl", config=False)
    assert [line.rstrip() for line in changed.diff.stderr_added] == [WARNING.encode()]
    strict = replay(
        tape, telemetry("--log-time"), output=tmp_path / "strict.jsonl", stderr=True, config=False
    )
    assert not strict.same and strict.diff.stderr_numbers_only == 0
    assert [line.startswith(b"telemetry_server: started at ") for line in strict.diff.stderr_added] == [True]


async def show_settings(client: Client) -> dict[str, Any]:
    shown = await client.call_tool("settings", {})
    return {"text": shown.content[0].text}  # type: ignore[union-attr]


def test_a_value_showing_the_environment_mcptape_sets_is_explained(tmp_path: Path) -> None:
    """Recorded without a sink (`HTTP_PROXY=`), replayed with the sink on: different, and a note says
    the value shows a variable mcptape itself sets for the run."""
    tape = tmp_path / "settings.jsonl"
    seen = sdk_session(telemetry(), record_to=tape, script=show_settings)
    assert seen.results["text"] == "HTTP_PROXY="
    result = replay(tape, telemetry(), output=tmp_path / "new.jsonl", config=False)
    assert not result.same
    text = result.render()
    assert "shows the server's environment, where mcptape sets HTTP_PROXY" in text

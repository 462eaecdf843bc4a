"""Replay chooses the transport from the transcript: an HTTP recording is replayed over HTTP with no
option (its recorded command started, its recorded URL reached), a command given is started and
reached at the recorded URL, and what does not fit the recording is one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.recorder.http.helpers import records
from tests.replay.http.helpers import Tape, mcptape, notes_server

pytestmark = pytest.mark.slow

STDIO = (
    '{"mcptape":1,"started":"","command":["x"],"cwd":"","recorder":{}}\n{"t":0.1,"ch":"in","data":"{}\\n"}\n'
)


def test_an_http_recording_is_replayed_over_http_with_no_option(tape: Tape, tmp_path: Path) -> None:
    """`mcptape replay FILE`: the recorded command is started (said on stderr), the recorded URL is
    reached, and the session is the same; the new transcript is an HTTP one (no stdio `in` bytes
    written to a process)."""
    new = tmp_path / "new.jsonl"
    done = mcptape("replay", str(tape.path), "-o", str(new))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith("\nsame")
    assert "replaying against the recorded command" in done.stderr
    header = orjson.loads(new.read_bytes().splitlines()[0])
    assert header["http"]["upstream"] == tape.url
    assert any(r["ch"] == "http-in" for r in records(new))


def test_a_command_given_is_started_and_reached_at_the_recorded_url(auto_tape: Tape, tmp_path: Path) -> None:
    """`mcptape replay FILE -- CMD` without --http-upstream: a changed build started by CMD is
    reached at the recorded URL, and its change is named (not a false `different` from a stdio run)."""
    done = mcptape("replay", str(auto_tape.path), "--", *notes_server(auto_tape.port, "--v2"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "messages: 1 differ" in done.stdout
    assert 'result.content[0].text: "Hello, Ada!" -> "Hi, Ada!"' in done.stdout


def test_http_upstream_for_a_stdio_transcript_is_one_error_line(tmp_path: Path) -> None:
    """A stdio recording has no HTTP exchange to send: exit 2, one line saying so, and its hint."""
    path = tmp_path / "stdio.jsonl"
    path.write_text(STDIO)
    done = mcptape("replay", str(path), "--http-upstream", "http://127.0.0.1:9/mcp")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    said = "is a stdio transcript: --http-upstream replays one recorded with record --http-upstream"
    assert lines[0].startswith(f"Error: {path} {said} (drop --http-upstream")
    assert len(lines) == 1 and "Traceback" not in done.stderr


def test_an_http_transcript_without_its_url_is_one_error_line(auto_tape: Tape, tmp_path: Path) -> None:
    """A header that names no upstream URL, and no --http-upstream: exit 2, one line, nothing started."""
    lines = auto_tape.path.read_bytes().splitlines(keepends=True)
    header = orjson.loads(lines[0])
    del header["http"]["upstream"]
    path = tmp_path / "no-url.jsonl"
    path.write_bytes(orjson.dumps(header) + b"\n" + b"".join(lines[1:]))
    done = mcptape("replay", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"Error: {path}: the HTTP transcript's header names no upstream URL")
    assert "--http-upstream" in done.stderr and "Traceback" not in done.stderr

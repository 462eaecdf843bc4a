"""Bad input: a server that hangs, crashes at start or floods stdout; unreadable transcripts."""

from __future__ import annotations

import time
from pathlib import Path

import orjson
import pytest

from mcptape.replay.api import replay
from tests import inprocess
from tests.replay.conftest import rp

pytestmark = pytest.mark.slow


def test_a_server_that_hangs_fails_cleanly_at_the_step_timeout(v1_tape: Path) -> None:
    """No answer within --step-timeout: the replay stops, says which request, and the server is ended."""
    started = time.monotonic()
    result = replay(v1_tape, rp("--hang"), step_timeout=1.0, shutdown_timeout=0.5, config=False)
    assert time.monotonic() - started < 10
    assert not result.same and result.exit_code == 1
    [issue] = [i for i in result.issues if i.error]
    assert issue.kind == "step-timeout" and "request 1" in issue.message
    assert result.run.sent == 1 and not result.run.completed
    assert result.run.status is not None and result.run.status.signal is not None  # SIGTERM


def test_a_server_that_crashes_at_start_shows_its_stderr(v1_tape: Path) -> None:
    """Exit 3 at start-up: the replay reports the exit and shows the server's stderr."""
    proc = inprocess.run("replay", str(v1_tape), "--no-config", "--", *rp("--crash"))
    assert proc.returncode == 1
    out = proc.stdout.decode()
    assert "server-exited" in out and "exit code 3" in out
    assert "rp_server: fatal: cannot open config.toml" in out


def test_a_server_that_floods_stdout_is_reported_without_printing_every_line(v1_tape: Path) -> None:
    """25,000 noise lines before serving (2.5 times what is kept): the first 10,000 kept and reported
    as new non-protocol lines, the rest counted (memory stays bounded), the report stays short."""
    result = replay(v1_tape, rp("--flood", "25000"), config=False)
    assert len(result.diff.stdout_added) == 10_000
    assert result.diff.stdout_not_compared == (0, 15_000)
    assert not result.diff.differing  # the answers after the noise are still right
    text = result.render()
    assert "10000 new line(s) that are not protocol" in text and "... and 9990 more" in text
    assert "15000 (new) more were counted, not compared" in text
    assert len(text) < 10_000


def test_an_unreadable_transcript_is_a_clear_error_with_exit_2(tmp_path: Path) -> None:
    """Missing, empty and non-transcript files: one `Error:` line on stderr, exit 2, nothing run."""
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    notes = tmp_path / "notes.jsonl"
    notes.write_bytes(b"hello\n")
    for path in (tmp_path / "missing.jsonl", empty, notes):
        for args in (["replay", str(path), "--no-config", "--", *rp()], ["diff", str(path), str(path)]):
            proc = inprocess.run(*args)
            assert proc.returncode == 2, (args, proc.stderr)
            assert proc.stderr.startswith(b"Error: ") and proc.stderr.count(b"\n") == 1
            assert proc.stdout == b""


def test_a_missing_command_is_a_usage_error(v1_tape: Path, tmp_path: Path) -> None:
    """No command given, configured or recorded, or a command that does not exist: exit 2."""
    first, rest = v1_tape.read_bytes().split(b"\n", 1)
    unrecorded = tmp_path / "no-command.jsonl"
    unrecorded.write_bytes(orjson.dumps({**orjson.loads(first), "command": []}) + b"\n" + rest)
    for tape, args in ((unrecorded, []), (v1_tape, ["--", str(tmp_path / "no-such-server")])):
        proc = inprocess.run("replay", str(tape), "--no-config", *args, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith(b"Error: ")

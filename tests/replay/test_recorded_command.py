"""Replay defaults from the transcript: without `-- CMD`, the recorded command runs in the recorded
working directory (said on stderr); a folder replays each transcript against its own command."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest

from mcptape.replay.api import replay
from tests import inprocess
from tests.conftest import ROOT, SERVERS

pytestmark = pytest.mark.slow


def with_header(tape: Path, out: Path, **fields: object) -> Path:
    """A copy of `tape` whose header has `fields` changed."""
    first, rest = tape.read_bytes().split(b"\n", 1)
    header = {**orjson.loads(first), **fields}
    out.write_bytes(orjson.dumps(header) + b"\n" + rest)
    return out


def test_without_a_command_the_recorded_one_runs_in_the_recorded_directory(
    v1_tape: Path, tmp_path: Path
) -> None:
    """A relative recorded command (`python rp_server.py`) only starts in its recorded cwd: same, exit 0."""
    tape = with_header(
        v1_tape, tmp_path / "relative.jsonl", command=[sys.executable, "rp_server.py"], cwd=str(SERVERS)
    )
    proc = inprocess.run("replay", str(tape), "--no-config", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    assert proc.stderr.decode() == (
        f"mcptape: replaying against the recorded command: {sys.executable} rp_server.py in {SERVERS}\n"
    )
    assert proc.stdout.decode().endswith("same\n")


def test_the_api_says_which_command_ran_and_where_it_came_from(v1_tape: Path) -> None:
    """`replay(path)` with no command and no config: the recorded command, origin "recorded"."""
    result = replay(v1_tape, config=False)
    assert result.same, result.render()
    assert result.server is not None and result.server.origin == "recorded"
    assert result.server.command == result.header.command and result.server.cwd == result.header.cwd
    assert result.to_json()["server"]["origin"] == "recorded"


def test_a_recorded_directory_that_is_gone_is_a_usage_error(v1_tape: Path, tmp_path: Path) -> None:
    """The recorded cwd no longer exists: exit 2, and the way out (give the command)."""
    tape = with_header(v1_tape, tmp_path / "gone.jsonl", cwd=str(tmp_path / "no-such-dir"))
    proc = inprocess.run("replay", str(tape), "--no-config")
    assert proc.returncode == 2
    assert b"does not exist" in proc.stderr and b"give the server command after --" in proc.stderr


def test_a_folder_replays_each_transcript_against_its_own_command(v1_tape: Path, tmp_path: Path) -> None:
    """Two transcripts of two servers, no command: each replays against its own, both same."""
    folder = tmp_path / "tapes"
    folder.mkdir()
    (folder / "rp.jsonl").write_bytes(v1_tape.read_bytes())
    echo = ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl"
    first, rest = echo.read_bytes().split(b"\n", 1)
    header = orjson.loads(first)
    header["command"] = [sys.executable, str(SERVERS / "fast" / "echo_tool.py")]
    header["cwd"] = str(ROOT)
    (folder / "echo.jsonl").write_bytes(orjson.dumps(header) + b"\n" + rest)
    proc = inprocess.run("replay", str(folder), "--no-config", cwd=tmp_path)
    out = proc.stdout.decode()
    assert proc.returncode == 0, out + proc.stderr.decode()
    assert out.startswith("same        ") and "2 same, 0 different, 0 unreadable" in out
    said = proc.stderr.decode().splitlines()
    assert len(said) == 2 and all(
        line.startswith("mcptape: replaying against the recorded command") for line in said
    )
    assert any("echo_tool.py" in line for line in said) and any("rp_server.py" in line for line in said)


def test_a_folder_transcript_whose_own_command_cannot_run_is_said_and_the_others_replayed(
    v1_tape: Path, tmp_path: Path
) -> None:
    """One recorded command that no longer exists: `not run` with why, the other replays, exit 2."""
    folder = tmp_path / "tapes"
    folder.mkdir()
    (folder / "a-good.jsonl").write_bytes(v1_tape.read_bytes())
    with_header(v1_tape, folder / "b-gone.jsonl", command=[str(tmp_path / "no-such-server")])
    proc = inprocess.run("replay", str(folder), "--no-config")
    out = proc.stdout.decode()
    assert proc.returncode == 2, out
    assert "same        " in out and "not run     " in out and "b-gone.jsonl" in out
    assert "1 same, 0 different, 0 unreadable, 1 not run" in out

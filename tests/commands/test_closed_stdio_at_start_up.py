"""A stdout or stderr closed at start-up (`>&-`, `2>&-`): Python sets sys.stdout/sys.stderr to
None. The exit code must still be the command's (b18df4b: 'a stderr that cannot be written keeps
the exit code'), never 1 via a hidden AttributeError traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tests.conftest import SERVERS, console_script

pytestmark = pytest.mark.slow

REPO = SERVERS.parents[1]

MCPTAPE = console_script()
GOOD = str(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl")
ECHO = str(SERVERS / "fast" / "echo_tool.py")


def run(args: list[str], close: int) -> subprocess.CompletedProcess[bytes]:
    other = subprocess.PIPE
    return subprocess.run(
        [MCPTAPE, *args],
        stdin=subprocess.DEVNULL,
        stdout=other if close != 1 else None,
        stderr=other if close != 2 else None,
        preexec_fn=lambda: os.close(close),
        timeout=120,
    )


def big_transcript(path: Path) -> Path:
    """33 MiB of stderr records: past check's 32 MiB progress threshold, clean."""
    with open(GOOD, "rb") as src, path.open("wb") as out:
        out.write(src.readline())
        line = orjson.dumps({"t": 1.0, "ch": "err", "data": "x" * (1 << 20) + "\n"}) + b"\n"
        for _ in range(33):
            out.write(line)
        out.write(b'{"t":1.1,"ch":"exit","code":0}\n')  # the recording is whole
    return path


def test_a_missing_file_with_stderr_closed_exits_2() -> None:
    """`check missing 2>&-`: the Error line is lost, exit 2 stays."""
    assert run(["check", "/nonexistent.jsonl"], close=2).returncode == 2


def test_several_files_one_missing_with_stderr_closed_exits_2() -> None:
    """`check good missing 2>&-`: the good one is reported, exit 2."""
    result = run(["check", GOOD, "/nonexistent.jsonl"], close=2)
    assert result.returncode == 2
    assert b"1 clean, 0 with findings, 1 unreadable" in result.stdout


def test_a_large_file_with_stderr_closed_is_checked(tmp_path: Path) -> None:
    """A file past the progress threshold with `2>&-`: the report, exit 0."""
    result = run(["check", str(big_transcript(tmp_path / "big.jsonl"))], close=2)
    assert result.returncode == 0
    assert b"Verdict: clean" in result.stdout


def test_a_probe_with_stderr_closed_prints_its_table() -> None:
    """`probe 2>&-`: progress lines are lost, the report and exit code are not."""
    result = run(
        ["probe", "-o", "/tmp/review2/probe-closed", "--case", "debug-line", "--", sys.executable, ECHO],
        close=2,
    )
    assert result.returncode in (0, 1)
    assert b"passed" in result.stdout


@pytest.mark.parametrize(
    "args", [["check", GOOD], ["check", "--json", GOOD, GOOD]], ids=["check", "check-several-json"]
)
def test_a_closed_stdout_is_no_traceback(args: list[str]) -> None:
    """`check good >&-`: no traceback, the verdict's exit code (as `diff good good >&-` gives 0)."""
    result = run(args, close=1)
    assert b"Traceback" not in result.stderr
    assert result.returncode == 0

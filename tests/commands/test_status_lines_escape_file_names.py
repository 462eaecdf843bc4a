"""The closing lines of report, redact and diff/replay --update quote file names: a name with an
escape sequence (a glob over someone else's tapes) must not reach the terminal raw (88b671c did
this for Error lines only)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import SERVERS, console_script

REPO = SERVERS.parents[1]

MCPTAPE = console_script()
GOOD = str(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl")
NAME = "tape\x1b]0;pwned\x07.jsonl"


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MCPTAPE, *args], capture_output=True, text=True, cwd=cwd, stdin=subprocess.DEVNULL, timeout=60
    )


def test_report_names_its_directory_escaped(tmp_path: Path) -> None:
    shutil.copy(GOOD, tmp_path / NAME)
    result = run(["report", NAME], tmp_path)
    assert result.returncode == 0
    assert "\x1b" not in result.stderr and "\\x1b]0;pwned\\x07" in result.stderr


def test_diff_update_names_the_files_escaped(tmp_path: Path) -> None:
    shutil.copy(GOOD, tmp_path / NAME)
    shutil.copy(str(REPO / "transcripts" / "sdk-echo-tool-stateless.jsonl"), tmp_path / "b.jsonl")
    result = run(["diff", "--update", "--no-config", NAME, "b.jsonl"], tmp_path)
    assert result.returncode == 0
    assert (
        "\x1b" not in result.stdout and "updated tape\\x1b]0;pwned\\x07.jsonl with b.jsonl" in result.stdout
    )

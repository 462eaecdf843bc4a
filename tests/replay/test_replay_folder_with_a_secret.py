"""`replay FOLDER --secret NAME=VALUE` over a folder holding redacted and plain transcripts: the
secret is for the redacted ones; a plain one must not stop the whole folder (ff4e3c9)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SERVERS, console_script

pytestmark = pytest.mark.slow

REPO = SERVERS.parents[1]

MCPTAPE = console_script()
GOOD = str(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl")
ECHO = str(SERVERS / "fast" / "echo_tool.py")


def test_a_plain_transcript_beside_redacted_ones_is_replayed(tmp_path: Path) -> None:
    """a.jsonl plain, b.jsonl redacted, --secret given: both replayed, the summary printed, exit 0."""
    tapes = tmp_path / "tapes"
    tapes.mkdir()
    shutil.copy(GOOD, tapes / "a.jsonl")
    subprocess.run(
        [MCPTAPE, "redact", GOOD, "-o", str(tapes / "b.jsonl"), "--no-env"], check=True, capture_output=True
    )
    result = subprocess.run(
        [
            MCPTAPE,
            "replay",
            str(tapes),
            "--secret",
            "API_TOKEN=abc",
            "--no-config",
            "--",
            sys.executable,
            ECHO,
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert result.stdout.splitlines()[-1:] == [
        f"2 transcripts under {tapes}: 2 same, 0 different, 0 unreadable"
    ], result.stdout + result.stderr
    assert result.returncode == 0

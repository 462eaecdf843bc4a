"""An empty server command name (`-- ''`, e.g. an unset shell variable) is a usage error: one
`Error:` line and exit 2, before anything is started or written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import console_script

GOOD = str(Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl")


@pytest.mark.parametrize(
    "args",
    [
        ["replay", GOOD, "--no-config", "--", "", "--stdio"],
        ["probe", "-o", "{tmp}/probe", "--", "", "--stdio"],
        ["record", "-o", "{tmp}/r.jsonl", "--", "", "--stdio"],
    ],
    ids=["replay", "probe", "record"],
)
def test_an_empty_command_name_is_a_usage_error(args: list[str], tmp_path: Path) -> None:
    """`-- '' --stdio`: `Error: the server command is empty ...`, exit 2, no traceback."""
    argv = [console_script(), *(a.replace("{tmp}", str(tmp_path)) for a in args)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr == (
        "Error: the server command's name is empty (give the server's executable after --)\n"
    )

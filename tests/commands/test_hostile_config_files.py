"""A project's settings file (`pyproject.toml`'s [tool.mcptape], or `mcptape.toml`) may be anything:
bytes that are not UTF-8, arrays nested thousands deep, a NUL in a path or a command. Every command
that reads it (diff, serve, replay) says so in one `Error:` line, exit 2, never a traceback."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.commands.tapes import HEADER
from tests.inprocess import run

SETTINGS = {
    "not UTF-8": (b'[tool.mcptape]\nserver = "\xff"\n', "is not valid TOML: not UTF-8 (byte offset 25)"),
    "deep array": (
        b"[tool.mcptape]\nignore = " + b"[" * 5000 + b"]" * 5000 + b"\n",
        "is not valid TOML: nested too deeply",
    ),
    "deep table": (
        b"[tool.mcptape]\nlearned = " + b"{a=" * 3000 + b"1" + b"}" * 3000 + b"\n",
        "is not valid TOML: nested too deeply",
    ),
    "integer past 4300 digits": (
        b"[tool.mcptape]\nstep-timeout = " + b"9" * 5000 + b"\n",
        "is not valid TOML: Exceeds the limit (4300 digits)",
    ),
    "NUL in a path": (
        b'[tool.mcptape]\ntranscripts = ["a\\u0000b"]\n',
        "transcripts must be a list of paths",
    ),
    "NUL in the server": (b'[tool.mcptape]\nserver = ["tr\\u0000ue"]\n', "server holds a NUL character"),
}


@pytest.mark.parametrize("case", sorted(SETTINGS))
@pytest.mark.parametrize("command", ["diff", "serve", "replay"])
def test_a_hostile_settings_file_is_one_error(tmp_path: Path, case: str, command: str) -> None:
    """Each command reads the file before anything else and stops at it: one line naming it."""
    content, words = SETTINGS[case]
    (tmp_path / "pyproject.toml").write_bytes(content)
    session = tmp_path / "s.jsonl"
    session.write_bytes(orjson.dumps(HEADER) + b"\n")
    argv = {"diff": [session, session], "serve": [session], "replay": [session]}[command]
    result = run(command, *argv, cwd=tmp_path, text=True)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr and "pyproject.toml" in result.stderr

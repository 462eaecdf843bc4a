"""An `Error:` line that quotes what the user typed (a file name, an option) shows its control
characters escaped: a name never drives the terminal."""

from __future__ import annotations

import subprocess

import pytest

from tests.conftest import console_script


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (
            ["check", "/tmp/no-such-\x1b[31m-file\u202e.jsonl"],
            "Error: /tmp/no-such-\\x1b[31m-file\\u202e.jsonl does not exist",
        ),
        (["check", "--bogus\x1b]0;pwned\x07"], "Error: No such option '--bogus\\x1b]0;pwned\\x07'"),
        (["diff", "C:\\tapes\\a.jsonl", "b"], "Error: C:\\tapes\\a.jsonl does not exist"),
    ],
    ids=["file-name", "option", "backslashes-stay-single"],
)
def test_error_lines_escape_control_characters_only(args: list[str], shown: str) -> None:
    """ESC, OSC, BEL and bidi overrides appear as escapes; a plain backslash stays one backslash."""
    result = subprocess.run(
        [console_script(), *args], capture_output=True, timeout=30, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.startswith(shown), err
    assert "\x1b" not in err and "\x07" not in err and "\u202e" not in err

"""`mcptape view` on the command line: bad input is one `Error:` line and exit 2, before any UI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.helpers import run_view
from tests.tui.transcripts import banner_session


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        (b"", "is empty"),
        (b"\x00\x01binary\xff\n", "is not an mcptape transcript"),
        (b'{"mcptape": 1, "started": "2026-01-01", "comm', "is not an mcptape transcript"),
    ],
    ids=["missing", "empty", "binary", "truncated-header"],
)
def test_unreadable_input_is_one_error_line_and_exit_2(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    """Missing, empty, binary and header-truncated files never start the viewer nor print a traceback."""
    path = tmp_path / "t.jsonl"
    if content is not None:
        path.write_bytes(content)
    result = run_view(str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and message in lines[0]


def test_a_directory_without_transcripts_is_one_error_line(tmp_path: Path) -> None:
    """Pointing the viewer at a directory with no transcript says so."""
    result = run_view(str(tmp_path))
    assert result.returncode == 2
    assert (
        result.stderr
        == f"Error: no *.jsonl transcript in directory {tmp_path} (record one with mcptape record -o DIR/)\n"
    )


def test_a_directory_opens_its_newest_transcript(tmp_path: Path) -> None:
    """`view DIR` (one file per session, as `record -o DIR/` writes) picks the newest `*.jsonl`."""
    from mcptape.commands.view import newest_in

    old, new = banner_session(tmp_path / "b-old.jsonl"), banner_session(tmp_path / "a-new.jsonl")
    (tmp_path / "notes.txt").write_text("not a transcript")
    os.utime(old, ns=(1_000_000_000, 1_000_000_000))
    assert newest_in(tmp_path) == new
    result = run_view(str(tmp_path))  # off a terminal: it got past the folder to the file
    assert result.returncode == 2 and "needs a terminal" in result.stderr


def test_a_bad_keymap_is_one_error_line(tmp_path: Path) -> None:
    """A keymap naming an unknown binding id is refused with the way to find the right ids."""
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('[keymap]\n"no.such" = "z"\n')
    result = run_view("--keymap", str(keymap), str(banner_session(tmp_path / "t.jsonl")))
    assert result.returncode == 2 and "unknown binding id 'no.such'" in result.stderr


def test_view_does_not_import_textual_for_a_bad_file(tmp_path: Path) -> None:
    """Bad input is refused before the (heavy) textual import."""
    code = (
        "import sys\n"
        "from mcptape.cli import main\n"
        "try:\n"
        "    main(['view', sys.argv[1]])\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 2, exc.code\n"
        "assert 'textual' not in sys.modules, 'textual was imported'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "missing.jsonl")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


def test_off_a_terminal_view_is_one_error_line_instead_of_a_hung_screen(tmp_path: Path) -> None:
    """With stdin and stderr not a tty, a valid transcript is refused at once with the text-report command."""
    path = banner_session(tmp_path / "t.jsonl")
    result = run_view(str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "Error: mcptape view needs a terminal: stdin and stderr must be a tty"
        f" (for a text report: mcptape check {path})"
    ]


def test_off_a_terminal_the_diff_viewer_is_skipped_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Off a terminal `replay --view` keeps its report and exit code; the viewer notes it was not opened."""
    from mcptape.commands.view import view_diff
    from mcptape.replay.api import diff_files

    path = banner_session(tmp_path / "t.jsonl")
    view_diff(diff_files(path, path, config=False), "old", "new")
    assert (
        capsys.readouterr().err == "note: the diff viewer needs a terminal (stdin and stderr); not opened\n"
    )

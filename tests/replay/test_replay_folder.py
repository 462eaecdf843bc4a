"""`mcptape replay FOLDER -- CMD`: every transcript under a folder replayed, a line each, the
report of those that differ, a summary and the worst exit code."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from tests.conftest import console_script
from tests.replay.conftest import rp

pytestmark = pytest.mark.slow


def suite(tmp_path: Path, v1_tape: Path) -> Path:
    """A folder of two copies of the v1 recording (one in a subfolder) and a file that is not one."""
    folder = tmp_path / "tapes"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(v1_tape, folder / "a.jsonl")
    shutil.copy(v1_tape, folder / "sub" / "b.jsonl")
    return folder


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [console_script(), "replay", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_a_folder_of_same_sessions_exits_0_with_a_line_each(tmp_path: Path, v1_tape: Path) -> None:
    """Same build: `same` for each transcript, sorted, and the summary; exit 0."""
    folder = suite(tmp_path, v1_tape)
    result = run(str(folder), "--no-config", "--", *rp())
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"same        {folder / 'a.jsonl'} (")
    assert lines[1].startswith(f"same        {folder / 'sub' / 'b.jsonl'} (")
    assert lines[-1] == f"2 transcripts under {folder}: 2 same, 0 different, 0 unreadable"


def test_a_changed_build_shows_each_difference_and_exits_1(tmp_path: Path, v1_tape: Path) -> None:
    """The v2 build: each transcript is `different` with its report indented below; exit 1."""
    folder = suite(tmp_path, v1_tape)
    result = run(str(folder), "--no-config", "--", *rp("--v2"))
    assert result.returncode == 1
    assert result.stdout.count("different   ") == 2
    assert result.stdout.count('result.content[0].text: "Hello, Ada!" -> "Hi, Ada!"') == 2
    assert result.stdout.splitlines()[-1].endswith("0 same, 2 different, 0 unreadable")


def test_an_unreadable_file_is_said_and_the_others_still_replayed(tmp_path: Path, v1_tape: Path) -> None:
    """A file that is not a transcript: `unreadable` with the reason, the others replayed; exit 2.
    `--json` gives one object per transcript, each with its file."""
    folder = suite(tmp_path, v1_tape)
    (folder / "notes.jsonl").write_text("not a transcript\n")
    result = run(str(folder), "--no-config", "--", *rp())
    assert result.returncode == 2
    assert f"unreadable  {folder / 'notes.jsonl'}: " in result.stdout
    assert result.stdout.splitlines()[-1].endswith("2 same, 0 different, 1 unreadable")
    as_json = run(str(folder), "--json", "--no-config", "--", *rp())
    docs = [orjson.loads(line) for line in as_json.stdout.splitlines()]
    assert [Path(d["file"]).name for d in docs] == ["a.jsonl", "notes.jsonl", "b.jsonl"]
    assert docs[0]["same"] is True and "error" in docs[1]


def test_a_folder_without_transcripts_or_with_one_session_options_is_a_usage_error(tmp_path: Path) -> None:
    """An empty folder, or `-o`/`--view` (which name one session) with a folder: exit 2, one line."""
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run(str(empty), "--no-config", "--", *rp())
    assert result.returncode == 2 and result.stderr.startswith(f"Error: no *.jsonl transcript under {empty}")
    result = run(str(empty), "-o", str(tmp_path / "new.jsonl"), "--no-config", "--", *rp())
    assert result.returncode == 2 and result.stderr == "Error: -o takes one transcript, not a folder\n"

"""`open_output`: each way a transcript path cannot be written is one sentence naming the cause."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.errors import OutputError
from mcptape.transcript.files import open_output


def test_a_missing_parent_directory_is_named() -> None:
    """A parent that does not exist is what the message says."""
    with pytest.raises(OutputError, match="directory /no-such-dir-mcptape does not exist"):
        open_output("/no-such-dir-mcptape/t.jsonl")


def test_a_parent_that_exists_but_takes_no_files_is_not_called_missing() -> None:
    """/proc exists: the message says no file can be created there, not that it does not exist."""
    with pytest.raises(OutputError, match=r"^cannot write /proc/t\.jsonl: no file can be created in /proc$"):
        open_output("/proc/t.jsonl")


def test_an_existing_file_gets_the_callers_hint(tmp_path: Path) -> None:
    """Record's advice by default; a caller with other options gives its own."""
    path = tmp_path / "t.jsonl"
    path.write_text("")
    with pytest.raises(OutputError, match="give -o a directory"):
        open_output(path)
    with pytest.raises(OutputError) as caught:
        open_output(path, exists_hint="choose another -o")
    assert str(caught.value) == f"{path} already exists (choose another -o)"


def test_a_directory_path_that_does_not_exist_yet_is_called_missing(tmp_path: Path) -> None:
    """`-o tapes/` before tapes exists says to create it, not that it is a directory."""
    path = f"{tmp_path}/tapes/"
    with pytest.raises(OutputError) as caught:
        open_output(path)
    assert (
        str(caught.value)
        == f"cannot write {path}: directory {path} does not exist (create it first: mkdir -p {path})"
    )

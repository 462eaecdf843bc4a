"""An I/O error while reading a transcript's lines (EIO after the header: a failing disk, a
vanished network mount) is 'Error: FILE cannot be read: ...' like one on line 1 (dcc3b7b), and
`check FILE...` still checks the other files and prints its summary (42af944)."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path
from typing import Any

import pytest

import mcptape.transcript.reader as reader
from mcptape.cli import main
from tests.conftest import SERVERS, console_script  # noqa: F401

REPO = SERVERS.parents[1]

GOOD = str(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl")


class FailingAfterHeader:
    """The real file, whose line iteration fails with EIO after the first event line."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh

    def __enter__(self) -> FailingAfterHeader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.fh.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.fh, name)

    def __iter__(self) -> Any:
        yield self.fh.readline()
        raise OSError(errno.EIO, "Input/output error")


@pytest.fixture
def bad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "failing.jsonl"
    shutil.copy(GOOD, path)
    real = reader.open_file

    def open_file(p: Path) -> Any:
        fh = real(p)
        return FailingAfterHeader(fh) if Path(p) == path else fh

    monkeypatch.setattr(reader, "open_file", open_file)
    return path


def exit_code(args: list[str]) -> int:
    with pytest.raises(SystemExit) as caught:
        main(args)
    return int(caught.value.code or 0)


def test_check_several_goes_on_after_a_read_error(bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`check bad good`: bad is unreadable (named), good is checked, the summary is printed; exit 2."""
    assert exit_code(["check", str(bad), GOOD]) == 2
    out, err = capsys.readouterr()
    assert "1 clean, 0 with findings, 1 unreadable" in out
    assert f"Error: {bad} cannot be read: Input/output error" in err


def test_diff_names_the_file_it_could_not_read(bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`diff bad good`: 'Error: bad cannot be read: ...', exit 2 (not a bare 'Input/output error')."""
    assert exit_code(["diff", str(bad), GOOD]) == 2
    assert f"Error: {bad} cannot be read: Input/output error" in capsys.readouterr().err

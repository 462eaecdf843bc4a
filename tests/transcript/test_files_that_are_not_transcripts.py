"""Files that are not readable transcripts say what they are instead: a header cut short, a
gzip-compressed transcript, a pipe or a device."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mcptape.errors import TranscriptError
from mcptape.transcript import open_transcript
from mcptape.transcript.writer import new_header, write_transcript
from tests.conftest import console_script


def _transcript(path: Path) -> bytes:
    write_transcript(path, new_header(["srv"], "/"), [])
    return path.read_bytes()


def test_a_header_cut_short_is_named_as_such(tmp_path: Path) -> None:
    """A recorder killed while writing line 1: the error says the header is cut short, not foreign."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(_transcript(path)[:40])
    with pytest.raises(TranscriptError) as info:
        open_transcript(path)
    assert str(info.value) == (
        f"{path} is not an mcptape transcript: its header (line 1) is cut short (40 bytes, no newline) "
        "(the recording stopped as it started: record it again)"
    )


def test_a_gzip_compressed_transcript_is_named_as_such(tmp_path: Path) -> None:
    """`x.jsonl.gz`: the error says it is compressed and how to decompress it."""
    path = tmp_path / "t.jsonl"
    _transcript(path)
    subprocess.run(["gzip", str(path)], check=True)
    gz = tmp_path / "t.jsonl.gz"
    with pytest.raises(TranscriptError) as info:
        open_transcript(gz)
    assert str(info.value) == f"{gz} is gzip-compressed (decompress it first: gunzip -k {gz})"


def test_a_named_pipe_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO with no writer: refused before it is opened (opening would block for ever)."""
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    result = subprocess.run(
        [console_script(), "check", str(fifo)], capture_output=True, text=True, timeout=10
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"Error: {fifo} is not a regular file (a pipe, socket or device) "
        "(mcptape reads transcripts from files: save it to one first)\n"
    )


def test_a_transcript_piped_through_dev_stdin_is_refused_clearly(tmp_path: Path) -> None:
    """`cat t.jsonl | mcptape check /dev/stdin`: the same sentence, not 'stream is not seekable'."""
    path = tmp_path / "t.jsonl"
    data = _transcript(path)
    result = subprocess.run(
        [console_script(), "check", "/dev/stdin"], input=data, capture_output=True, timeout=10
    )
    assert result.returncode == 2
    assert result.stderr.startswith(b"Error: /dev/stdin is not a regular file")

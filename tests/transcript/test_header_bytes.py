"""A header whose argv or cwd holds bytes that are not UTF-8 still makes a readable transcript."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from mcptape.transcript import open_transcript
from mcptape.transcript.events import Header
from mcptape.transcript.writer import TranscriptWriter
from tests.conftest import console_script


def test_non_utf8_argument_keeps_the_transcript_readable(tmp_path: Path) -> None:
    """`mcptape record -- echo caf\\xe9` (a latin-1 argument): the header shows the byte as `\\xe9`."""
    transcript = tmp_path / "t.jsonl"
    proc = subprocess.run(
        [
            os.fsencode(console_script()),
            b"record",
            b"-q",
            b"-o",
            os.fsencode(transcript),
            b"--",
            b"echo",
            b"caf\xe9",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
    )
    assert proc.stdout == b"caf\xe9\n"
    t = open_transcript(transcript)
    assert t.header.command == ["echo", "caf\\xe9"]
    assert b"".join(e.data for e in t.events() if e.ch == "out") == b"caf\xe9\n"


def test_any_lone_surrogate_in_the_header_is_written_as_an_escape(tmp_path: Path) -> None:
    """A cwd with an undecodable byte and a lone surrogate from elsewhere: line 1 is still a header."""
    path = tmp_path / "t.jsonl"
    writer = TranscriptWriter(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    writer.header(
        Header(version=1, started="now", command=["srv", "\ud800"], cwd="/tmp/\udcff", extra={"k": "\udc80"})
    )
    writer.close()
    header = open_transcript(path).header
    assert (header.command, header.cwd, header.extra) == (
        ["srv", "\\xed\\xa0\\x80"],
        "/tmp/\\xff",
        {"k": "\\x80"},
    )

"""A redacted copy that fails to be written never deletes a path `--overwrite` was pointed at."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mcptape.errors import OutputError
from mcptape.share.copy import redact_file
from mcptape.share.rules import Rules
from mcptape.transcript.events import Event, Header
from mcptape.transcript.writer import write_transcript


def test_a_failed_overwrite_keeps_the_destination_path(tmp_path: Path) -> None:
    """`redact -o LINK --overwrite` where LINK leads to a full disk (/dev/full): an error, and LINK is
    still there (it used to be unlinked: run as root on `-o /dev/full`, the device itself was deleted)."""
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode), "/dev/full is not the device (was it deleted?)"
    src = tmp_path / "in.jsonl"
    write_transcript(src, Header(1, "now", ["srv"], "/"), [Event(0.0, "in", text="hello\n")])
    link = tmp_path / "out.jsonl"
    link.symlink_to("/dev/full")
    with pytest.raises(OutputError, match="No space left"):
        redact_file(src, link, Rules.build(), overwrite=True, environ={})
    assert link.is_symlink()

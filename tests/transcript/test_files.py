"""Opening a transcript for writing: private (0600) whether it is created or overwritten."""

from __future__ import annotations

import os
from pathlib import Path

from mcptape.transcript.files import open_output


def test_overwriting_a_readable_file_makes_it_private(tmp_path: Path) -> None:
    """`--overwrite` of a 0644 file leaves a 0600 transcript: it may hold tokens."""
    path = tmp_path / "t.jsonl"
    path.write_text("old")
    path.chmod(0o644)
    os.close(open_output(path, overwrite=True))
    assert (path.stat().st_mode & 0o777) == 0o600
    assert path.read_bytes() == b""


def test_overwriting_a_device_leaves_its_mode_alone() -> None:
    """`-o /dev/null --overwrite` must not chmod the device."""
    before = os.stat("/dev/null").st_mode
    os.close(open_output("/dev/null", overwrite=True))
    assert os.stat("/dev/null").st_mode == before

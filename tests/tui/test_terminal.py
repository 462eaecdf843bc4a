"""The real `mcptape view` process on a real pseudo-terminal: the bytes it writes are safe."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import console_script
from tests.tui.helpers import run_in_pty
from tests.tui.transcripts import hostile_session

pytestmark = pytest.mark.slow


def test_a_hostile_transcript_never_drives_the_terminal(tmp_path: Path) -> None:
    """OSC title and hyperlink sequences and bells from the server reach the terminal only escaped."""
    path = hostile_session(tmp_path / "hostile.jsonl")
    code, drawn = run_in_pty([console_script(), "view", str(path)], b"verdict: 2 findings", b"q")
    assert code == 0
    assert b"\x1b]0;pwned" not in drawn and b"\x1b]8;;http://evil.example/" not in drawn
    own = re.sub(rb"\x1b\]22;[a-z-]*\x07", b"", drawn)  # Textual's own OSC 22 (pointer shape)
    assert b"\x1b]" not in own and b"\x07" not in own
    assert rb"\x1b]0;pwned\x07" in drawn and rb"\x1b[31mALERT" in drawn

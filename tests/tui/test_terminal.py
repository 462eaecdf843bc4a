"""The real `mcptape view` process on a real pseudo-terminal: the bytes it writes are safe."""

from __future__ import annotations

import os
import pty
import re
import select
import time
from pathlib import Path

import pytest

from tests.conftest import console_script
from tests.tui.transcripts import hostile_session

pytestmark = pytest.mark.slow


def run_in_pty(argv: list[str], until: bytes, keys: bytes, timeout: float = 20.0) -> tuple[int, bytes]:
    """Run `argv` on a pty, type `keys` once `until` was drawn; return (exit code, every byte drawn)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: become the viewer
        os.environ.update({"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "30"})
        os.execv(argv[0], argv)
    drawn = b""
    sent = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                drawn += chunk
            if not sent and until in drawn:
                os.write(fd, keys)
                sent = True
    finally:
        if not sent:
            os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert sent, f"{until!r} never appeared on the terminal"
    return os.waitstatus_to_exitcode(status), drawn


def test_a_hostile_transcript_never_drives_the_terminal(tmp_path: Path) -> None:
    """OSC title and hyperlink sequences and bells from the server reach the terminal only escaped."""
    path = hostile_session(tmp_path / "hostile.jsonl")
    code, drawn = run_in_pty([console_script(), "view", str(path)], b"verdict: 2 findings", b"q")
    assert code == 0
    assert b"\x1b]0;pwned" not in drawn and b"\x1b]8;;http://evil.example/" not in drawn
    own = re.sub(rb"\x1b\]22;[a-z-]*\x07", b"", drawn)  # Textual's own OSC 22 (pointer shape)
    assert b"\x1b]" not in own and b"\x07" not in own
    assert rb"\x1b]0;pwned\x07" in drawn and rb"\x1b[31mALERT" in drawn

"""`view --follow DIR/` follows the newest session of a folder, and each newer one as it appears."""

from __future__ import annotations

import os
import pty
import select
import time
from pathlib import Path

import pytest

from mcptape.commands.view import _new_sessions
from mcptape.transcript.index import TranscriptIndex
from mcptape.tui.app import ViewerApp
from tests.conftest import console_script
from tests.tui.conftest import settle, wait_for
from tests.tui.transcripts import handshake, write

pytestmark = pytest.mark.slow


async def test_a_session_appearing_in_the_folder_takes_the_viewer_there(tmp_path: Path) -> None:
    """The app asks the folder at each poll; a new file there ends it with that file to open next."""
    first = write(tmp_path / "a-first.jsonl", handshake())
    app = ViewerApp(TranscriptIndex(first), follow=True, poll=0.05, newer=_new_sessions(tmp_path))
    async with app.run_test(size=(130, 30)) as pilot:
        await settle(pilot)
        assert app.switch_to is None  # the file it shows is not news
        second = write(tmp_path / "b-second.jsonl", handshake())
        await wait_for(pilot, lambda: app.switch_to is not None)
    assert app.switch_to == second


def test_two_sessions_written_side_by_side_do_not_take_the_viewer_back_and_forth(tmp_path: Path) -> None:
    """Only files that appeared since the last look count: the one already known is never news."""
    write(tmp_path / "one.jsonl", handshake())
    newer = _new_sessions(tmp_path)
    assert newer() is None
    two = write(tmp_path / "two.jsonl", handshake())
    assert newer() == two
    with open(tmp_path / "one.jsonl", "ab") as fh:  # the old one grows: still not news
        fh.write(b'{"t": 1.0, "ch": "err", "data": "later\\n"}\n')
    assert newer() is None


def test_view_follow_on_a_folder_opens_each_new_session_on_a_real_terminal(tmp_path: Path) -> None:
    """The real command on a pty: the newest session is shown, then the one recorded after it."""
    write(tmp_path / "mcptape-first.jsonl", handshake())
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update({"TERM": "xterm-256color", "COLUMNS": "120", "LINES": "30"})
        os.execv(console_script(), [console_script(), "view", "--follow", f"{tmp_path}/"])
    drawn = b""
    step = status = 0
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and step < 3:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    break
                drawn += chunk
            if step == 0 and b"mcptape-first.jsonl" in drawn:
                write(tmp_path / "mcptape-second.jsonl", handshake())
                step = 1
            elif step == 1 and b"mcptape-second.jsonl" in drawn:
                os.write(fd, b"q")
                step = 2
            elif step == 2:
                done, status = os.waitpid(pid, os.WNOHANG)  # keep draining the pty meanwhile
                step = 3 if done else 2
        if step == 2:  # the viewer closed the terminal on its way out
            _, status = os.waitpid(pid, 0)
            step = 3
    finally:
        if step < 3:
            os.kill(pid, 9)
            _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert step == 3, f"stopped at step {step}"
    assert os.waitstatus_to_exitcode(status) == 0

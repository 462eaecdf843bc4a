"""Sessions that end oddly (a grandchild keeps the pipes, the server never starts): nothing leaks."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from mcptape.errors import SpawnError
from mcptape.harness import Harness
from mcptape.recorder import session as session_module

pytestmark = pytest.mark.slow

# The server forks a grandchild that keeps stdout, writes one late line after a second, and exits.
LINGERING = """\
import os, time
if os.fork() == 0:
    time.sleep(1.0)
    os.write(1, b"late\\n")
    time.sleep(0.2)
    os._exit(0)
os._exit(0)
"""


def test_a_lingering_grandchild_never_writes_into_fds_reused_after_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the drain gives up on a grandchild, its late bytes reach no file opened afterwards."""
    monkeypatch.setattr(session_module, "DRAIN_AFTER_EXIT", 0.2)
    h = Harness([sys.executable, "-c", LINGERING], tmp_path / "a.jsonl", http_sink=False)
    with h:
        assert h.wait_exit(10)
    assert h.session.child is not None
    pgid = h.session.child.pid
    # Take every low fd number the finished session freed, as the next session's files would.
    later = [os.open(tmp_path / f"later{i}", os.O_RDWR | os.O_CREAT, 0o600) for i in range(64)]
    try:
        time.sleep(1.5)  # the grandchild writes its late line, then exits
        written = {i: os.fstat(fd).st_size for i, fd in enumerate(later) if os.fstat(fd).st_size}
        assert written == {}, "records of a finished session were written into files opened later"
    finally:
        for fd in later:
            os.close(fd)
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass


def test_the_drain_after_exit_is_one_deadline_for_all_channels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grandchild holding stdout, stderr and the tap delays the end once, not once per channel."""
    monkeypatch.setattr(session_module, "DRAIN_AFTER_EXIT", 1.0)
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(6)\n    os._exit(0)\nos._exit(0)"
    h = Harness([sys.executable, "-c", code], tmp_path / "a.jsonl", http_sink=False)
    h.start()
    assert h.session.child is not None
    pgid = h.session.child.pid
    try:
        assert h.wait_exit(10)
        started = time.monotonic()
        h.stop()
        took = time.monotonic() - started
    finally:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
    # one shared 1 s deadline, not 1 s per channel (3 s): the margin absorbs a loaded machine
    assert took < 2.4, f"stop took {took:.2f}s: the 1s drain was waited once per channel"


def test_a_harness_whose_server_cannot_start_leaks_no_fd(tmp_path: Path) -> None:
    """A missing command raises SpawnError, and every pipe the harness had opened is closed again."""
    before = set(os.listdir("/proc/self/fd"))
    for i in range(3):
        with pytest.raises(SpawnError):
            Harness(["/nonexistent/mcptape-server"], tmp_path / f"{i}.jsonl", http_sink=False).start()
    assert set(os.listdir("/proc/self/fd")) - before == set()


def test_a_missing_working_directory_is_named_as_such(tmp_path: Path) -> None:
    """A harness given a cwd that does not exist says so, rather than `command not found`."""
    missing = tmp_path / "missing"
    with pytest.raises(SpawnError, match=r"working directory .*missing.* does not exist"):
        Harness(["true"], tmp_path / "t.jsonl", http_sink=False, cwd=str(missing)).start()

"""mcptape's own stdio in unusual states: non-blocking, closed, or inherited with SIGCHLD ignored."""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcptape.transcript import open_transcript
from tests.conftest import SERVERS, console_script

pytestmark = pytest.mark.slow

ECHO = [sys.executable, str(SERVERS / "lifecycle.py"), "echo-lines"]


def nonblocking(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


def channel(path: Path, ch: str) -> bytes:
    return b"".join(e.data for e in open_transcript(path).events() if e.ch == ch)


def test_nonblocking_stdin_with_nothing_to_read_is_not_taken_for_eof(tmp_path: Path) -> None:
    """A client whose stdin pipe is O_NONBLOCK and quiet for a while still gets its line echoed."""
    transcript = tmp_path / "t.jsonl"
    r, w = os.pipe()
    nonblocking(r)
    proc = subprocess.Popen(
        [console_script(), "record", "-q", "-o", str(transcript), "--", *ECHO],
        stdin=r,
        stdout=subprocess.PIPE,
    )
    os.close(r)
    time.sleep(0.3)  # mcptape reads an empty non-blocking pipe: EAGAIN, not end of input
    try:
        os.write(w, b"one\n")
    finally:
        os.close(w)
    out, _ = proc.communicate(timeout=20)
    assert out == b"one\n"
    assert proc.returncode == 0
    assert channel(transcript, "in") == b"one\n"


def test_nonblocking_stdout_that_fills_up_loses_no_bytes(tmp_path: Path) -> None:
    """A client that reads slowly from an O_NONBLOCK stdout pipe still receives every byte."""
    transcript = tmp_path / "t.jsonl"
    r, w = os.pipe()
    nonblocking(w)
    size = 3 << 20  # more than any pipe buffer: mcptape's writes hit EAGAIN
    code = f"import os\nfor _ in range({size >> 16}): os.write(1, b'x' * 65535 + b'\\n')"
    proc = subprocess.Popen(
        [console_script(), "record", "-q", "-o", str(transcript), "--", sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=w,
    )
    os.close(w)
    time.sleep(0.3)
    got = bytearray()
    while chunk := os.read(r, 1 << 20):
        got += chunk
    os.close(r)
    assert proc.wait(20) == 0
    assert len(got) == size
    assert len(channel(transcript, "out")) == size


def test_closed_stdout_and_stderr_keep_server_bytes_out_of_the_transcript_file(tmp_path: Path) -> None:
    """Started with fds 1 and 2 closed, mcptape records the server's output as events, never raw."""
    transcript = tmp_path / "t.jsonl"
    code = "import sys\nprint('hello')\nprint('warn', file=sys.stderr)"
    argv = [console_script(), "record", "-q", "-o", str(transcript), "--", sys.executable, "-c", code]
    proc = subprocess.run(
        ["sh", "-c", 'exec "$@" >&- 2>&-', "sh", *argv], stdin=subprocess.DEVNULL, timeout=20
    )
    assert proc.returncode == 0
    t = open_transcript(transcript)
    events = list(t.events())
    assert t.problems == []
    assert b"".join(e.data for e in events if e.ch == "out") == b"hello\n"
    assert b"".join(e.data for e in events if e.ch == "err") == b"warn\n"


def test_closed_stderr_without_quiet_still_records_and_passes_the_exit_code(tmp_path: Path) -> None:
    """No `-q` and fd 2 closed: announcing the transcript must not crash mcptape after the spawn."""
    transcript = tmp_path / "t.jsonl"
    argv = [
        console_script(),
        "record",
        "-o",
        str(transcript),
        "--",
        sys.executable,
        "-c",
        "print('hi'); exit(3)",
    ]
    proc = subprocess.run(
        ["sh", "-c", 'exec "$@" 2>&-', "sh", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=False,
        stdout=subprocess.PIPE,
        timeout=20,
    )
    assert proc.stdout == b"hi\n"
    assert proc.returncode == 3
    exits = [e.fields for e in open_transcript(transcript).events() if e.ch == "exit"]
    assert exits == [{"code": 3, "signal": None}]


def test_exit_code_survives_a_parent_that_ignores_sigchld(tmp_path: Path) -> None:
    """Started with SIGCHLD ignored (children auto-reaped), mcptape still reports the server's exit 3."""
    transcript = tmp_path / "t.jsonl"
    proc = subprocess.Popen(
        [console_script(), "record", "-q", "-o", str(transcript), "--", sys.executable, "-c", "exit(3)"],
        stdin=subprocess.DEVNULL,
        preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN),
    )
    assert proc.wait(20) == 3
    exits = [e.fields for e in open_transcript(transcript).events() if e.ch == "exit"]
    assert exits == [{"code": 3, "signal": None}]


def test_server_closing_its_stdout_early_gives_the_client_eof_at_once(tmp_path: Path) -> None:
    """A server that closes stdout and keeps running: the client sees EOF then, not when it exits."""
    transcript = tmp_path / "t.jsonl"
    code = "import os, time\nos.write(1, b'bye\\n')\nos.close(1)\ntime.sleep(2)"
    proc = subprocess.Popen(
        [console_script(), "record", "-q", "-o", str(transcript), "--", sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    assert proc.stdout is not None
    start = time.monotonic()
    assert proc.stdout.read() == b"bye\n"
    eof_after = time.monotonic() - start
    assert proc.wait(20) == 0
    assert eof_after < 1.0, f"the client saw EOF only {eof_after:.1f}s later, when the server exited"
    assert channel(transcript, "out") == b"bye\n"


def test_infinite_shutdown_timeout_waits_without_a_traceback(tmp_path: Path) -> None:
    """`--shutdown-timeout inf` (click accepts it) means never SIGTERM, not a crashed shutdown clock."""
    transcript = tmp_path / "t.jsonl"
    server = [sys.executable, str(SERVERS / "lifecycle.py"), "ignore-eof"]
    argv = [
        console_script(),
        "record",
        "-q",
        "-o",
        str(transcript),
        "--shutdown-timeout",
        "inf",
        "--",
        *server,
    ]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"stdin closed\n"
    time.sleep(0.3)
    assert proc.poll() is None, "the server was stopped although the timeout is infinite"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 128 + signal.SIGTERM
    assert err == b""


def test_full_transcript_disk_keeps_forwarding_and_says_so_in_one_line(tmp_path: Path) -> None:
    """Every transcript write fails with ENOSPC (/dev/full): the session goes on, one line on stderr."""
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode), "/dev/full is not the device (was it deleted?)"
    proc = subprocess.run(
        [console_script(), "record", "-q", "--overwrite", "-o", "/dev/full", "--", *ECHO],
        input=b"one\ntwo\n",
        capture_output=True,
        timeout=20,
    )
    assert (proc.returncode, proc.stdout) == (0, b"one\ntwo\n")
    assert proc.stderr.count(b"\n") == 1
    assert b"/dev/full stopped being written" in proc.stderr and b"No space left" in proc.stderr


def test_a_deleted_working_directory_does_not_crash_the_recording(tmp_path: Path) -> None:
    """Started in a directory that no longer exists (the server runs fine there), mcptape records."""
    transcript = tmp_path / "t.jsonl"
    gone = tmp_path / "gone"
    gone.mkdir()
    argv = [console_script(), "record", "-q", "-o", str(transcript), "--", *ECHO]
    proc = subprocess.run(
        ["sh", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", str(gone), *argv],
        input=b"one\n",
        capture_output=True,
        timeout=20,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"one\n", b"")
    assert channel(transcript, "out") == b"one\n"


def test_a_client_that_closed_its_end_of_stderr_still_gets_the_session(tmp_path: Path) -> None:
    """stderr is a pipe nobody reads any more (EPIPE): mcptape's own announcement must not kill it."""
    transcript = tmp_path / "t.jsonl"
    r, w = os.pipe()
    os.close(r)
    try:
        proc = subprocess.run(
            [console_script(), "record", "-o", str(transcript), "--", *ECHO],
            input=b"one\n",
            stdout=subprocess.PIPE,
            stderr=w,
            timeout=20,
        )
    finally:
        os.close(w)
    assert (proc.returncode, proc.stdout) == (0, b"one\n")
    assert channel(transcript, "in") == b"one\n"


def test_a_slow_client_gets_every_byte_a_server_wrote_before_exiting(tmp_path: Path) -> None:
    """The server writes 2.5 MiB (what the pipes and the pump hold) and exits; the client starts
    reading 3s later (past the 2s drain): nothing is lost, as nothing would be on a direct pipe."""
    transcript = tmp_path / "t.jsonl"
    code = "import os\nos.write(1, b'x' * (5 << 19) + b'\\nend\\n')"
    proc = subprocess.Popen(
        [console_script(), "record", "-q", "-o", str(transcript), "--", sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    time.sleep(3.0)
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert len(out) == (5 << 19) + 5 and out.endswith(b"\nend\n")
    assert len(channel(transcript, "out")) == len(out)


def test_a_signal_ends_the_wait_for_a_client_that_does_not_read(tmp_path: Path) -> None:
    """The server exited, the client reads nothing: mcptape waits for it until it is sent SIGTERM."""
    transcript = tmp_path / "t.jsonl"
    code = "import os\nos.write(1, b'x' * (5 << 19))"
    proc = subprocess.Popen(
        [console_script(), "record", "-q", "-o", str(transcript), "--", sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
    )
    time.sleep(2.5)
    assert proc.poll() is None, "mcptape gave up on bytes its client had not read yet"
    proc.send_signal(signal.SIGTERM)
    start = time.monotonic()
    assert proc.wait(10) == 0
    assert time.monotonic() - start < 3.0  # at once, not after the client reads or a timeout
    assert proc.stdout is not None
    proc.stdout.close()

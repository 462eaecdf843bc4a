"""A server does not outlive its recorder: when `mcptape record` dies, even by SIGKILL, the
server's process group gets the recorder's own shutdown order (wait, SIGTERM, wait, SIGKILL)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import console_script
from tests.recorder.processes import (
    eventually,
    group,
    running,
)

pytestmark = pytest.mark.slow

# Prints its pid on stdout, then behaves as MODE says. LOG gets the name of each signal it notes.
SERVER = r"""
import os, signal, sys, time
log, mode = sys.argv[1:3]

def note(signum, _frame):
    with open(log, "a") as f:
        f.write(signal.Signals(signum).name + "\n")
    if mode == "noting":
        os._exit(0)

if mode in ("stubborn", "noting"):
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, note)
os.write(1, b"%d\n" % os.getpid())
if mode == "exit3-at-eof":
    sys.stdin.buffer.read()
    sys.exit(3)
while True:  # never reads stdin, never writes again
    time.sleep(60)
"""


class Run:
    """A recorder in front of the test server, and what the test needs to look at it."""

    def __init__(self, proc: subprocess.Popen[bytes], server: int, log: Path) -> None:
        self.proc = proc
        self.server = server
        self.log = log

    def notes(self) -> list[str]:
        return self.log.read_text().split() if self.log.exists() else []


@pytest.fixture
def record(tmp_path: Path) -> Iterator[Callable[..., Run]]:
    """Start `mcptape record --shutdown-timeout T -- python SERVER MODE`; kill what is left at the end."""
    runs: list[Run] = []
    script = tmp_path / "server.py"
    script.write_text(SERVER)

    def start(mode: str, timeout: str = "0.3", process_group: int | None = None) -> Run:
        log = tmp_path / f"signals-{len(runs)}.txt"
        proc = subprocess.Popen(
            [
                console_script(),
                "record",
                "-q",
                "--shutdown-timeout",
                timeout,
                "-o",
                str(tmp_path / f"t{len(runs)}.jsonl"),
                "--",
                sys.executable,
                str(script),
                str(log),
                mode,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            process_group=process_group,
        )
        assert proc.stdout is not None
        run = Run(proc, int(proc.stdout.readline()), log)
        runs.append(run)
        return run

    yield start
    for run in runs:
        run.proc.kill()
        run.proc.communicate()
        try:
            os.killpg(run.server, signal.SIGKILL)
        except OSError:
            pass


def test_a_server_that_ignores_stdin_is_ended_when_the_recorder_is_sigkilled(
    record: Callable[..., Run],
) -> None:
    """A server that neither reads nor writes is gone soon after a SIGKILL of the recorder."""
    run = record("deaf")
    run.proc.kill()
    eventually(lambda: not running(run.server))
    eventually(lambda: group(run.server) == [])  # the watchdog follows within a tick


def test_a_server_that_ignores_sigterm_gets_sigkill(record: Callable[..., Run]) -> None:
    """After a SIGKILLed recorder, a server that survives SIGTERM is ended with SIGKILL."""
    run = record("stubborn")
    run.proc.kill()
    eventually(lambda: not running(run.server))
    assert run.notes() == ["SIGTERM"]
    eventually(lambda: group(run.server) == [])  # SIGKILL for the whole group, the watchdog included


def test_sigterm_comes_only_after_the_shutdown_timeout(record: Callable[..., Run]) -> None:
    """The server gets `--shutdown-timeout` seconds to exit after the recorder died, as after a
    client closed its stdin, before SIGTERM."""
    run = record("noting", timeout="1")
    start = time.monotonic()
    run.proc.kill()
    eventually(lambda: run.notes() != [])
    assert time.monotonic() - start >= 1.0
    assert run.notes() == ["SIGTERM"]


def test_a_normal_session_leaves_nothing_running_and_kills_nothing(record: Callable[..., Run]) -> None:
    """The client closes stdin, the server exits 3: record exits 3, and no watchdog is left."""
    run = record("exit3-at-eof")
    assert len(group(run.server)) == 2  # the server and its watchdog
    _, err = run.proc.communicate(timeout=10)
    assert (run.proc.returncode, err) == (3, b"")
    assert group(run.server) == []
    assert run.notes() == []


def test_a_server_killed_by_the_shutdown_order_leaves_nothing_running(record: Callable[..., Run]) -> None:
    """The recorder's own SIGKILL of the server's group (the watchdog is in it) ends the session as before."""
    run = record("stubborn")
    run.proc.communicate(timeout=10)
    assert run.proc.returncode == 128 + signal.SIGKILL
    assert run.notes() == ["SIGTERM"]
    assert group(run.server) == []


def test_the_watchdog_holds_no_pipe_of_the_client_and_not_the_transcript(record: Callable[..., Run]) -> None:
    """The watchdog's fds are its own pipe and /dev/null: nothing of the client's, no transcript."""
    run = record("deaf")
    (watchdog,) = [pid for pid in group(run.server) if pid != run.server]
    fds = {fd: os.readlink(f"/proc/{watchdog}/fd/{fd}") for fd in os.listdir(f"/proc/{watchdog}/fd")}
    assert sorted(fds) == ["0", "1", "2"]
    assert fds["0"].startswith("pipe:") and fds["1"] == fds["2"] == os.devnull
    recorder_fds = {
        os.readlink(f"/proc/{run.proc.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{run.proc.pid}/fd")
    }
    assert fds["0"] in recorder_fds  # the recorder holds the other end


def test_the_client_gets_eof_at_once_when_the_recorder_is_sigkilled(record: Callable[..., Run]) -> None:
    """A client reading the recorder's stdout and stderr gets EOF at the recorder's death, though
    the watchdog still waits out a long shutdown timeout."""
    run = record("deaf", timeout="30")
    assert run.proc.stdout is not None and run.proc.stderr is not None
    run.proc.kill()
    for stream in (run.proc.stdout, run.proc.stderr):
        ready, _, _ = select.select([stream], [], [], 5.0)
        assert ready and stream.read() == b""
    assert running(run.server) and len(group(run.server)) > 1  # the watchdog waits out its 30 s


def test_signals_sent_to_the_recorders_group_do_not_end_the_watchdog(record: Callable[..., Run]) -> None:
    """Ctrl-C, a hangup or SIGTERM sent to the recorder's whole group (a terminal's foreground job)
    are forwarded to the server once; the watchdog survives them and still ends the server later."""
    run = record("stubborn", process_group=0)
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        os.killpg(run.proc.pid, signum)
        eventually(lambda: run.notes()[-1:] == [signum.name])  # noqa: B023 - called at once
    assert len(group(run.server)) == 2
    run.proc.kill()
    eventually(lambda: not running(run.server))
    assert run.notes() == ["SIGINT", "SIGHUP", "SIGTERM", "SIGTERM"]


def test_an_infinite_shutdown_timeout_starts_no_watchdog(record: Callable[..., Run]) -> None:
    """With `--shutdown-timeout inf` the recorder never signals the server, and neither does a watchdog."""
    run = record("deaf", timeout="inf")
    assert group(run.server) == [run.server]


LEAVER = r"""
import os, sys, time
os.setpgid(0, os.getpgid(os.getppid()))  # leave the group mcptape made for it (join mcptape's)
os.write(1, b"%d\n" % os.getpid())
while True:  # ignores stdin EOF; SIGTERM (default action) ends it
    time.sleep(60)
"""


def test_a_server_that_left_its_group_still_gets_the_shutdown_order(tmp_path: Path) -> None:
    """The watchdog keeps the server's old group alive: SIGTERM must still reach the server itself."""
    script = tmp_path / "leaver.py"
    script.write_text(LEAVER)
    proc = subprocess.Popen(
        [
            console_script(),
            "record",
            "-q",
            "--shutdown-timeout",
            "0.3",
            "-o",
            str(tmp_path / "t.jsonl"),
            "--",
            sys.executable,
            str(script),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # the server joins this session's only other group: the recorder's
    )
    assert proc.stdout is not None and proc.stdin is not None
    server = int(proc.stdout.readline())
    try:
        proc.stdin.close()
        try:
            code = proc.wait(timeout=8)
        except subprocess.TimeoutExpired:
            code = None
        assert code == 128 + signal.SIGTERM, "record still waiting for a server it never signalled"
    finally:
        for pid in (server, proc.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        proc.wait()

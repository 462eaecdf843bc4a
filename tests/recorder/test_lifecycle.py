"""Exit codes, signals and the MCP shutdown order pass through the recorder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcptape.transcript import open_transcript
from tests.conftest import SERVERS, console_script


def record(tmp: Path, mode: str, *extra: str) -> tuple[subprocess.Popen[bytes], Path]:
    transcript = tmp / f"{mode}.jsonl"
    proc = subprocess.Popen(
        [
            console_script(),
            "record",
            "-q",
            "-o",
            str(transcript),
            *extra,
            "--",
            sys.executable,
            str(SERVERS / "lifecycle.py"),
            mode,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    return proc, transcript


def exit_event(path: Path) -> dict[str, object]:
    events = [e for e in open_transcript(path).events() if e.ch == "exit"]
    assert len(events) == 1
    return dict(events[0].fields or {})


def test_exit_code_passes_through(tmp_path: Path) -> None:
    """A server that exits 3 makes mcptape exit 3, with an `exit` event saying so."""
    proc, transcript = record(tmp_path, "exit3")
    proc.communicate(timeout=30)
    assert proc.returncode == 3
    assert exit_event(transcript) == {"code": 3, "signal": None}


def test_death_by_signal_becomes_128_plus_n(tmp_path: Path) -> None:
    """A server killed by SIGTERM makes mcptape exit 143, and the `exit` event names the signal."""
    proc, transcript = record(tmp_path, "selfterm")
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM
    assert exit_event(transcript) == {"code": None, "signal": signal.SIGTERM}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_signals_are_forwarded_to_the_server(tmp_path: Path, signum: signal.Signals) -> None:
    """SIGINT, SIGTERM and SIGHUP sent to mcptape reach the server, exactly once."""
    proc, transcript = record(tmp_path, "trap")
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert err == f"got {signum.name}\n".encode()
    assert proc.returncode == 0
    assert exit_event(transcript)["code"] == 0


def test_stdin_close_then_sigterm_when_the_server_lingers(tmp_path: Path) -> None:
    """Client closes stdin; a server that keeps running gets SIGTERM after the shutdown timeout."""
    proc, transcript = record(tmp_path, "ignore-eof", "--shutdown-timeout", "0.3")
    out, _ = proc.communicate(b"", timeout=30)
    assert out == b"stdin closed\n"
    assert proc.returncode == 128 + signal.SIGTERM
    notes = [e.get("msg") for e in open_transcript(transcript).events() if e.ch == "note"]
    assert any("SIGTERM" in str(n) for n in notes)


def test_sigkill_when_the_server_ignores_sigterm(tmp_path: Path) -> None:
    """A server that ignores SIGTERM too is killed with SIGKILL: the order is wait, TERM, KILL."""
    proc, transcript = record(tmp_path, "ignore-term", "--shutdown-timeout", "0.3")
    proc.communicate(b"", timeout=30)
    assert proc.returncode == 128 + signal.SIGKILL
    assert exit_event(transcript)["signal"] == signal.SIGKILL


def test_recorder_killed_mid_stream_leaves_a_readable_transcript(tmp_path: Path) -> None:
    """SIGKILL on the recorder during a flood: the reader opens everything written up to then."""
    proc, transcript = record(tmp_path, "flood")
    assert proc.stdout is not None
    received = proc.stdout.read(2_000_000)
    deadline = time.monotonic() + 20
    while transcript.stat().st_size < 500_000 and time.monotonic() < deadline:
        time.sleep(0.01)  # the flood is still running: kill while records are being written
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    time.sleep(0.1)
    t = open_transcript(transcript)
    out = b"".join(e.data for e in t.events() if e.ch == "out")
    assert len(out) > 100_000
    expected = b"".join(b"line %08d %s\n" % (i, b"x" * 100) for i in range(len(out) // 114 + 2))
    assert expected.startswith(out), "every recorded byte is the server's, in order"
    assert received[: min(len(received), len(out))] == out[: min(len(received), len(out))]


def test_client_that_vanishes_does_not_hang_the_server(tmp_path: Path) -> None:
    """The client closes stdout and stdin: the server sees EOF, exits, the recording ends."""
    proc, transcript = record(tmp_path, "echo-lines")
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"one\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"one\n"
    proc.stdout.close()
    proc.stdin.write(b"two\n")
    proc.stdin.close()
    assert proc.wait(30) == 0
    ins = b"".join(e.data for e in open_transcript(transcript).events() if e.ch == "in")
    assert ins == b"one\ntwo\n"

"""A signal that reaches mcptape while it is still starting up is forwarded, not fatal."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from mcptape.transcript import open_transcript
from tests.conftest import SERVERS, console_script

# Traps SIGTERM, then signals mcptape at once: mcptape is still importing its writer at that point.
EARLY = (
    'trap "echo got TERM >&2; exit 0" TERM; kill -TERM $PPID; '
    "i=0; while [ $i -lt 40 ]; do sleep 0.05; i=$((i+1)); done; echo not-forwarded >&2; exit 9"
)


def test_sigterm_during_start_up_reaches_the_server(tmp_path: Path) -> None:
    """SIGTERM sent right after the spawn is forwarded to the server, whose exit code mcptape returns."""
    transcript = tmp_path / "t.jsonl"
    proc = subprocess.run(
        [console_script(), "record", "-q", "-o", str(transcript), "--", "sh", "-c", EARLY],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
    )
    assert proc.returncode == 0
    assert b"got TERM\n" in proc.stderr and b"not-forwarded" not in proc.stderr
    exits = [e.fields for e in open_transcript(transcript).events() if e.ch == "exit"]
    assert exits == [{"code": 0, "signal": None}]


def test_a_signal_ignored_by_mcptapes_parent_stays_ignored(tmp_path: Path) -> None:
    """Under `nohup` (SIGHUP ignored) a hangup reaches neither mcptape nor the server, as without mcptape."""
    transcript = tmp_path / "t.jsonl"
    proc = subprocess.Popen(
        [
            console_script(),
            "record",
            "-q",
            "-o",
            str(transcript),
            "--",
            sys.executable,
            str(SERVERS / "lifecycle.py"),
            "trap",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGHUP)
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert (proc.returncode, err) == (0, b"got SIGTERM\n")

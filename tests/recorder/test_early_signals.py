"""A signal that reaches mcptape while it is still starting up is forwarded, not fatal."""

from __future__ import annotations

import subprocess
from pathlib import Path

from mcptape.transcript import open_transcript
from tests.conftest import console_script

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

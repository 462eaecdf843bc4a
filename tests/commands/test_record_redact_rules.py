"""`record --redact-key` / `--redact-pattern`: user rules at record time, checked before the spawn."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcptape.commands.record import record_command
from mcptape.recorder.options import FLAGS, parse_fast
from tests.conftest import console_script

ECHO = [sys.executable, "-c", "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)"]


def test_user_rules_keep_their_values_out_of_the_transcript(tmp_path: Path) -> None:
    """A custom key and a custom pattern are redacted in both directions; the client gets real bytes."""
    out = tmp_path / "t.jsonl"
    line = (
        b'{"jsonrpc":"2.0","id":1,"method":"x",'
        b'"params":{"x_tenant":"tenant-secret-777","note":"acct-12345678"}}\n'
    )
    result = subprocess.run(
        [
            console_script(),
            "record",
            "-q",
            "--redact-key",
            "x_tenant",
            "--redact-pattern",
            "acct-[0-9]{8}",
            "-o",
            str(out),
            "--",
            *ECHO,
        ],
        input=line,
        capture_output=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == line, "the client still receives the server's exact bytes"
    recorded = out.read_bytes()
    assert b"tenant-secret-777" not in recorded
    assert b"acct-12345678" not in recorded
    assert b"[redacted:" in recorded


def test_a_bad_pattern_fails_before_the_server_starts(tmp_path: Path) -> None:
    """A malformed regex: one Error line, exit 2, and the server never ran."""
    marker = tmp_path / "ran"
    result = subprocess.run(
        [
            console_script(),
            "record",
            "--redact-pattern",
            "acct-[0-9",
            "-o",
            str(tmp_path / "t.jsonl"),
            "--",
            "touch",
            str(marker),
        ],
        capture_output=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "Error: --redact-pattern 'acct-[0-9' is not a valid regular"
    )
    assert not marker.exists()


def test_fast_path_and_click_know_the_same_options() -> None:
    """Every option of the click command is parsed by the fast path, and nothing more."""
    click_names = {name for p in record_command.params for name in p.opts if name.startswith("-")}
    assert click_names - {"-h", "--help"} == set(FLAGS)
    assert parse_fast(["--redact-key", "a", "--redact-pattern", "b", "--", "srv"]) is not None

"""The cassette's options on the command line: what is refused before anything starts, and what is
not imported when the options are not given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mcptape.recorder.options import parse_fast
from tests.conftest import ROOT, SERVERS, console_script

ECHO = [sys.executable, str(SERVERS / "fast" / "echo_tool.py")]


@pytest.mark.parametrize("via_click", [False, True])
def test_record_refuses_the_sink_and_the_cassette_together(tmp_path: Path, via_click: bool) -> None:
    """--http-sink and --http-cassette both want the server's HTTP: exit 2 before the server starts,
    on the fast path and through click alike."""
    tape = tmp_path / "t.jsonl"
    output = ["-qo", str(tape)] if via_click else ["-o", str(tape)]  # the fast path leaves `-qo` to click
    assert (parse_fast([*output, "--", "srv"]) is None) is via_click
    argv = [console_script(), "record", *output, "--http-sink", "--http-cassette", "--", *ECHO]
    done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, timeout=30)
    assert done.returncode == 2
    assert b"--http-sink and --http-cassette" in done.stderr
    assert not tape.exists()


def test_record_refuses_an_unreadable_cassette_ca_before_the_server_starts(tmp_path: Path) -> None:
    """A CA file that is not a PEM certificate: exit 2 with the file named, no transcript left."""
    bad = tmp_path / "ca.pem"
    bad.write_text("not a certificate\n")
    tape = tmp_path / "t.jsonl"
    argv = [console_script(), "record", "-o", str(tape), "--http-cassette-ca", str(bad), "--", *ECHO]
    done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith(b"Error: --http-cassette-ca: cannot load " + str(bad).encode())
    assert not tape.exists()


def test_a_cassette_ca_implies_the_cassette() -> None:
    """`--http-cassette-ca FILE` alone turns the cassette on (fast path), and is repeatable."""
    opts = parse_fast(["--http-cassette-ca", "a.pem", "--http-cassette-ca=b.pem", "--", "srv"])
    assert opts is not None and opts.http_cassette and opts.http_cassette_ca == ["a.pem", "b.pem"]
    plain = parse_fast(["--", "srv"])
    assert plain is not None and not plain.http_cassette


def test_replay_refuses_an_unknown_match_field(tmp_path: Path) -> None:
    """`replay --http-match` with a field the matcher does not know: exit 2, the fields listed."""
    tape = ROOT / "transcripts" / "sdk-echo-tool-handshake.jsonl"
    argv = [console_script(), "replay", str(tape), "--http-match", "method,uri", "--", *ECHO]
    done = subprocess.run(argv, capture_output=True, timeout=60)
    assert done.returncode == 2
    assert b"unknown field 'uri'" in done.stderr and b"header:NAME" in done.stderr


def test_neither_h11_nor_cryptography_is_imported_without_a_cassette() -> None:
    """The record path and a replay of a transcript without a cassette import neither (the record
    path starts as fast as before the option existed)."""
    code = (
        "import sys, mcptape.commands.recording, mcptape.recorder.run, mcptape.replay.api, "
        "mcptape.recorder.outbound.sideeffects, mcptape.replay.cassette, mcptape.recorder.outbound.exchange; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('h11', 'cryptography')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

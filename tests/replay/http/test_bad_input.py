"""Replay over HTTP refuses what it must not do, before any work, in one line: a URL that is not on
this machine, options it does not take, a folder; a server that never listens or stops answering
ends the replay in bounded time with the reason."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from mcptape.recorder.http.hostrewrite import is_loopback
from tests.conftest import PYTHON
from tests.recorder.http.helpers import free_port, refused_port
from tests.replay.http.helpers import Tape, mcptape, notes_server

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("127.example.com", False),
        ("10.0.0.1", False),
        ("192.0.2.7", False),
        ("example.com", False),
        ("0.0.0.0", False),
    ],
)
def test_only_loopback_is_loopback(host: str, loopback: bool) -> None:
    """An address on loopback, or `localhost`; a name that merely starts with 127. is not one."""
    assert is_loopback(host) is loopback


def test_a_url_not_on_this_machine_is_refused_before_anything_runs(auto_tape: Tape, tmp_path: Path) -> None:
    """Exit 2 and one line naming the option that allows it; no server started, nothing written."""
    marker, new = tmp_path / "started", tmp_path / "new.jsonl"
    done = mcptape(
        "replay", str(auto_tape.path), "--http-upstream", "http://192.0.2.7:8000/mcp", "-o", str(new),
        "--", PYTHON, "-c", f"open({str(marker)!r}, 'w')",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("Error: --http-upstream 'http://192.0.2.7:8000/mcp' is not on this machine")
    assert "--http-allow-remote" in done.stderr and "Traceback" not in done.stderr
    assert not marker.exists() and not new.exists() and done.stdout == ""


def test_a_server_that_exits_before_listening_is_named(auto_tape: Tape, tmp_path: Path) -> None:
    """The command exits at once: exit 2, how it ended and its last stderr line, without waiting the
    30 s."""
    started = time.monotonic()
    done = mcptape(
        "replay", str(auto_tape.path), "--http-upstream", f"http://127.0.0.1:{free_port()}/mcp",
        "-o", str(tmp_path / "new.jsonl"), "--", PYTHON, "-c", "import sys; sys.exit('no config\\x1b[2J')",
    )  # fmt: skip
    assert done.returncode == 2 and "the server exited (code 1) before accepting connections" in done.stderr
    assert "its stderr ends: no config\\x1b[2J" in done.stderr  # its last line, escaped
    assert time.monotonic() - started < 20


def test_a_server_that_stops_answering_ends_the_replay_in_bounded_time(
    auto_tape: Tape, tmp_path: Path
) -> None:
    """`--hang` never answers greet: after --step-timeout the replay stops, says which request was
    not answered and how far it got, and the sessions are different."""
    started = time.monotonic()
    done = mcptape(
        "replay", str(auto_tape.path), "--http-upstream", auto_tape.url, "--step-timeout", "1",
        "-o", str(tmp_path / "new.jsonl"), "--", *notes_server(auto_tape.port, "--hang"),
    )  # fmt: skip
    assert done.returncode == 1
    assert "error (step-timeout): no response to request 2 within 1s" in done.stdout
    assert "replay stopped after 2 of 8 requests" in done.stdout
    assert done.stdout.rstrip().endswith("different")
    assert time.monotonic() - started < 20


def test_nothing_listening_without_a_command_is_different_not_a_hang(auto_tape: Tape, tmp_path: Path) -> None:
    """No server at the URL and no CMD: the proxy answers each request 502, the replay ends at once
    and every response is missing from the new session."""
    with refused_port() as port:
        done = mcptape(
            "replay", str(auto_tape.path), "--http-upstream", f"http://127.0.0.1:{port}/mcp",
            "-o", str(tmp_path / "new.jsonl"),
        )  # fmt: skip
    assert done.returncode == 1 and "no answer in the new session" in done.stdout
    assert done.stdout.rstrip().endswith("different")


def test_a_port_already_taken_is_refused_when_a_command_would_start_the_server(
    auto_tape: Tape, tmp_path: Path
) -> None:
    """Something else listens at the URL: the replay would reach it, not the build CMD starts, so
    exit 2 and one line; CMD never runs."""
    marker = tmp_path / "started"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = mcptape(
            "replay", str(auto_tape.path), "--http-upstream", f"http://127.0.0.1:{port}/mcp",
            "-o", str(tmp_path / "new.jsonl"), "--", PYTHON, "-c", f"open({str(marker)!r}, 'w')",
        )  # fmt: skip
    assert done.returncode == 2
    assert f"Error: something already accepts connections on 127.0.0.1:{port}" in done.stderr
    assert not marker.exists()

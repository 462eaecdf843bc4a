"""The pytest fixture: a test gets the command line of a served transcript for its client, and
fails when the client asked something the recording cannot answer."""

from __future__ import annotations

import subprocess
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tests.conftest import NESTED_PYTEST
from tests.serve.conftest import Recorded
from tests.serve.helpers import SDK_CLIENT

pytestmark = pytest.mark.slow

TESTS = """
import subprocess, sys

def run(server, *args):
    argv = [sys.executable, {client!r}, *args, *server.command]
    return subprocess.run(argv, capture_output=True, timeout=60)

def test_the_recorded_calls(mcptape_serve):
    server = mcptape_serve({tape!r})
    assert run(server, "--together").returncode == 0

def test_an_unrecorded_call(mcptape_serve):
    server = mcptape_serve({tape!r})
    assert run(server, "--call", 'get_current_time={{"timezone": "Asia/Tokyo"}}').returncode == 0

def test_never_started(mcptape_serve):
    mcptape_serve({tape!r})

def test_never_started_on_purpose(mcptape_serve):
    mcptape_serve({tape!r}, require_started=False)
"""


def plugin_args() -> list[str]:
    """`-p` when the installed metadata predates the entry point (an editable install not redone)."""
    names = {ep.name for ep in entry_points(group="pytest11")}
    return [] if "mcptape-serve" in names else ["-p", "mcptape.serve.pytest_plugin"]


def test_the_fixture_passes_a_served_session_and_fails_an_unmatched_request(
    time_recording: Recorded, tmp_path: Path
) -> None:
    """The recorded calls pass; an unrecorded call fails its test with the request and how it
    differs from the nearest recorded one; a server never started fails unless allowed."""
    (tmp_path / "test_client.py").write_text(
        TESTS.format(client=str(SDK_CLIENT), tape=str(time_recording.path))
    )
    proc = subprocess.run(
        [
            *NESTED_PYTEST,
            *plugin_args(),
            "-q",
            "-rf",
            "test_client.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    assert "2 failed, 2 passed" in out
    assert "FAILED test_client.py::test_an_unrecorded_call" in out
    assert "no recorded answer for tools/call (client id 3)" in out
    assert 'differs at params.arguments.timezone: "UTC" -> "Asia/Tokyo"' in out
    assert "FAILED test_client.py::test_never_started - AssertionError: mcptape serve:" in out
    assert "was never started" in out

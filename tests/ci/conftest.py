"""Real transcripts for the CI-format tests: the demo's sessions, recorded through `mcptape record`
with the official SDK client against the bundled server (a clean build and a buggy one)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import console_script


@pytest.fixture(scope="session")
def tapes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with demo-clean.jsonl, demo-buggy.jsonl (noise on stdout, an action before its
    authorisation check) and demo-replay.jsonl."""
    folder = tmp_path_factory.mktemp("ci") / "tapes"
    done = subprocess.run(
        [console_script(), "demo", "--no-view", "-o", str(folder)],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert (folder / "demo-buggy.jsonl").exists(), done.stdout.decode() + done.stderr.decode()
    return folder

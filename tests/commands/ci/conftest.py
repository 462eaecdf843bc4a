"""Real transcripts for the CI-format tests: the demo's sessions, recorded through `mcptape record`
with the official SDK client against the bundled server (a clean build and a buggy one)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def tapes(demo_transcripts: Path) -> Path:
    """A folder with demo-clean.jsonl, demo-buggy.jsonl (noise on stdout, an action before its
    authorisation check) and demo-replay.jsonl (tests/conftest.py's, made once per run: copy it)."""
    return demo_transcripts

"""Fixtures shared by the sharing tests: one plain recording of the leaky server per session."""

from __future__ import annotations

import pytest

from tests.share.leaky import Session, record_leaky


@pytest.fixture(scope="session")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """A recording without --redact of tests/servers/sh_leaky.py (every planted secret in it)."""
    return record_leaky(tmp_path_factory.mktemp("plain") / "plain.jsonl")

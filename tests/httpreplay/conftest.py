"""Recordings shared by the HTTP replay tests, each made once: the official SDK client against
notes_http.py over Streamable HTTP, through `mcptape record --http-upstream` (real processes), in the
2026-07-28 revision (`auto`) and with the initialize handshake (`legacy`: a session id, the GET
stream, an elicitation request on the call's stream, DELETE)."""

from __future__ import annotations

import pytest

from tests.httpreplay.helpers import Tape, record_notes


@pytest.fixture(scope="session")
def auto_tape(tmp_path_factory: pytest.TempPathFactory) -> Tape:
    tape = record_notes(tmp_path_factory.mktemp("http-auto"), "auto")
    assert tape.seen["delete"] == "deleted notes.txt" and tape.seen["greet"] == "Hello, Ada!"
    return tape


@pytest.fixture(scope="session")
def legacy_tape(tmp_path_factory: pytest.TempPathFactory) -> Tape:
    tape = record_notes(tmp_path_factory.mktemp("http-legacy"), "legacy")
    assert tape.seen["read"] == f"notes {tape.seen['handle']}: groceries"
    return tape


@pytest.fixture(params=["auto", "legacy"])
def tape(request: pytest.FixtureRequest) -> Tape:
    """Each recording in turn."""
    found: Tape = request.getfixturevalue(f"{request.param}_tape")
    return found

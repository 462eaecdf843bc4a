"""Recordings shared by the tests of replay and serve over HTTP, each made once per worker: the
official SDK client against notes_http.py over Streamable HTTP, through `mcptape record
--http-upstream` (real processes), in the 2026-07-28 revision (`auto`) and with the initialize
handshake (`legacy`: a session id, the GET stream, an elicitation request on the call's stream,
DELETE).

Fixtures, declared by the conftest.py of each folder that uses them (tests/replay/http/,
tests/serve/): `from tests.replay.http.recordings import auto_tape, legacy_tape, tape`. Both folders
get the same recordings: a worker records each revision once, whichever folder asks first.
"""

from __future__ import annotations

import pytest

from tests.replay.http.helpers import Tape, record_notes

_MADE: dict[str, Tape] = {}


def _recorded(tmp_path_factory: pytest.TempPathFactory, mode: str) -> Tape:
    if mode not in _MADE:
        _MADE[mode] = record_notes(tmp_path_factory.mktemp(f"http-{mode}"), mode)
    return _MADE[mode]


@pytest.fixture(scope="session")
def auto_tape(tmp_path_factory: pytest.TempPathFactory) -> Tape:
    tape = _recorded(tmp_path_factory, "auto")
    assert tape.seen["delete"] == "deleted notes.txt" and tape.seen["greet"] == "Hello, Ada!"
    return tape


@pytest.fixture(scope="session")
def legacy_tape(tmp_path_factory: pytest.TempPathFactory) -> Tape:
    tape = _recorded(tmp_path_factory, "legacy")
    assert tape.seen["read"] == f"notes {tape.seen['handle']}: groceries"
    return tape


@pytest.fixture(params=["auto", "legacy"])
def tape(request: pytest.FixtureRequest) -> Tape:
    """Each recording in turn."""
    found: Tape = request.getfixturevalue(f"{request.param}_tape")
    return found

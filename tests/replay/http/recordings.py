"""Recordings shared by the tests of replay and serve over HTTP: the official SDK client against
notes_http.py over Streamable HTTP, through `mcptape record --http-upstream` (real processes), in
the 2026-07-28 revision (`auto`) and with the initialize handshake (`legacy`: a session id, the GET
stream, an elicitation request on the call's stream, DELETE).

Each revision is recorded once per test run (tests.conftest.once_per_run: about a second of CPU,
the SDK server's start, the recorder and the client) and each xdist worker gets its own copy on a
port of its own: a replay starts the server on the recorded port, so two workers replaying one
recording at once would both ask for it. The copy names the worker's port wherever the recording
names the server's (the server's command line, the upstream URL, the server's "serving on" line):
what a recording made on that port holds. Nothing else in the recording names that port.

Fixtures, declared by the conftest.py of each folder that uses them (tests/replay/http/,
tests/serve/): `from tests.replay.http.recordings import auto_tape, legacy_tape, tape`. Both folders
get the same recordings: a worker copies each revision once, whichever folder asks first.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from tests.conftest import once_per_run
from tests.recorder.http.helpers import free_port
from tests.replay.http.helpers import Tape, record_notes

_MADE: dict[str, Tape] = {}


def _recorded(tmp_path_factory: pytest.TempPathFactory, mode: str) -> Tape:
    if mode not in _MADE:
        shared = once_per_run(tmp_path_factory, f"http-{mode}", lambda folder: _record(folder, mode))
        _MADE[mode] = _on_a_port_of_its_own(shared, tmp_path_factory.mktemp(f"http-{mode}"), mode)
    return _MADE[mode]


def _record(folder: Path, mode: str) -> None:
    tape = record_notes(folder, mode)
    (folder / "tape.json").write_bytes(orjson.dumps({"port": tape.port, "seen": tape.seen}))


def _on_a_port_of_its_own(shared: Path, folder: Path, mode: str) -> Tape:
    """The shared recording, copied into this worker's `folder` with a free port for the server's."""
    made = orjson.loads((shared / "tape.json").read_bytes())
    old, new = made["port"], free_port()
    text = (shared / f"notes-{mode}.jsonl").read_text(encoding="utf-8")
    header, rest = text.split("\n", 1)
    assert header.count(f'"{old}"') == 1 and header.count(f"127.0.0.1:{old}/") == 1, header
    assert rest.count(f"127.0.0.1:{old}") == 1, "the server's one 'serving on' line"
    header = header.replace(f'"{old}"', f'"{new}"').replace(f"127.0.0.1:{old}/", f"127.0.0.1:{new}/")
    rest = rest.replace(f"127.0.0.1:{old}", f"127.0.0.1:{new}")
    path = folder / f"notes-{mode}.jsonl"
    path.write_text(f"{header}\n{rest}", encoding="utf-8")
    return Tape(path, new, made["seen"])


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

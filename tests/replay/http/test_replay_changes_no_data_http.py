"""Over HTTP too, replay sends no `tools/call` of a tool not marked `readOnlyHint: true` unless told
to: the exchanges that carry them are held back, named, and the replay ends `incomplete`."""

from __future__ import annotations

import orjson
import pytest

from mcptape.replay.api import replay
from mcptape.replay.guard import ENV
from tests.replay.http.helpers import Tape, notes_server

pytestmark = pytest.mark.slow


def test_an_http_replay_holds_back_every_call_of_a_tool_that_may_write(
    auto_tape: Tape, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notes server's tools carry no readOnlyHint: no tools/call reaches the new build, each is
    named, the listing is still compared, and the verdict is incomplete."""
    monkeypatch.delenv(ENV, raising=False)

    result = replay(
        auto_tape.path, notes_server(auto_tape.port), config=False, keep_dir=auto_tape.path.parent
    )

    assert result.verdict == "incomplete"
    assert {t for h in result.run.held for t in h.tools} == {
        "greet",
        "delete",
        "open_notes",
        "read_notes",
        "count",
    }
    assert [i.kind for i in result.issues if i.error] == ["held-calls"]
    sent = b"".join(
        orjson.loads(line)["data"].encode()
        for line in result.new.read_bytes().splitlines()[1:]
        if orjson.loads(line).get("ch") == "in"
    )
    assert b'"tools/list"' in sent and b'"tools/call"' not in sent
    assert result.exit_code == 1


def test_an_http_replay_with_permission_sends_the_calls(
    auto_tape: Tape, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`allow_mutating=True` (--allow-mutating): every call is sent and the replay is the same."""
    monkeypatch.delenv(ENV, raising=False)

    result = replay(auto_tape.path, notes_server(auto_tape.port), config=False, allow_mutating=True)

    assert result.run.held == []
    assert result.same, result.render()

"""What the new server chose is sent where the recorded server's choice was: a sealed MRTR
`requestState` and a handle (2026-07-28), the `Mcp-Session-Id` and the id of its elicitation request
(the handshake); every other byte of every request is the recorded one."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from mcptape.replay.api import ReplayResult, replay
from tests.recorder.http.helpers import data_of, exchanges, records
from tests.replay.http.helpers import Tape, notes_server

pytestmark = pytest.mark.slow

SESSION = re.compile(rb"(?im)^mcp-session-id: *(\S+)\r$")


def _carried(path: Path, channel: str) -> list[dict[str, object]]:
    return [orjson.loads(data_of(r)) for r in records(path) if r["ch"] == channel]


Replayed = Callable[[Tape], tuple[ReplayResult, Path]]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    """A recording replayed against the same server: the result and the new session, once per
    recording for the module's tests (each of which ran this same replay; read them, never modify
    them)."""
    made: dict[Path, tuple[ReplayResult, Path]] = {}

    def get(tape: Tape) -> tuple[ReplayResult, Path]:
        if tape.path not in made:
            new = tmp_path_factory.mktemp("carried") / "new.jsonl"
            made[tape.path] = replay(tape.path, notes_server(tape.port), output=new, config=False), new
        return made[tape.path]

    return get


def test_a_requeststate_and_a_handle_are_the_new_servers(auto_tape: Tape, replayed: Replayed) -> None:
    """Both sent back as the new process minted them (it refuses its predecessor's), each listed
    with where it was minted; the sessions are the same."""
    result, new = replayed(auto_tape)
    assert result.same, result.render()
    paths = sorted(s.use.path for s in result.substitutions)
    assert paths == [("params", "arguments", "handle"), ("params", "requestState")]
    answers = {m["id"]: m for m in _carried(new, "out") if "id" in m}
    for sub in result.substitutions:
        assert sub.new != sub.use.value
        assert sub.new in orjson.dumps(answers[sub.use.source[1]]).decode()  # minted by the new server
        assert any(sub.new in orjson.dumps(m).decode() for m in _carried(new, "in"))
        assert not any(sub.use.value in orjson.dumps(m).decode() for m in _carried(new, "in"))
    assert "substituted 2 server-minted value(s)" in result.render()


def test_the_session_id_and_the_elicitation_id_are_the_new_servers(
    legacy_tape: Tape, replayed: Replayed
) -> None:
    """Every request after initialize carries the session id the new server assigned, none the
    recorded one; the answer to its elicitation request goes to that request; same."""
    result, new = replayed(legacy_tape)
    assert result.same, result.render()
    assert result.run.answered == 1
    old_ids = {m for head in exchanges(legacy_tape.path, "http-out").values() for m in SESSION.findall(head)}
    new_ids = {m for head in exchanges(new, "http-out").values() for m in SESSION.findall(head)}
    assert len(old_ids) == len(new_ids) == 1 and old_ids != new_ids
    sent = exchanges(new, "http-in")
    assert all(SESSION.findall(sent[x]) == list(new_ids) for x in sorted(sent)[1:])
    asked = [m for m in _carried(new, "out") if m.get("method") == "elicitation/create"]
    answered = [m for m in _carried(new, "in") if "result" in m]
    assert [m["id"] for m in answered] == [m["id"] for m in asked] and len(asked) == 1


def test_every_other_byte_of_each_request_is_the_recorded_one(tape: Tape, replayed: Replayed) -> None:
    """With Host, the session id, the minted values and the length they change put back, each
    request sent is the recorded request byte for byte."""
    result, new = replayed(tape)
    assert result.same, result.render()
    back = {s.new.encode(): s.use.value.encode() for s in result.substitutions}
    old_session = {m for head in exchanges(tape.path, "http-out").values() for m in SESSION.findall(head)}
    new_session = {m for head in exchanges(new, "http-out").values() for m in SESSION.findall(head)}
    if old_session:
        back[new_session.pop()] = old_session.pop()
    old_host = orjson.loads(tape.path.read_bytes().splitlines()[0])["http"]["listen"].split("/")[2].encode()
    new_host = orjson.loads(new.read_bytes().splitlines()[0])["http"]["listen"].split("/")[2].encode()
    back[new_host] = old_host
    length = re.compile(rb"(?im)^content-length: *\d+\r?$")
    recorded, sent = exchanges(tape.path, "http-in"), exchanges(new, "http-in")
    put_back = []
    for data in sent.values():
        for new_value, old_value in back.items():
            data = data.replace(new_value, old_value)
        put_back.append(length.sub(b"", data))
    assert sorted(put_back) == sorted(length.sub(b"", data) for data in recorded.values())

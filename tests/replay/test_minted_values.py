"""Server-minted values (a sealed MRTR requestState, a random handle) are carried into the replay:
the new server's own value is sent where the recorded client sent the old one, and listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.replay.api import ReplayResult, replay
from mcptape.transcript import open_transcript
from tests import inprocess
from tests.replay.conftest import minted

pytestmark = pytest.mark.slow


def _sent(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(e.data) for e in open_transcript(path).events() if e.ch == "in"]


def _answered(path: Path) -> dict[Any, dict[str, Any]]:
    return {
        m["id"]: m for e in open_transcript(path).events() if e.ch == "out" for m in [orjson.loads(e.data)]
    }


@pytest.fixture(scope="module")
def same_build(minted_tape: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[ReplayResult, Path]:
    """One replay of the recording against the same build and its new session, read by the two
    tests that each ran this same replay (read them, never modify them)."""
    new = tmp_path_factory.mktemp("minted-same") / "new.jsonl"
    return replay(minted_tape, minted(), output=new, config=False), new


def test_an_elicitation_and_a_handle_replay_same_against_the_same_build(
    same_build: tuple[ReplayResult, Path],
) -> None:
    """The new process's requestState and handle are sent back: same, each substitution listed."""
    result, new = same_build
    assert result.same, result.render()
    paths = sorted(s.use.path for s in result.substitutions)
    assert paths == [("params", "arguments", "handle"), ("params", "requestState")]
    assert all(s.new != s.use.value for s in result.substitutions)
    answered = _answered(new)
    for sub in result.substitutions:
        request = next(m for m in _sent(new) if sub.new in orjson.dumps(m).decode())
        source = answered[sub.use.source[1]]  # the response it was minted in, in the new session
        assert sub.new in orjson.dumps(source).decode() and request["id"] != source["id"]
    assert {c.old for _, c in result.diff.carried} == {s.use.value for s in result.substitutions}
    text = result.render()
    assert "substituted 2 server-minted value(s)" in text and "params.requestState" in text
    assert "compared by presence and place, not value" in text


def test_every_other_byte_of_the_client_stays_the_original(
    minted_tape: Path, same_build: tuple[ReplayResult, Path]
) -> None:
    """With the recorded values put back, the replayed client lines are the recorded ones exactly."""
    result, new = same_build
    back = {s.new: s.use.value for s in result.substitutions}
    replayed = [e.data for e in open_transcript(new).events() if e.ch == "in"]
    for new_value, old_value in back.items():
        replayed = [line.replace(new_value.encode(), old_value.encode()) for line in replayed]
    assert replayed == [e.data for e in open_transcript(minted_tape).events() if e.ch == "in"]


def test_a_build_whose_tool_answers_another_text_is_different_and_shows_the_change(
    minted_tape: Path, tmp_path: Path
) -> None:
    """--v2 answers "removed" after the confirmation: that one change, the minted values aside."""
    result = replay(minted_tape, minted("--v2"), output=tmp_path / "v2.jsonl", config=False)
    assert not result.same and result.exit_code == 1
    [pair] = result.diff.differing
    assert pair.kind == "response" and pair.scope == "tools/call"
    assert {(c.where, c.old, c.new) for c in pair.changes} == {
        ("result.content[0].text", "deleted notes.txt", "removed notes.txt"),
        ("result.structuredContent.result", "deleted notes.txt", "removed notes.txt"),
    }
    assert 'result.content[0].text: "deleted notes.txt" -> "removed notes.txt"' in result.render()


def test_a_value_the_new_server_did_not_mint_is_reported_not_guessed(
    minted_tape: Path, tmp_path: Path
) -> None:
    """--no-handles mints no handle: the recorded one is sent as it was, and the report says why."""
    new = tmp_path / "nohandles.jsonl"
    result = replay(minted_tape, minted("--no-handles"), output=new, config=False)
    assert not result.same
    [issue] = [i for i in result.issues if i.kind == "unminted-value"]
    assert not issue.error and "minted nothing there" in issue.message
    assert "response to tools/call" in issue.message
    recorded_handle = next(
        m["params"]["arguments"]["handle"] for m in _sent(minted_tape) if "handle" in str(m.get("params"))
    )
    assert any(recorded_handle in orjson.dumps(m).decode() for m in _sent(new))
    assert [s.use.path for s in result.substitutions] == [("params", "requestState")]


def test_replay_json_lists_each_substitution_and_each_minted_value(minted_tape: Path) -> None:
    """`replay --json`: substitutions (line, path, old, new, where minted) and the diff's minted values."""
    proc = inprocess.run("replay", str(minted_tape), "--json", "--no-config", "--", *minted())
    assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
    report = orjson.loads(proc.stdout)
    subs = {s["path"]: s for s in report["substitutions"]}
    assert set(subs) == {"params.requestState", "params.arguments.handle"}
    state = subs["params.requestState"]
    assert state["old"] != state["new"] and state["minted_at"]["path"] == "result.requestState"
    assert state["minted_at"]["title"].startswith("response to tools/call (id ")
    assert {m["path"] for m in report["diff"]["minted"]} >= {"result.requestState"}


def test_held_calls_leave_nothing_waiting_for_the_values_they_would_have_minted(
    minted_tape: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --allow-mutating every call of this server (no readOnlyHint) is held: the MRTR
    retry and the read that would send back minted values wait for nothing (no step timeout), no
    value is reported unminted, and the verdict is incomplete."""
    monkeypatch.delenv("MCPTAPE_ALLOW_MUTATING", raising=False)

    # A wait for a value would last a whole step timeout (15 s); the replay without one takes about
    # a second, and 4 s on two cores at load 9 (the bound was 4 s of a 5 s timeout: it failed there).
    result = replay(minted_tape, minted(), output=tmp_path / "new.jsonl", config=False, step_timeout=15)

    assert result.verdict == "incomplete", result.render()
    assert result.run.seconds < 10.0, result.render()
    assert [i.kind for i in result.issues] == ["held-calls"]
    assert {t for h in result.run.held for t in h.tools} == {"delete", "open_notes", "read_notes"}

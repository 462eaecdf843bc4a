"""Replay a real recorded session against builds of the same server: same, changed, leaky, buggy."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import mcptape
from mcptape.replay.api import replay
from mcptape.transcript import open_transcript
from tests import inprocess
from tests.replay.conftest import rp

pytestmark = pytest.mark.slow


def test_replay_against_the_same_build_is_the_same(v1_tape: Path) -> None:
    """Record against v1, replay against v1: same, exit 0, every client chunk sent."""
    result = replay(v1_tape, rp(), config=False)
    assert result.same, result.render()
    assert result.exit_code == 0
    assert result.run.completed and result.run.sent == result.run.total > 0
    assert not result.kept  # a temporary new session is removed when it is the same


def test_recorded_pacing_sends_no_chunk_earlier_than_in_the_recording(v1_tape: Path, tmp_path: Path) -> None:
    """--pace recorded reproduces the original timing: each chunk goes out at or after its recorded time."""
    new = tmp_path / "paced.jsonl"
    result = replay(v1_tape, rp(), pace="recorded", output=new, config=False)
    assert result.same, result.render()
    old_times = [e.t for e in open_transcript(v1_tape).events() if e.ch == "in"]
    new_times = [e.t for e in open_transcript(new).events() if e.ch == "in"]
    assert len(new_times) == len(old_times)
    assert all(n >= o - 0.01 for n, o in zip(new_times, old_times, strict=True))


def test_replay_against_a_changed_tool_output_names_exactly_that_path(v1_tape: Path, tmp_path: Path) -> None:
    """v2 changed greet's text: exit 1, and the diff names the changed paths of that one response only."""
    result = replay(v1_tape, rp("--v2"), output=tmp_path / "v2.jsonl", config=False)
    assert result.exit_code == 1
    differing = result.diff.differing
    assert [(p.kind, p.scope, p.request_id) for p in differing] == [("response", "tools/call", 3)]
    changes = {(c.where, c.old, c.new) for c in differing[0].changes}
    assert changes == {
        ("result.content[0].text", "Hello, Ada!", "Hi, Ada!"),
        ("result.structuredContent.result", "Hello, Ada!", "Hi, Ada!"),
    }
    text = result.render()
    assert 'result.content[0].text: "Hello, Ada!" -> "Hi, Ada!"' in text
    assert (tmp_path / "v2.jsonl").exists() and result.kept


def test_a_build_that_prints_a_banner_reports_the_new_non_protocol_line(v1_tape: Path) -> None:
    """A banner on stdout is reported as a new stdout line that is not protocol, with its bytes."""
    result = replay(v1_tape, rp("--banner"), config=False)
    assert not result.same
    assert [f.raw for f in result.diff.stdout_added] == [b"rp_server v2 ready\n"]
    assert not result.diff.differing  # the protocol answers themselves did not change
    assert "+ out line 1: rp_server v2 ready" in result.render()


def test_a_build_that_executes_before_its_auth_check_reports_a_new_exec_after_reject(v1_tape: Path) -> None:
    """The deploy with a bad token now reaches the executor: a new exec-after-reject for request 4."""
    result = replay(v1_tape, rp("--exec-before-auth"), config=False)
    assert not result.same
    new = [(f.rule, f.request_id) for f in result.diff.findings_added]
    assert new == [("exec-after-reject", 4)]
    assert not result.diff.findings_removed
    assert any(i.kind == "executed-actions" and not i.error for i in result.issues)
    assert "exec-after-reject" in result.render()


def test_mcptape_replay_is_callable_from_the_package(v1_tape: Path) -> None:
    """`mcptape.replay(path, command)` returns a result whose assert_same fails with the diff as message."""
    result = mcptape.replay(v1_tape, rp("--v2"), config=False)
    try:
        result.assert_same()
    except AssertionError as exc:
        assert "result.content[0].text" in str(exc)
    else:
        raise AssertionError("assert_same did not fail on a changed response")


def test_replay_cli_exit_codes_and_json(v1_tape: Path, tmp_path: Path) -> None:
    """`mcptape replay --json` prints the result as JSON; exit 1 when different."""
    proc = inprocess.run("replay", str(v1_tape), "--json", "--no-config", "--", *rp("--v2"))
    assert proc.returncode == 1, proc.stderr
    report = orjson.loads(proc.stdout)
    assert report["same"] is False and report["completed"] is True
    [message] = report["diff"]["messages"]
    assert message["id"] == 3 and {c["path"] for c in message["changes"]} == {
        "result.content[0].text",
        "result.structuredContent.result",
    }


def test_update_rewrites_the_transcript_with_the_new_behaviour(v1_tape: Path, tmp_path: Path) -> None:
    """--update shows the diff, replaces the transcript, exits 0; replaying v2 again is then the same."""
    tape = tmp_path / "tape.jsonl"
    tape.write_bytes(v1_tape.read_bytes())
    proc = inprocess.run("replay", str(tape), "--no-config", "--update", "--", *rp("--v2"))
    assert proc.returncode == 0, proc.stderr
    assert b"Hi, Ada!" in proc.stdout and b"updated" in proc.stdout
    assert b"Hi, Ada!" in tape.read_bytes()
    assert replay(tape, rp("--v2"), config=False).same

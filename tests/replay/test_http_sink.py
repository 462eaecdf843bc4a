"""Replay runs the HTTP sink: an outbound HTTP call is recorded and answered by the sink, never sent."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest

from mcptape.replay.api import replay
from mcptape.transcript import open_transcript
from tests.clients import python_server
from tests.conftest import console_script
from tests.replay.helpers import CLIENT, DEPLOY

pytestmark = pytest.mark.slow


def test_replay_records_http_calls_in_the_sink_and_sees_the_fix(tmp_path: Path) -> None:
    """The buggy build replays the same (its HTTP call hits the sink again); the fixed build drops the
    call and its exec-after-reject."""
    tape = tmp_path / "deploy.jsonl"
    record = [console_script(), "record", "-q", "--http-sink", "-o", str(tape), "--", *python_server(DEPLOY)]
    with subprocess.Popen(record, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for line in CLIENT.splitlines(keepends=True):
            proc.stdin.write(line)
            proc.stdin.flush()
            if b'"id"' in line:  # a request: wait for its answer, as a client would
                assert orjson.loads(proc.stdout.readline())["id"] == orjson.loads(line)["id"]
        proc.stdin.close()
        assert proc.wait(30) == 0
    assert [e.ch for e in open_transcript(tape).events()].count("http") == 1
    new = tmp_path / "again.jsonl"
    again = replay(tape, python_server(DEPLOY), output=new, config=False)
    assert again.same, again.render()
    [http] = [orjson.loads(e.data) for e in open_transcript(new).events() if e.ch == "http"]
    assert http["target"] == "http://deploy.invalid/previews" and http["reply"] == 200
    assert any(i.kind == "executed-actions" for i in again.issues)
    fixed = replay(tape, python_server(DEPLOY, "--fixed"), config=False)
    assert not fixed.same
    assert [f.rule for f in fixed.diff.findings_removed] == ["exec-after-reject"]
    assert [(p.kind, p.scope, p.new) for p in fixed.diff.differing] == [("executor", "http", None)]

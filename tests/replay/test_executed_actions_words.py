"""The executed-actions warning says what ran: requests a sink answered did not run again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pytest

from mcptape.replay.api import replay
from tests.clients import python_server
from tests.conftest import console_script
from tests.replay.helpers import CLIENT, DEPLOY

pytestmark = pytest.mark.slow


def test_http_requests_the_sink_answered_are_not_called_side_effects_that_ran(tmp_path: Path) -> None:
    """A replay whose only side effect is an HTTP call the sink answered says none ran, in one
    sentence that does not contradict itself."""
    tape = tmp_path / "deploy.jsonl"
    record = [console_script(), "record", "-q", "--http-sink", "-o", str(tape), "--", *python_server(DEPLOY)]
    with subprocess.Popen(record, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for line in CLIENT.splitlines(keepends=True):
            proc.stdin.write(line)
            proc.stdin.flush()
            if b'"id"' in line:
                assert orjson.loads(proc.stdout.readline())["id"] == orjson.loads(line)["id"]
        proc.stdin.close()
        assert proc.wait(30) == 0
    again = replay(tape, python_server(DEPLOY), config=False)
    [warning] = [i.message for i in again.issues if i.kind == "executed-actions"]
    assert warning == (
        "the replayed server tried the session's side effects again, and none ran: "
        "1 HTTP request(s), answered by the sink (none reached a host)"
    )

"""How replay names a new build that stops answering: it says whether the process ended, and
never says 'exited' about a server that is still running."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcptape.replay.api import replay
from tests.conftest import PYTHON

pytestmark = pytest.mark.slow

GOOD = Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl"
# Closes its stdout at once, then keeps reading stdin until the client closes it.
CLOSES_STDOUT = "import os, sys\nos.close(1)\nfor _ in sys.stdin: pass\n"


def test_a_server_that_closes_stdout_but_keeps_running_is_not_said_to_have_exited(
    tmp_path: Path,
) -> None:
    """stdout closed, process alive: 'closed its stdout but is still running', not 'exited'."""
    result = replay(
        GOOD,
        [PYTHON, "-c", CLOSES_STDOUT],
        output=tmp_path / "new.jsonl",
        step_timeout=5,
        shutdown_timeout=0.3,
        config=False,
    )
    [issue] = [i for i in result.issues if i.error]
    assert issue.kind == "server-exited"  # the stable issue id
    assert issue.message.startswith(
        "the new server closed its stdout but is still running: it never answered request 1;"
    )
    assert result.run.status is not None and result.run.status.code == 0  # it ended when stdin closed

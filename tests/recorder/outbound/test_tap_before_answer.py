"""A tool's tap lines are recorded before its answer, whichever of the recorder's threads runs first."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mcptape.transcript.events import Event
from tests.conftest import PYTHON, console_script
from tests.recorder.outbound.helpers import events

pytestmark = pytest.mark.slow

# A server that, for each request line, taps one line and then answers at once: the two writes
# are microseconds apart, on two pipes the recorder reads on two threads.
TAP_THEN_ANSWER = """
import os, sys
tap = int(os.environ["MCPTAPE_EXEC_FD"])
for line in sys.stdin.buffer:
    i = int(line)
    os.write(tap, b'{"action":"step","i":%d}\\n' % i)
    os.write(1, b'{"jsonrpc":"2.0","id":%d,"result":{}}\\n' % i)
"""

CALLS = 400


def _times(evs: list[Event], ch: str, key: str) -> dict[int, float]:
    """The time of the record each line of `ch` came in, by the number under `key`."""
    found: dict[int, float] = {}
    for e in evs:
        if e.ch == ch:
            for line in e.data.splitlines():
                found[json.loads(line)[key]] = e.t
    return found


def test_every_tap_line_is_recorded_before_the_answer_written_after_it(tmp_path: Path) -> None:
    """Over 400 requests, each tap line has a time no later than its answer's, and comes first in the file."""
    out = tmp_path / "t.jsonl"
    subprocess.run(
        [console_script(), "record", "-q", "-o", str(out), "--", PYTHON, "-c", TAP_THEN_ANSWER],
        input=b"".join(b"%d\n" % i for i in range(CALLS)),
        capture_output=True,
        check=True,
        timeout=60,
    )
    evs = events(out)
    tapped, answered = _times(evs, "exec", "i"), _times(evs, "out", "id")
    assert sorted(tapped) == sorted(answered) == list(range(CALLS))
    late = [i for i in range(CALLS) if tapped[i] > answered[i]]
    assert late == []
    rows = {(e.ch, n): row for row, e in enumerate(evs) if e.ch in ("exec", "out") for n in _numbers(e)}
    assert all(rows["exec", i] < rows["out", i] for i in range(CALLS))


def _numbers(e: Event) -> list[int]:
    return [json.loads(line).get("i", json.loads(line).get("id")) for line in e.data.splitlines()]

"""Must show: an elicitation session recorded with the official SDK, served back, completes with the
same client: in 2026-07-28 as an MRTR round, and in a legacy session as a server request mid-call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mcptape.transcript.reader import open_transcript
from tests.serve.helpers import client, python_server, record, serve

pytestmark = pytest.mark.slow


def out_values(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(e.data) for e in open_transcript(path).events() if e.ch == "out"]


@pytest.mark.parametrize("legacy", [False, True], ids=["mrtr-2026-07-28", "legacy-elicitation"])
def test_an_elicitation_session_served_back_completes_with_the_recorded_client(
    tmp_path: Path, legacy: bool
) -> None:
    """The client answers "Ada" again: the recorded round trips are played where they happened and
    the call ends with the recorded greeting; every request was served."""
    args = ["--elicit", "Ada", "--call", "greet={}", *(["--legacy"] if legacy else [])]
    tape = tmp_path / "elicit.jsonl"
    recorded = client(*args, *record(tape, python_server("elicit_server.py")))
    assert recorded.returncode == 0, recorded.stderr.decode()
    values = out_values(tape)
    if legacy:
        assert any(v.get("method") == "elicitation/create" for v in values)
    else:
        asked = [
            v
            for v in values
            if isinstance(v.get("result"), dict) and v["result"].get("resultType") == "input_required"
        ]
        assert asked and "requestState" in asked[0]["result"]
    report = tmp_path / "report.json"
    served = client(*args, *serve(tape, "--report", report))
    assert served.returncode == 0, served.stderr.decode()
    assert served.stdout == recorded.stdout
    assert b'{"greet": ["Hello, Ada!"]}' in served.stdout
    counts = orjson.loads(report.read_bytes())["counts"]
    assert counts["unmatched"] == 0 and counts["unused"] == 0 and counts["garbage"] == 0

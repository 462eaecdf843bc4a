"""The probe's judge keeps only the messages a verdict can depend on: a server that floods its
stdout with notifications or noise does not make the probe hold the flood."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from mcptape.probe.cases import BY_ID
from mcptape.probe.judge import judge
from mcptape.probe.ledger import OneCall
from mcptape.probe.observed import Observed, Verdict
from mcptape.transcript.events import Event, Header
from mcptape.transcript.writer import write_transcript

pytestmark = pytest.mark.slow

LINES = 20_000


def test_a_notification_flood_is_judged_without_being_held(tmp_path: Path) -> None:
    """20,000 log notifications (6 MiB) after a bad frame: judging the case peaks below the file's
    size (the check core's own buffers are ~3 MiB), and the error answer to the bad frame is seen."""
    path = tmp_path / "debug-line.jsonl"
    log = {
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "data": "x" * 160},
    }
    flood = [Event(0.1 + i * 1e-5, "out", text=json.dumps(log) + "\n") for i in range(LINES)]
    bad = Event(0.05, "in", text="debug marker-1\n")
    rejected = Event(0.3, "out", text='{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}\n')
    write_transcript(path, Header(1, "now", ["srv"], "/"), [bad, *flood, rejected])
    size = path.stat().st_size
    del flood
    observed = Observed(BY_ID["debug-line"], path, "marker-1", ["srv"])
    tracemalloc.start()
    try:
        result = judge(observed, OneCall(0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.verdict is Verdict.PASS, result.reasons
    assert "rejected it (error -32700)" in result.did
    assert peak < size

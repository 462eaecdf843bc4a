"""A recorded call the client cancelled: over HTTP the SDK's server answered it (`-32800 Request
cancelled`) only after the client's `notifications/cancelled`, so serve plays that answer only when
the new client cancels too, instead of answering the call at once with an error the client never
asked for (the SDK client raised it and the session ended)."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest
from mcp import Client

from mcptape.transcript.reader import open_transcript
from tests.e2e.realhttp.helpers import record_sweep
from tests.serve.helpers import listening

pytestmark = pytest.mark.slow


async def _cancel_then_add(url: str) -> str:
    """Cancel a slow call after 0.3 s (the legacy SDK client sends notifications/cancelled), then add."""
    async with Client(url, mode="legacy") as client:
        with anyio.move_on_after(0.3):
            await client.call_tool("slow", {"seconds": 3})
        added = await client.call_tool("add", {"a": 1, "b": 2})
        return str(added.content[0].text)  # type: ignore[union-attr]


def test_a_cancelled_call_is_answered_after_the_new_clients_cancel(tmp_path: Path) -> None:
    """Recorded, then served to the same client code over HTTP: it cancels, goes on and gets 3;
    every recorded request served, none unmatched."""
    tape, report = tmp_path / "cancel.jsonl", tmp_path / "report.json"
    seen, _, _ = record_sweep(tape, _cancel_then_add)
    assert seen == "3"
    # The recording: the answer came after the cancel. By time, not file order: the cancel and the
    # answer travel in two exchanges, whose connections' threads write their records side by side
    # (a transcript keeps each exchange's order; across exchanges, `t` is the order).
    lines = [(e.t, orjson.loads(e.data)) for e in open_transcript(tape).events() if e.ch in ("in", "out")]
    cancel = next(t for t, v in lines if v.get("method") == "notifications/cancelled")
    answer = next(t for t, v in lines if v.get("error", {}).get("code") == -32800)
    assert cancel < answer

    with listening(tape, tmp_path, "--report", str(report)) as (url, proc, _):
        assert anyio.run(_cancel_then_add, url) == "3"
        proc.terminate()
        proc.wait(30)
    counts = orjson.loads(report.read_bytes())["counts"]
    assert (counts["unmatched"], counts["unused"]) == (0, 0)

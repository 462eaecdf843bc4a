"""Must show: a client that gives up in the middle of a response (the SDK client refuses an SSE
event over 1 MiB and closes the stream) is what the recording says happened: the client left, and
the upstream's reset that follows is not reported as the upstream's failure."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.e2e.realhttp.helpers import record_sweep
from tests.recorder.http.helpers import records


async def _too_big_an_event(url: str) -> str:
    async with Client(url, mode="legacy") as client:
        with pytest.raises(MCPError, match="exceeded"):
            # the client refuses at 1 MiB and leaves, but the socket buffers between it and the
            # recorder take about 3 MB more first: a 3 MB event was at times relayed whole before
            # the client left (no "left" to record); 16 MB is far past what they hold (the recorder
            # still relays about 3 MB of it, as before)
            await client.call_tool("big", {"size": 16_000_000})
        return "refused"


def test_a_client_that_leaves_mid_response_is_not_an_upstream_reset(tmp_path: Path) -> None:
    """The note says the client closed the connection before the end of the response; stderr has
    no line about the upstream resetting it, and no note calls it the upstream's doing mid-response."""
    path = tmp_path / "leaves.jsonl"
    seen, stderr, _ = record_sweep(path, _too_big_an_event)
    assert seen == "refused"
    notes = [r["msg"] for r in records(path) if r["ch"] == "note"]
    assert any("the client closed the connection before the end of the response" in n for n in notes), notes
    assert "reset" not in stderr and not any("mid-response" in n for n in notes), (stderr, notes)

"""Live export pairs an answer recorded before its request: the recorder's stdin and stdout pumps
write side by side, so a fast answer's `out` record can come first in the file (its time is still
the later one). Its span is sent as the other calls' are, not lost."""

from __future__ import annotations

from pathlib import Path

import orjson

from mcptape.export.live import _State
from mcptape.transcript.reader import parse_header

HEADER = orjson.dumps({"mcptape": 1, "started": "2026-12-07T00:00:00Z", "command": ["srv"], "cwd": "/"})


def line(value: dict[str, object]) -> bytes:
    return orjson.dumps(value) + b"\n"


def names(state: _State) -> list[str]:
    return [span.name for span in state.pending]


def test_an_answer_recorded_before_its_request_still_makes_its_span() -> None:
    """tools/list's answer (t=0.3) written before its request (t=0.2): one span, with both."""
    state = _State(parse_header(HEADER + b"\n", "s.jsonl"), Path("s.jsonl"))
    state.feed(0, 0.1, "in", line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}), None)
    state.feed(
        1, 0.15, "out", line({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}), None
    )
    state.feed(2, 0.3, "out", line({"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}), None)
    state.feed(3, 0.2, "in", line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}), None)

    assert names(state) == ["initialize", "tools/list"]


def test_a_stale_answer_is_not_paired_with_a_later_request_of_its_id() -> None:
    """An answer to a request never sent (t=0.1) does not become the answer of a request with its
    id sent afterwards (t=0.5): that one waits for its own."""
    state = _State(parse_header(HEADER + b"\n", "s.jsonl"), Path("s.jsonl"))
    state.feed(0, 0.1, "out", line({"jsonrpc": "2.0", "id": 7, "result": {}}), None)
    state.feed(1, 0.5, "in", line({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}), None)
    assert names(state) == []
    state.feed(2, 0.6, "out", line({"jsonrpc": "2.0", "id": 7, "result": {"tools": []}}), None)
    assert names(state) == ["tools/list"]

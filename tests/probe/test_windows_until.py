"""The per-tool hard inputs can ride in the middle of a shared process (after its first case, with
hard inputs after them): the last of them is judged in a window that ends at the next hard input's
frame (`judge_frames(..., until=)`), and the frames that owe what a valid call makes are the same in
every window's ledger (`owing_ids`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from mcptape.probe.cases import TOOL, Call, Case
from mcptape.probe.windows import ToolFrame, judge_frames, owing_ids

NEXT = "mcptape-probe-concatenated-c0ffee42"  # the hard input sent after the per-tool frames


def _transcript(path: Path) -> None:
    """A wrong-types frame refused, then the next hard input's frame, then an executor line naming no
    request (the next frame's, by its time)."""
    head = {"mcptape": 1, "started": "2026-12-06T00:00:00.000000Z", "command": ["s"], "cwd": "/"}
    wrong = {"target": {"mcptape-probe": "an object, not a string"}}
    refused = {"code": -32602, "message": "invalid params"}
    events: list[dict[str, Any]] = [
        {"t": 0.1, "ch": "in", "data": Call("deploy", wrong).request("r-types")},
        {"t": 0.2, "ch": "out", "data": {"jsonrpc": "2.0", "id": "r-types", "error": refused}},
        {"t": 0.3, "ch": "in", "data": {"jsonrpc": "2.0", "id": NEXT, "method": "tools/call", "params": {}}},
        {"t": 0.4, "ch": "exec", "data": {"action": "deploy", "request_id": None}},
        {"t": 0.5, "ch": "exit", "code": 0, "signal": None},
    ]  # fmt: skip
    lines = [orjson.dumps(head)]
    for event in events:
        if "data" in event:
            event = {**event, "data": orjson.dumps(event["data"]).decode() + "\n"}
        lines.append(orjson.dumps(event))
    path.write_bytes(b"\n".join(lines) + b"\n")


def _frame(case: str = "wrong-types:deploy", rid: str = "r-types", **given: Any) -> ToolFrame:
    fields: dict[str, Any] = {"forbidden": True, "extra": ["exit 0"], **given}
    return ToolFrame(Case(case, TOOL, f"tools/call deploy ({case})"), "deploy", rid, b"", **fields)


def test_the_last_per_tool_frames_window_ends_at_the_next_hard_inputs_frame(tmp_path: Path) -> None:
    """The line after the next hard input's frame is not the last per-tool frame's: it passes with
    `until`; without it (its window open to the end, as when it was the process's last) it fails."""
    path = tmp_path / "banner-after-request.jsonl"
    _transcript(path)
    bounded = judge_frames(path, [_frame()], until=NEXT)[0]
    assert (bounded.verdict.value, bounded.executed) == ("pass", 0), bounded.reasons
    open_ended = judge_frames(path, [_frame()])[0]
    assert (open_ended.verdict.value, open_ended.executed) == ("FAIL", 1), open_ended.reasons


def test_the_frames_that_owe_a_valid_calls_lines_are_its_tool_run_with_its_own_arguments() -> None:
    """A base call and an unknown-arguments frame its schema allows, of the valid call's tool, owe;
    a forbidden one, another tool's, or no valid call at all: none."""
    allowed = _frame("unknown-arguments:deploy", "r-unknown", forbidden=False, acted_on=b"undeclared")
    forbidden = _frame("unknown-arguments:deploy", "r-forbidden", acted_on=b"undeclared")
    base = _frame("base:deploy", "r-base", forbidden=False, base="recorded")
    other = ToolFrame(
        Case("base:other", TOOL, "base"), "other", "r-other", b"", forbidden=False, base="recorded"
    )
    call = Call("deploy", {"target": "x"})
    assert owing_ids([allowed, forbidden, base, other, _frame()], call) == ["r-unknown", "r-base"]
    assert owing_ids([allowed, base], None) == []

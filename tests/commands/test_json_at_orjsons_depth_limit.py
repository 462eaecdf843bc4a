"""orjson reads JSON up to 1024 levels deep but writes only 254, and Python's recursion stops near
1000: a message 1000 levels deep is readable, so every command must carry it without recursing
(an id that is such an object was a RecursionError in the check core's message, hence in every
command; a notification's params in diff's loose matching; a server's instructions or capabilities
in tools diff)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.commands.tapes import HEADER, assert_clean_run, line, message, record, run, write

DEPTH = 1000
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH
DEEP_ARRAY = "[" * DEPTH + "1" + "]" * DEPTH


def tape(path: Path, *, request_id: str = "2", note: str = "{}", init: str = "{}") -> Path:
    """A handshake, a listing and a call; the call's id, a notification's params and the server's
    capabilities and instructions given as raw JSON text."""
    init_answer = (
        '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":'
        + init
        + ',"serverInfo":{"name":"s","version":"1"},"instructions":'
        + (DEEP_ARRAY if init != "{}" else '"x"')
        + "}}\n"
    )
    client = {"name": "c", "version": "1"}
    params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    listing = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    call = '{"jsonrpc":"2.0","id":' + request_id + ',"method":"tools/call","params":{"name":"t"}}\n'
    lines = [
        line(0.01, "in", message(id=0, method="initialize", params=params)),
        line(0.02, "out", init_answer),
        line(0.03, "in", message(id=1, method="tools/list")),
        line(0.04, "out", message(id=1, result=listing)),
        line(0.05, "in", call),
        line(0.06, "out", '{"jsonrpc":"2.0","method":"notifications/message","params":' + note + "}\n"),
        line(0.07, "out", '{"jsonrpc":"2.0","id":' + request_id + ',"result":{"content":[]}}\n'),
        record(t=0.1, ch="exit", code=0, signal=None),
    ]
    return write(path, lines, HEADER)


CASES = {
    "deep-object-id": {"request_id": DEEP_OBJECT},
    "deep-notification-params": {"note": DEEP_OBJECT},
    "deep-capabilities-and-instructions": {"init": DEEP_OBJECT},
}
Argv = Callable[[str, str], list[str]]
COMMANDS: dict[str, Argv] = {
    "check": lambda deep, plain: ["check", "--json", deep],
    "diff": lambda deep, plain: ["diff", plain, deep],
    "tools-diff": lambda deep, plain: ["tools", "diff", deep, deep],
    "tools-diff-against-plain": lambda deep, plain: ["tools", "diff", plain, deep],
    "export-html": lambda deep, plain: ["export", deep, "--format", "html"],
}


@pytest.mark.parametrize("fields", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_message_1000_levels_deep_is_read_by_every_command(
    tmp_path: Path, fields: dict[str, str], argv: Argv
) -> None:
    """Exit 0 or 1 with a report, no RecursionError."""
    deep = tape(tmp_path / "deep.jsonl", **fields)
    plain = tape(tmp_path / "plain.jsonl")
    json.loads(deep.read_text().splitlines()[-3])  # the deep line is valid JSON
    result = run(*argv(str(deep), str(plain)))
    assert_clean_run(result, codes=[0, 1])

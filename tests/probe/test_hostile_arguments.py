"""The valid call's arguments are written again by the probe (orjson: 254 levels deep at most, no
lone surrogate): `--args` nested deeper is one usage error line, and a recorded call in `--from` that
cannot be written again is not a candidate (both raised orjson's TypeError: a traceback)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.commands.tapes import assert_clean_run, line, message, record, run, write

DEEP = '{"a":' * 300 + "1" + "}" * 300


def test_probe_args_nested_past_what_can_be_sent_is_one_error_line(tmp_path: Path) -> None:
    """--args 300 levels deep: exit 2, one line, before anything runs."""
    result = run("probe", "--tool", "t", "--args", DEEP, "-o", str(tmp_path / "p"), "--", "true")
    assert_clean_run(result, codes=[2])
    assert result.stderr.count("\n") == 1 and "--args cannot be sent" in result.stderr


@pytest.mark.parametrize(
    "params",
    [
        '{"name":"t","arguments":{"x":' + DEEP + "}}",
        '{"name":"t\\ud800","arguments":{}}',
    ],
    ids=["arguments-300-deep", "name-with-a-lone-surrogate"],
)
def test_a_recorded_call_the_probe_cannot_send_again_is_no_candidate(tmp_path: Path, params: str) -> None:
    """The transcript's only successful call cannot be written again: --from has no call to give,
    said in one line (exit 2)."""
    tape = write(
        tmp_path / "t.jsonl",
        [
            line(0.1, "in", '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":' + params + "}\n"),
            line(0.2, "out", message(id=2, result={"content": [{"type": "text", "text": "ok"}]})),
            record(t=0.3, ch="exit", code=0, signal=None),
        ],
    )
    result = run("probe", "--from", str(tape), "-o", str(tmp_path / "p"), "--", "true")
    assert_clean_run(result, codes=[2])
    assert result.stderr.count("\n") == 1 and "no tools/call answered with a success" in result.stderr


SURROGATE_SERVER = r"""
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if not isinstance(m, dict) or "id" not in m or "method" not in m:
        continue
    rid = json.dumps(m["id"])
    if m["method"] == "initialize":
        info = '"serverInfo":{"name":"s","version":"1"}'
        result = '{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},%s}' % info
    elif m["method"] == "tools/list":
        schema = '{"type":"object","properties":{"a\\udfff":{"type":"string"}}}'
        tools = '[{"name":"w\\ud800","inputSchema":%s,"annotations":{"readOnlyHint":true}},' % schema
        tools += '{"name":"ok","inputSchema":%s,"annotations":{"readOnlyHint":true}}]' % schema
        result = '{"tools":%s}' % tools
    else:
        result = '{"content":[{"type":"text","text":"fine"}]}'
    print('{"jsonrpc":"2.0","id":%s,"result":%s}' % (rid, result), flush=True)
"""


def test_a_server_listing_names_with_lone_surrogates_is_probed_without_a_traceback(tmp_path: Path) -> None:
    """A tool named with a lone surrogate escape is left alone (no request can carry it, said in the
    report) and one whose schema names such a property gets no frame; the probe ends with its
    verdict (orjson's TypeError was a traceback in the tool guard and again in the frames)."""
    server = tmp_path / "srv.py"
    server.write_text(SURROGATE_SERVER)
    result = run("probe", "-o", str(tmp_path / "p"), "--", sys.executable, str(server))
    assert_clean_run(result, codes=[0, 1])
    assert "lone surrogate, which no request can carry" in result.stdout + result.stderr

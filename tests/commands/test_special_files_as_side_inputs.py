"""The files a command reads beside its transcript (a tools lock, an --accept file, a probe
--baseline) may be a pipe, a directory or hostile JSON: one `Error:` line and exit 2, at once.
A FIFO with no writer made `open()` wait forever."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import orjson
import pytest

from tests.conftest import console_script
from tests.inprocess import run

HEADER = {
    "mcptape": 1,
    "started": "2026-12-04T00:00:00Z",
    "command": ["server"],
    "cwd": "/",
    "recorder": {"name": "mcptape", "version": "0"},
}


def session(path: Path) -> Path:
    answer = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "inputSchema": {}}]}}
    records = [
        HEADER,
        {"t": 0.1, "ch": "in", "data": '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'},
        {"t": 0.2, "ch": "out", "data": orjson.dumps(answer).decode() + "\n"},
    ]
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    return path


def assert_one_error(result: subprocess.CompletedProcess[str], words: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr and "Traceback" not in result.stderr, result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["tools", "lock", "{x}"],
        ["tools", "diff", "{x}", "{s}"],
        ["tools", "diff", "{s}", "{s}", "--accept", "{x}"],
        ["check", "{s}", "--tools-lock", "{x}"],
        ["probe", "--baseline", "{x}", "--", "true"],
    ],
    ids=["tools lock", "tools diff", "--accept", "--tools-lock", "probe --baseline"],
)
def test_a_fifo_beside_the_transcript_is_one_error_not_a_hang(tmp_path: Path, args: list[str]) -> None:
    """A named pipe nobody writes to, given as a lock, an accept file or a baseline: refused before
    it is opened (a real process: a hang would hold the test's own process)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    s = session(tmp_path / "s.jsonl")
    argv = [a.format(x=fifo, s=s) for a in args]
    result = subprocess.run(
        [console_script(), *argv], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )
    assert_one_error(result, "not a regular file (a pipe, socket or device)")


@pytest.mark.parametrize(
    "verdict", [["FAIL"], {"a": 1}, 5, "\x1b]0;pwned\x07"], ids=["list", "object", "number", "escape"]
)
def test_a_baseline_verdict_of_any_type_is_one_error(tmp_path: Path, verdict: object) -> None:
    """An entry's verdict that is a list (unhashable: a TypeError before), an object, a number, or a
    string holding an escape sequence: one line, with nothing raw."""
    baseline = tmp_path / "baseline.json"
    entry = {"case": "invalid-utf8", "verdict": verdict}
    baseline.write_bytes(orjson.dumps({"mcptape_probe_baseline": 1, "accepted": [entry]}))
    result = run("probe", "--baseline", baseline, "--", "true", text=True)
    assert_one_error(result, "accepted[0]: verdict")
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr

"""`check` of several files counts a file whose findings are all below the gate as passing with
findings, never as clean."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import ROOT, console_script

TIME = ROOT / "transcripts" / "mcp-server-time-handshake.jsonl"


def with_refused_bad_call(path: Path) -> Path:
    """The mcp-server-time session plus a call with a number for the time zone, refused: info."""
    lines = TIME.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"eof"' in line)
    call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call"}
    call["params"] = {"name": "get_current_time", "arguments": {"timezone": 5}}
    error = {"jsonrpc": "2.0", "id": 5, "error": {"code": -32602, "message": "Invalid params"}}
    added = [
        json.dumps({"t": 0.6495, "ch": "in", "data": json.dumps(call) + "\n"}),
        json.dumps({"t": 0.6505, "ch": "out", "data": json.dumps(error) + "\n"}),
    ]
    path.write_text("\n".join(lines[:at] + added + lines[at:]) + "\n")
    return path


def test_a_file_with_info_findings_is_not_counted_clean(tmp_path: Path) -> None:
    """One clean file, one with an info finding: "1 clean, 1 passing with findings below the gate"."""
    info = with_refused_bad_call(tmp_path / "info.jsonl")
    done = subprocess.run(
        [console_script(), "check", str(TIME), str(info)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout
    assert "Verdict: 1 finding (0 errors)" in done.stdout
    assert done.stdout.rstrip().endswith(
        "2 transcripts: 1 clean, 1 passing with findings below the gate, 0 with findings, 0 unreadable"
    )

"""Helpers several replay tests share: a folder of transcripts for the pytest plugin (`corpus`) and
a nested pytest run in it (`run_pytest`); the deploy-preview server (`DEPLOY`) and the bytes of a
client that calls its tool (`CLIENT`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson

from tests.conftest import NESTED_PYTEST, SERVERS


def corpus(tmp_path: Path, v1_tape: Path) -> Path:
    """transcripts/: two recordings of the same session, one with a changed response, and a non-transcript."""
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "same.jsonl").write_bytes(v1_tape.read_bytes())
    changed = []
    for line in v1_tape.read_bytes().splitlines(keepends=True):
        record = orjson.loads(line)
        if record.get("ch") == "out" and "Hello, Ada!" in record.get("data", ""):
            line = line.replace(b"Hello, Ada!", b"Hello, Bob!")
        changed.append(line)
    (folder / "changed.jsonl").write_bytes(b"".join(changed))
    (folder / "data.jsonl").write_bytes(b'{"not": "a transcript"}\n')
    return folder


def run_pytest(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*NESTED_PYTEST, "-q", "-rf", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


DEPLOY = SERVERS / "fx_deploy_preview.py"


CLIENT = b"".join(
    orjson.dumps(m) + b"\n"
    for m in (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "deploy_preview", "arguments": {"branch": "pr-12", "token": "stolen"}},
        },
    )
)

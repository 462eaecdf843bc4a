"""`mcptape check --json` prints no character a terminal would act on, wherever the transcript put
it (the header's command line, a request id), and the JSON still reads back as the same values."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from mcptape.transcript.events import Event, Header
from mcptape.transcript.writer import write_transcript
from tests.conftest import console_script

# C0 (but newline), DEL, C1, and the bidi / invisible format characters.
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
HOSTILE = "\x1b]0;pwned\x07\x9b31m\u202eevil\u2066"


def test_check_json_escapes_the_command_line_and_request_ids(tmp_path: Path) -> None:
    """The header's argv and a string request id come out as \\uXXXX escapes, same JSON values."""
    path = tmp_path / "t.jsonl"
    request = json.dumps({"jsonrpc": "2.0", "id": HOSTILE, "method": "tools/list"})
    write_transcript(
        path,
        Header(1, "2026-01-01T00:00:00Z", ["server" + HOSTILE, HOSTILE], "/"),
        [Event(0.1, "in", text=request + "\n"), Event(0.2, "exit", fields={"code": 0})],
    )
    result = subprocess.run(
        [console_script(), "check", "--json", str(path)], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 1, result.stderr  # the request is never answered: a warning
    assert UNSAFE.findall(result.stdout) == []
    report = json.loads(result.stdout)
    assert report["command"] == ["server" + HOSTILE, HOSTILE]
    assert [f["request_id"] for f in report["findings"]] == [HOSTILE]

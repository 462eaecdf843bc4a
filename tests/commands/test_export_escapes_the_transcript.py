"""`mcptape export` without -o prints the document on stdout: whatever a server or client wrote
(DEL, C1 controls, bidi overrides, U+2028) is there as its JSON escape, never raw, and reads back
as the same value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands.tapes import line, message, record, unsafe_chars, write
from tests.inprocess import run

ODD = "a\x7fb\x85c\x9b31m\u202ed\u2028e\U000e0041"


@pytest.mark.parametrize("name", ["har", "otlp", "html"])
def test_an_export_on_stdout_shows_no_unsafe_character(tmp_path: Path, name: str) -> None:
    """A request whose method, id and params hold every kind of unsafe character, answered with
    them: the export on stdout holds none of them raw (and HAR parses back to them)."""
    path = write(
        tmp_path / "s.jsonl",
        [
            line(0.1, "in", message(id=ODD, method=ODD, params={ODD: ODD})),
            line(0.2, "out", message(id=ODD, result={"content": [{"type": "text", "text": ODD}]})),
            line(0.3, "err", ODD + "\n"),
            record(t=0.4, ch="exit", code=0, signal=None),
        ],
    )
    result = run("export", path, "--format", name, text=True)
    assert result.returncode == 0, result.stderr
    assert unsafe_chars(result.stdout) == [], [c for c in ODD if c in result.stdout]
    if name == "har":
        entry = json.loads(result.stdout)["log"]["entries"][0]
        assert ODD in entry["request"]["postData"]["text"]

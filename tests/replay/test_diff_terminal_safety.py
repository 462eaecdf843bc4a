"""`mcptape diff` shows a hostile server's bytes escaped: ESC, OSC and BEL never reach the terminal."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from mcptape.commands.diff import diff_command
from mcptape.transcript.writer import new_header, write_transcript
from tests.replay.events import Session

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b[31mred"


def session(text: str, noise: bytes | None) -> Session:
    s = Session()
    s.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {}}})
    if noise is not None:
        s.answer(noise)
    s.answer({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}})
    return s


def test_diff_output_escapes_control_sequences(tmp_path: Path) -> None:
    """A changed value and a new non-protocol line full of control bytes are printed escaped."""
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    write_transcript(old, new_header(["srv"], "/"), session("fine", None).events)
    write_transcript(new, new_header(["srv"], "/"), session(HOSTILE, HOSTILE.encode() + b"\n").events)
    result = CliRunner().invoke(diff_command, [str(old), str(new), "--no-config"])
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b[2J" in result.output or "\\u001b[2J" in result.output


def test_diff_json_escapes_bidi_and_c1_characters_and_keeps_the_values(tmp_path: Path) -> None:
    """--json turns a bidi override and a C1 CSI into \\u escapes that decode to the same value."""
    text = "\u202eabc \x9b31m"
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    write_transcript(old, new_header(["srv"], "/"), session("fine", None).events)
    write_transcript(new, new_header(["srv"], "/"), session(text, None).events)
    result = CliRunner().invoke(diff_command, [str(old), str(new), "--no-config", "--json"])
    assert result.exit_code == 1, result.output
    assert "\u202e" not in result.output and "\x9b" not in result.output
    assert "\\u202eabc \\u009b31m" in result.output
    assert text in json.dumps(json.loads(result.output), ensure_ascii=False)


def test_a_changed_json_string_reads_as_its_json_literal(tmp_path: Path) -> None:
    """A value is shown as the JSON it is (`"a\\nb"`), not with every backslash doubled."""
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    write_transcript(old, new_header(["srv"], "/"), session('{\n "k": 1\n}', None).events)
    write_transcript(new, new_header(["srv"], "/"), session('{\n "k": 2\n}', None).events)
    result = CliRunner().invoke(diff_command, [str(old), str(new), "--no-config"])
    assert result.exit_code == 1, result.output
    assert 'result.content[0].text: "{\\n \\"k\\": 1\\n}" -> "{\\n \\"k\\": 2\\n}"' in result.output

"""`mcptape diff` says when a transcript had lines it could not read (a corrupt line, a truncated
last record), as `check` and `replay` do: a skipped line is never silently compared as absent."""

from __future__ import annotations

import json
from pathlib import Path

from tests import inprocess

GOOD = Path(__file__).resolve().parents[2] / "transcripts" / "sdk-echo-tool-handshake.jsonl"


def _damaged(tmp_path: Path) -> Path:
    lines = GOOD.read_bytes().splitlines(keepends=True)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"".join([*lines[:4], b"garbage\n", *lines[4:], b'{"t":9.0,"ch":"out","da']))
    return damaged


def test_diff_reports_the_lines_it_could_not_read(tmp_path: Path) -> None:
    """Text: one `note:` per unreadable line, naming the file and line; the verdict still follows."""
    damaged = _damaged(tmp_path)
    result = inprocess.run("diff", "--no-config", str(GOOD), str(damaged), text=True)
    assert result.returncode == 0, result.stdout  # the readable lines are the same session
    assert f"  note: {damaged}: transcript line 5: not JSON" in result.stdout
    assert f"  note: {damaged}: transcript line 18: truncated last line (23 bytes)" in result.stdout


def test_diff_json_lists_the_lines_it_could_not_read(tmp_path: Path) -> None:
    """--json: the same sentences in `notes`."""
    damaged = _damaged(tmp_path)
    result = inprocess.run("diff", "--no-config", "--json", str(damaged), str(GOOD), text=True)
    notes = json.loads(result.stdout)["notes"]
    assert [n.split(": ", 2)[1] for n in notes] == ["transcript line 5", "transcript line 18"]

"""A keymap file is the user's, but may be anything: an integer tomllib cannot convert (more than
4300 digits) or arrays nested thousands deep are one Error line, exit 2, like any unreadable keymap
(int()'s ValueError and tomllib's RecursionError were tracebacks)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands.tapes import assert_clean_run, run, session

KEYMAPS = {
    "integer-past-4300-digits": ("[keymap]\nx = " + "9" * 5000 + "\n", "Exceeds the limit (4300 digits)"),
    "arrays-nested-5000-deep": ("[keymap]\nx = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
}


@pytest.mark.parametrize(("text", "says"), KEYMAPS.values(), ids=KEYMAPS.keys())
def test_view_with_a_keymap_tomllib_cannot_convert_is_one_error_line(
    tmp_path: Path, text: str, says: str
) -> None:
    """The keymap is read before the terminal is needed: one line naming the file and why."""
    keymap = tmp_path / "keymap.toml"
    keymap.write_text(text)
    tape = session(tmp_path / "s.jsonl", {"content": []})
    result = run("view", "--keymap", str(keymap), str(tape))
    assert_clean_run(result, codes=[2])
    assert result.stderr.count("\n") == 1 and says in result.stderr and "keymap.toml" in result.stderr

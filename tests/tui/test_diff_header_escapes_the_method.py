"""The diff viewer's header names the first differing pair's method: a method name chosen by the
server must reach the terminal escaped, like every other transcript byte."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mcptape.transcript import Event
from tests.conftest import console_script
from tests.tui.helpers import run_in_pty
from tests.tui.transcripts import handshake, ok, req, write

pytestmark = pytest.mark.slow

METHOD = r"tools/\u001b]0;pwned\u0007x"  # JSON text: the method holds ESC ] 0 ; ... BEL


def session(path: Path, answer: str) -> Path:
    events = [*handshake(), req(0.010, 1, METHOD), ok(0.011, 1, f'{{"v":"{answer}"}}')]
    events.append(Event(0.02, "exit", fields={"code": 0, "signal": None}))
    return write(path, events)


def test_a_hostile_method_name_in_the_diff_header_is_escaped(tmp_path: Path) -> None:
    """`view OLD NEW`: an OSC sequence in the first differing pair's method is drawn escaped."""
    old = session(tmp_path / "old.jsonl", "a")
    new = session(tmp_path / "new.jsonl", "b")
    code, drawn = run_in_pty([console_script(), "view", str(old), str(new)], b"first differing pair", b"q")
    assert code == 0
    own = re.sub(rb"\x1b\]22;[a-z-]*\x07", b"", drawn)  # Textual's own OSC 22 (pointer shape)
    assert b"\x1b]0;pwned" not in own
    assert rb"\x1b]0;pwned\x07" in drawn

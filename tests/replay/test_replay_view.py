"""`mcptape replay --view` hands the diff it computed to the diff viewer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import mcptape.commands.view
from mcptape.commands.replay import replay_command
from tests.conftest import PYTHON, ROOT, SERVERS

pytestmark = pytest.mark.slow


def test_replay_view_opens_the_diff_viewer_on_the_replay_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer receives the same Diff the report was made from, with both sessions' names and
    files (the diff viewer lists two HTTP transcripts by exchange from their files)."""
    opened: list[tuple[Any, str, str, Any]] = []

    def view_diff(d: Any, o: str, n: str, *, paths: Any = None) -> None:
        opened.append((d, o, n, paths))

    monkeypatch.setattr(mcptape.commands.view, "view_diff", view_diff)
    tape = ROOT / "transcripts" / "sdk-echo-tool-stateless.jsonl"
    out = tmp_path / "new.jsonl"
    result = CliRunner().invoke(
        replay_command,
        [
            str(tape),
            "-o",
            str(out),
            "--view",
            "--no-config",
            "--",
            PYTHON,
            str(SERVERS / "fast" / "echo_tool.py"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(opened) == 1
    diff, old_name, new_name, paths = opened[0]
    assert diff.same
    assert (old_name, new_name) == (str(tape), str(out))
    assert [str(p) for p in paths] == [str(tape), str(out)]


def test_replay_refuses_to_overwrite_a_saved_session(tmp_path: Path) -> None:
    """`-o` naming an existing file is refused (exit 2, the file kept) unless --overwrite."""
    tape = ROOT / "transcripts" / "sdk-echo-tool-stateless.jsonl"
    out = tmp_path / "saved.jsonl"
    out.write_text("a session I want to keep")
    argv = [str(tape), "-o", str(out), "--no-config", "--", PYTHON, str(SERVERS / "fast" / "echo_tool.py")]
    refused = CliRunner().invoke(replay_command, argv)
    assert refused.exit_code != 0
    assert isinstance(refused.exception, Exception) and "already exists" in str(refused.exception)
    assert out.read_text() == "a session I want to keep"
    replaced = CliRunner().invoke(replay_command, ["--overwrite", *argv])
    assert replaced.exit_code == 0, replaced.output
    assert out.read_text().startswith('{"mcptape":1')

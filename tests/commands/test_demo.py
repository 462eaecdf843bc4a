"""`mcptape demo`: the README's main job runs end to end on the bundled server."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcptape.transcript import open_transcript
from tests.conftest import console_script

pytestmark = pytest.mark.slow


def test_demo_records_a_clean_and_a_buggy_session(tmp_path: Path) -> None:
    """Both builds are recorded through `mcptape record`; the buggy one's banner is in stdout bytes."""
    result = subprocess.run(
        [console_script(), "demo", "--no-view", "-o", str(tmp_path)],
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode in (0, 1), result.stderr.decode()
    clean, buggy = tmp_path / "demo-clean.jsonl", tmp_path / "demo-buggy.jsonl"
    assert clean.exists() and buggy.exists()
    out = b"".join(e.data for e in open_transcript(buggy).events() if e.ch == "out")
    assert out.startswith(b"demo-server v2 starting")
    text = result.stdout.decode()
    assert "client saw: add(2, 3) -> {'result': 5}" in text
    assert str(buggy) in text
    assert "non-protocol-output" in text and "exec-after-reject" in text, "check runs on what was recorded"
    assert "clean: every stdout byte is protocol" in text
    assert "is live" in text and "result.content[0].text" in text, "the replay names the changed path"
    assert (tmp_path / "demo-replay.jsonl").exists()


def test_an_output_dir_that_cannot_be_created_is_one_error_line(tmp_path: Path) -> None:
    """-o under a regular file is refused with one Error line and exit 2, before anything runs."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = subprocess.run(
        [console_script(), "demo", "--no-view", "-o", str(blocker / "demo")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr == f"Error: cannot create {blocker / 'demo'}: Not a directory (choose another -o DIR)\n"
    )

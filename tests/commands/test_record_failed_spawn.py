"""When the server cannot start, mcptape removes only a transcript file it created itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import console_script

MISSING = "no-such-program-xyz"


def run_record(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [console_script(), "record", "-q", *args, "--", MISSING],
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )


def test_a_failed_spawn_removes_the_new_transcript(tmp_path: Path) -> None:
    """Without --overwrite the file was created by this run: a failed spawn leaves nothing behind."""
    out = tmp_path / "t.jsonl"
    assert run_record("-o", str(out)).returncode == 2
    assert not out.exists()


def test_a_failed_spawn_with_overwrite_never_deletes_the_path(tmp_path: Path) -> None:
    """With --overwrite the path existed (a file, a symlink, a device such as /dev/null as root):
    a failed spawn must not unlink it."""
    target = tmp_path / "target.jsonl"
    target.write_text("old")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert run_record("--overwrite", "-o", str(link)).returncode == 2
    assert link.is_symlink() and target.exists()

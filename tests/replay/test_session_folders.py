"""Where temporary new sessions go: `--keep-dir DIR` (created 0700), a same session removed, a
differing one kept, and `mcptape-replay-*` folders older than a day removed at the next replay."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from mcptape.replay.api import replay
from mcptape.replay.where import SESSION_MAX_AGE, prune_sessions
from tests import inprocess
from tests.replay.conftest import rp

pytestmark = pytest.mark.slow


def test_keep_dir_keeps_a_differing_session_there_and_removes_a_same_one(
    v1_tape: Path, tmp_path: Path
) -> None:
    """--keep-dir: created 0700; a differing session stays in a mcptape-replay-* folder under it."""
    keep = tmp_path / "kept" / "replays"
    same = replay(v1_tape, rp(), keep_dir=keep, config=False)
    assert same.same and not same.kept and list(keep.iterdir()) == []
    assert stat.S_IMODE(keep.stat().st_mode) == 0o700
    proc = inprocess.run("replay", str(v1_tape), "--keep-dir", str(keep), "--no-config", "--", *rp("--v2"))
    assert proc.returncode == 1
    [folder] = list(keep.iterdir())
    assert folder.name.startswith("mcptape-replay-") and (folder / v1_tape.name).is_file()
    assert str(folder / v1_tape.name) in proc.stdout.decode()


def test_session_folders_older_than_a_day_are_removed_at_the_next_replay(
    v1_tape: Path, tmp_path: Path
) -> None:
    """Old mcptape-replay-* folders go; a fresh one, and anything not named so, stay."""
    keep = tmp_path / "replays"
    keep.mkdir()
    old, fresh, other = keep / "mcptape-replay-old", keep / "mcptape-replay-fresh", keep / "notes-old"
    for folder in (old, fresh, other):
        folder.mkdir()
        (folder / "s.jsonl").write_text("{}\n")
    two_days_ago = time.time() - 2 * SESSION_MAX_AGE
    for folder in (old, other):
        os.utime(folder, (two_days_ago, two_days_ago))
    result = replay(v1_tape, rp("--v2"), keep_dir=keep, config=False)
    assert not result.same and result.kept
    left = sorted(p.name for p in keep.iterdir())
    assert "mcptape-replay-old" not in left and {"mcptape-replay-fresh", "notes-old"} <= set(left)
    assert result.new.parent.parent == keep


def test_prune_counts_what_it_removed_and_ignores_files(tmp_path: Path) -> None:
    """prune_sessions removes only folders, only past the age given."""
    (tmp_path / "mcptape-replay-file").write_text("not a folder")
    (tmp_path / "mcptape-replay-a").mkdir()
    assert prune_sessions(tmp_path, max_age=3600, now=time.time()) == 0
    assert prune_sessions(tmp_path, max_age=3600, now=time.time() + 7200) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mcptape-replay-file"]

"""replay's temporary new session is removed when the replay fails (api.replay removes it for a
failure in the driver); a Ctrl-C while the sessions are being diffed must not leave it either."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

import mcptape.replay.api as api
import mcptape.replay.skeleton as skeleton
from tests.conftest import SERVERS, console_script  # noqa: F401

pytestmark = pytest.mark.slow

REPO = SERVERS.parents[1]

GOOD = str(REPO / "transcripts" / "sdk-echo-tool-handshake.jsonl")
ECHO = str(SERVERS / "fast" / "echo_tool.py")


def test_ctrl_c_during_the_diff_leaves_no_temporary_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(skeleton, "diff_events", interrupted)
    with pytest.raises(KeyboardInterrupt):
        api.replay(GOOD, [sys.executable, ECHO], config=False)
    assert list(tmp_path.glob("mcptape-replay-*")) == []

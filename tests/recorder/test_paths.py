"""Where a recording goes: `-o` and `$MCPTAPE_DIR` read the same way."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcptape.recorder.paths import resolve_output


def test_mcptape_dir_from_a_client_config_expands_the_home_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`"env": {"MCPTAPE_DIR": "~/tapes"}` in a client's JSON config is not shell-expanded: mcptape
    expands it, as it does for `-o ~/tapes`."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "tapes").mkdir()
    by_env = resolve_output(None, {"MCPTAPE_DIR": "~/tapes"})
    by_option = resolve_output("~/tapes")
    assert os.path.dirname(by_env) == os.path.dirname(by_option) == str(tmp_path / "tapes")

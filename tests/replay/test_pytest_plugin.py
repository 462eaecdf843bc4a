"""The pytest plugin: a folder of transcripts becomes one test per transcript, failing with the diff."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.replay.conftest import minted, rp
from tests.replay.helpers import corpus, run_pytest

pytestmark = pytest.mark.slow


def test_plugin_collects_a_folder_and_one_changed_response_fails_exactly_one_item(
    tmp_path: Path, v1_tape: Path
) -> None:
    """`pytest transcripts/ --mcptape-server CMD`: 2 items, the changed one fails with the diff."""
    folder = corpus(tmp_path, v1_tape)
    proc = run_pytest(tmp_path, str(folder), "--mcptape-server", shlex.join(rp()))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed" in proc.stdout
    assert "FAILED transcripts/changed.jsonl::changed.jsonl" in proc.stdout
    assert 'result.content[0].text: "Hello, Bob!" -> "Hello, Ada!"' in proc.stdout
    assert "Traceback" not in proc.stdout


def test_plugin_reads_the_server_from_pyproject_and_runs_under_xdist(tmp_path: Path, v1_tape: Path) -> None:
    """[tool.mcptape] server and transcripts in pyproject.toml, `-n 2`: the same verdicts across workers."""
    folder = corpus(tmp_path, v1_tape)
    server = ", ".join(f'"{a}"' for a in rp())
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.mcptape]\nserver = [{server}]\ntranscripts = ["transcripts"]\n'
    )
    proc = run_pytest(tmp_path, "-n", "2", str(folder))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed" in proc.stdout
    assert "changed.jsonl" in proc.stdout and "Hello, Bob!" in proc.stdout


def test_plugin_collects_nothing_without_a_server_and_says_why(tmp_path: Path, v1_tape: Path) -> None:
    """A bare `pytest`: no --mcptape-server, no [tool.mcptape] server, no folder named: no item,
    and one warning naming the way out."""
    corpus(tmp_path, v1_tape)
    proc = run_pytest(tmp_path)
    assert proc.returncode == 5, proc.stdout + proc.stderr  # pytest's "no tests collected"
    assert "mcptape: 2 transcript(s) not collected" in proc.stdout  # data.jsonl is not one
    assert "give --mcptape-server CMD, set [tool.mcptape] server" in proc.stdout


def test_plugin_update_rewrites_the_changed_transcript(tmp_path: Path, v1_tape: Path) -> None:
    """--mcptape-update: the changed item passes and its transcript now holds the new answer."""
    folder = corpus(tmp_path, v1_tape)
    proc = run_pytest(tmp_path, str(folder), "--mcptape-server", shlex.join(rp()), "--mcptape-update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout
    assert b"Hello, Bob!" not in (folder / "changed.jsonl").read_bytes()
    assert "rewrote 1 transcript(s) with the new session (--mcptape-update):" in proc.stdout
    assert "changed.jsonl: 1 message" in proc.stdout


def test_minted_values_are_carried_under_the_plugin(tmp_path: Path, minted_tape: Path) -> None:
    """A 2026-07-28 session with an elicitation and a handle passes as a test item."""
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "minted.jsonl").write_bytes(minted_tape.read_bytes())
    proc = run_pytest(tmp_path, str(folder), "--mcptape-server", shlex.join(minted()))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout

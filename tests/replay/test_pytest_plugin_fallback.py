"""The pytest plugin without a server command replays each transcript against its own recorded
command, as `mcptape replay DIR` does, for the folders named on pytest's command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.replay.helpers import corpus, run_pytest

pytestmark = pytest.mark.slow

PATIENT = ("--mcptape-step-timeout", "60")  # a server starting on a loaded machine is slow, not broken


@pytest.mark.timeout(300)  # an inner pytest run (with xdist) on a loaded machine
def test_a_folder_named_without_a_server_replays_each_transcript_against_its_recorded_command(
    tmp_path: Path, v1_tape: Path
) -> None:
    """`pytest transcripts/ -n 2` with no server anywhere: 2 items (data.jsonl is no transcript),
    each run against its recorded command across xdist workers; the changed one fails with the diff."""
    folder = corpus(tmp_path, v1_tape)
    proc = run_pytest(tmp_path, "-n", "2", str(folder), *PATIENT)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed" in proc.stdout, proc.stdout
    assert "FAILED transcripts/changed.jsonl::changed.jsonl" in proc.stdout
    assert 'result.content[0].text: "Hello, Bob!" -> "Hello, Ada!"' in proc.stdout
    assert "not collected" not in proc.stdout


@pytest.mark.timeout(300)  # an inner pytest run (with xdist) on a loaded machine
def test_one_transcript_named_without_a_server_is_replayed_and_passes(tmp_path: Path, v1_tape: Path) -> None:
    """A single transcript named on the command line replays against its recorded command: same."""
    folder = corpus(tmp_path, v1_tape)
    proc = run_pytest(tmp_path, str(folder / "same.jsonl"), *PATIENT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


@pytest.mark.timeout(300)  # an inner pytest run (with xdist) on a loaded machine
def test_the_warning_of_a_run_without_a_server_names_only_files_under_the_paths_given(
    tmp_path: Path, v1_tape: Path
) -> None:
    """With a test folder named and transcripts elsewhere, nothing outside the folder is named;
    with no path named (a bare pytest), the transcripts found are counted and the first named."""
    corpus(tmp_path, v1_tape)
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "test_ok.py").write_text("def test_ok() -> None:\n    assert 1 + 1 == 2\n")
    named = run_pytest(tmp_path, "tests")
    assert named.returncode == 0, named.stdout + named.stderr
    assert "mcptape" not in named.stdout
    bare = run_pytest(tmp_path)
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert "mcptape: 2 transcript(s) not collected (" in bare.stdout
    assert "name their folder (pytest DIR replays each against its recorded command)" in bare.stdout


@pytest.mark.timeout(300)  # an inner pytest run (with xdist) on a loaded machine
def test_a_differing_session_is_kept_under_pytests_temporary_folder_not_the_systems(
    tmp_path: Path, v1_tape: Path
) -> None:
    """Without --mcptape-keep-dir the new session of a differing replay goes under pytest's base
    temporary folder (which pytest prunes), not into a mcptape-replay-* folder in /tmp."""
    folder = corpus(tmp_path, v1_tape)
    base = tmp_path / "basetemp"
    proc = run_pytest(tmp_path, str(folder / "changed.jsonl"), f"--basetemp={base}", *PATIENT)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"new session: {base / 'mcptape-replay'}/mcptape-replay-" in proc.stdout
    assert list((base / "mcptape-replay").glob("mcptape-replay-*/changed.jsonl"))

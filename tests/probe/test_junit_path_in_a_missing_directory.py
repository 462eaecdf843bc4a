"""A --junit path whose directory does not exist is refused before any case runs (a CI typo costs
one second, not a whole probe)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import PYTHON, SERVERS, console_script


def test_a_junit_path_in_a_missing_directory_is_refused_before_the_probe(tmp_path: Path) -> None:
    """`--junit missing/probe.xml`: exit 2, one Error line naming the directory, no case started."""
    junit = tmp_path / "missing" / "probe.xml"
    out = tmp_path / "out"
    result = subprocess.run(
        [
            console_script(),
            "probe",
            "-o",
            str(out),
            "--junit",
            str(junit),
            "--case",
            "debug-line",
            "--",
            PYTHON,
            str(SERVERS / "echo_tool.py"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"Error: cannot write {junit}: directory {junit.parent} does not exist (create it, or choose "
        "another --junit)\n"
    )
    assert not (out / "start.jsonl").exists()

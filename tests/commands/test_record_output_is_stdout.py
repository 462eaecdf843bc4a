"""`mcptape record` writes nothing of its own to stdout: not even when -o names stdout itself."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import console_script


def test_output_on_stdout_is_refused_before_the_server_starts(tmp_path: Path) -> None:
    """`-o /dev/stdout --overwrite` would interleave JSON Lines with the protocol: one Error, exit 2."""
    marker = tmp_path / "ran"
    result = subprocess.run(
        [console_script(), "record", "--overwrite", "-o", "/dev/stdout", "--", "touch", str(marker)],
        capture_output=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.startswith(b"Error: ") and result.stderr.count(b"\n") == 1
    assert not marker.exists()

"""Pipes: `mcptape check big.jsonl | head` exits 141 (as documented), also when the reader leaves
while a large write is blocked on the full pipe (the write returns short; the rest must not be
dropped silently, which made the exit code 1, "findings")."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.commands.tapes import line, record, write
from tests.conftest import console_script


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_check_into_a_reader_that_leaves_exits_141(tmp_path: Path, as_json: bool) -> None:
    """The report (~800 KB, far more than a pipe holds) is cut by the reader: exit 141, no traceback."""
    noise = [line(i * 0.001, "out", f"noise line {i} " + "x" * 150 + "\n") for i in range(4000)]
    tape = write(tmp_path / "big.jsonl", [*noise, record(t=9.0, ch="exit", code=0, signal=None)])
    argv = [console_script(), "check", *(["--json"] if as_json else []), str(tape)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(100)  # like `head -c 100`, then the reader is gone
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 141, stderr
    assert b"Traceback" not in stderr

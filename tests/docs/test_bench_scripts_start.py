"""Every benchmark starts as `./dev.sh bench` runs it (`python bench/bench_X.py`, from any folder):
its imports resolve and `--help` says how to run it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import PYTHON, ROOT

BENCHES = sorted((ROOT / "bench").glob("bench_*.py"))


@pytest.mark.parametrize("script", BENCHES, ids=[b.stem for b in BENCHES])
def test_the_benchmark_starts_as_dev_sh_runs_it(script: Path, tmp_path: Path) -> None:
    """`python bench/bench_X.py --help` exits 0 with a usage line, run from another folder."""
    done = subprocess.run(
        [PYTHON, str(script), "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout.lower(), done.stdout

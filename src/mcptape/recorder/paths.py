"""Where a recording goes when the user names a directory, or nothing at all."""

from __future__ import annotations

import os
import time
from pathlib import Path


def default_name(now: float | None = None, pid: int | None = None) -> str:
    """`mcptape-20261129-193000-12345.jsonl`: sortable by time, unique per recorder process."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return f"mcptape-{stamp}-{os.getpid() if pid is None else pid}.jsonl"


def resolve_output(output: str | None, environ: dict[str, str] | None = None) -> Path:
    """`-o FILE` as given; `-o DIR` or no `-o` give a new timestamped file in that directory.

    Without `-o` the directory is `$MCPTAPE_DIR`, else the current directory.
    """
    env = os.environ if environ is None else environ
    if output is None:
        base = env.get("MCPTAPE_DIR") or "."
        return Path(base) / default_name()
    path = Path(output).expanduser()
    if path.is_dir():
        return path / default_name()
    return path

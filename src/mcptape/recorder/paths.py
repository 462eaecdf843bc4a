"""Where a recording goes when the user names a directory, or nothing at all (os.path only:
this runs before the server is spawned)."""

from __future__ import annotations

import os
import time


def default_name(now: float | None = None, pid: int | None = None) -> str:
    """`mcptape-20261129-193000-12345.jsonl`: sortable by time, unique per recorder process."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return f"mcptape-{stamp}-{os.getpid() if pid is None else pid}.jsonl"


def resolve_output(output: str | None, environ: dict[str, str] | None = None) -> str:
    """`-o FILE` as given; `-o DIR` or no `-o` give a new timestamped file in that directory.

    Without `-o` the directory is `$MCPTAPE_DIR`, else the current directory.
    """
    env = os.environ if environ is None else environ
    if output is None:
        # expanded like `-o`: a client's JSON config passes `~/tapes` unexpanded
        return os.path.join(os.path.expanduser(env.get("MCPTAPE_DIR") or "."), default_name())
    path = os.path.expanduser(output)
    if os.path.isdir(path):
        return os.path.join(path, default_name())
    return path

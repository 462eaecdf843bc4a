"""Replay an HTTP transcript over Streamable HTTP and diff it, as `replay.api.replay` does for stdio.

from mcptape.replay.httpapi import replay_over_http

result = replay_over_http("session.jsonl", "http://127.0.0.1:8000/mcp", ["python", "server.py", "8000"])
result.assert_same()
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path

from mcptape.diff.ignore import Rule
from mcptape.errors import OutputError, UsageError
from mcptape.limits import seconds_ok
from mcptape.replay.api import DEFAULT_STEP_TIMEOUT, ReplayResult, diff_files, new_session_path
from mcptape.replay.config import Config, load_config
from mcptape.replay.overhttp import run_http
from mcptape.transcript.reader import open_transcript


def replay_over_http(
    path: str | os.PathLike[str],
    url: str,
    command: Sequence[str] = (),
    *,
    output: str | os.PathLike[str] | None = None,
    ignore: Iterable[str | Rule] = (),
    step_timeout: float | None = None,
    shutdown_timeout: float = 2.0,
    stderr: bool | None = None,
    config: Config | bool = True,
    overwrite: bool = False,
    keep_dir: str | os.PathLike[str] | None = None,
    allow_remote: bool = False,
) -> ReplayResult:
    """Send the recorded requests of the HTTP transcript at `path` to the server at `url` (started
    first by `command` when given, stopped at the end), record the new session through the
    recording proxy, and diff the two. `url` must be on loopback unless `allow_remote`. The new
    session goes to `output`, or to a temporary `mcptape-replay-*` folder under `keep_dir`, removed
    when the sessions are the same. Raises `MCPTapeError` for unreadable input, a server that does
    not start, a remote URL."""
    cfg = load_config() if config is True else (config if isinstance(config, Config) else None)
    timeout = step_timeout or (
        cfg.step_timeout if cfg is not None and cfg.step_timeout else DEFAULT_STEP_TIMEOUT
    )
    for name, seconds in (("step timeout", timeout), ("shutdown timeout", shutdown_timeout)):
        if not seconds_ok(seconds, min_open=name == "step timeout"):
            raise UsageError(f"the {name} {seconds!r} is out of range", hint="give seconds, at most 86400")
    with_stderr = stderr if stderr is not None else (cfg.stderr if cfg is not None else False)
    header = open_transcript(path).header
    temporary = output is None
    new_path = new_session_path(path, output, overwrite=overwrite, keep_dir=keep_dir)
    try:
        run = run_http(
            Path(path),
            url,
            list(command),
            new_path,
            overwrite=overwrite,
            step_timeout=timeout,
            shutdown_timeout=shutdown_timeout,
            allow_remote=allow_remote,
        )
        if run.write_error is not None:
            raise OutputError(f"cannot write {new_path}: {run.write_error.strerror or run.write_error}")
        diff = diff_files(path, new_path, ignore=ignore, stderr=with_stderr, config=cfg or False)
    except BaseException:  # Ctrl-C too: no temporary session is left behind
        if temporary:
            shutil.rmtree(new_path.parent, ignore_errors=True)
        raise
    result = ReplayResult(
        original=Path(path),
        new=new_path,
        command=list(command) or [url],
        header=header,
        run=run,
        diff=diff,
        notes=list(diff.notes),
    )
    if temporary and result.same:
        shutil.rmtree(new_path.parent, ignore_errors=True)
        result.kept = False
    return result

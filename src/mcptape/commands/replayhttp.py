"""`mcptape replay FILE --http-upstream URL [-- CMD]`, wired: the HTTP replay (replay/overhttp.py)
records the new session, then the diff `mcptape diff` prints compares it with the recording."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from mcptape.commands.output import write, write_json
from mcptape.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from mcptape.textsafe import escape_text


def replay_over_http(
    transcript: Path,
    upstream: str,
    command: list[str],
    output: Path | None,
    *,
    overwrite: bool,
    as_json: bool,
    ignore: tuple[str, ...],
    stderr: bool,
    config: bool,
    step_timeout: float | None,
    shutdown_timeout: float,
) -> int:
    """Replay, diff, print; the exit code (0 same, 1 different or incomplete)."""
    from mcptape.replay.api import diff_files
    from mcptape.replay.overhttp import replay_http
    from mcptape.replay.render import diff_to_json, render_diff_report

    if transcript.is_dir():
        raise UsageError("--http-upstream replays one transcript, not a folder")
    temporary = output is None
    target = output if output is not None else Path(tempfile.mkdtemp(prefix="mcptape-replay-")) / "new.jsonl"
    issues = replay_http(
        transcript,
        upstream,
        command,
        target,
        overwrite=overwrite,
        step_timeout=step_timeout or 10.0,
        shutdown_timeout=shutdown_timeout,
    )
    diff = diff_files(transcript, target, ignore=ignore, stderr=stderr, config=config)
    same = diff.same and not issues
    if as_json:
        write_json(
            {**diff_to_json(diff), "issues": issues, "new": str(target) if not (same and temporary) else None}
        )
    else:
        for issue in issues:
            click.echo(f"mcptape replay: {escape_text(issue)}", err=True)
        write(render_diff_report(diff, str(transcript), str(target)))
    if same and temporary:
        os.unlink(target)
        os.rmdir(target.parent)
    return EXIT_OK if same else EXIT_FINDINGS

"""`mcptape replay FILE --http-upstream URL [--http-allow-remote] [-- CMD]`, wired: the options an HTTP
replay does not take are refused before any work, then `replay.httpapi.replay_over_http` replays and
diffs, and `replay` reports its result as it reports a stdio one (text, JSON, CI formats, --view,
--update)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcptape.errors import UsageError

if TYPE_CHECKING:
    from mcptape.replay.api import ReplayResult


def refuse_for_http(transcript: Path, learn: int | None, common: dict[str, Any]) -> None:
    """Refuse, before any work, what an HTTP replay does not take."""
    if transcript.is_dir():
        raise UsageError("--http-upstream replays one transcript, not a folder", hint="give one .jsonl file")
    refused = [
        name
        for name, given in (
            ("--learn", learn is not None),
            ("--pace", common.get("pace") is not None),
            ("--stub", bool(common.get("stubs"))),
            ("--secret", bool(common.get("secrets"))),
            ("--http-match", common.get("http_match") is not None),
        )
        if given
    ]
    if refused:
        raise UsageError(f"--http-upstream does not take {', '.join(refused)} yet", hint="see docs/http.md")


def replay_http_transcript(
    transcript: Path,
    upstream: str,
    command: list[str],
    output: Path | None,
    overwrite: bool,
    allow_remote: bool,
    common: dict[str, Any],
) -> ReplayResult:
    """Replay one HTTP transcript over HTTP (`common`: the replay command's shared options)."""
    from mcptape.replay.httpapi import replay_over_http

    return replay_over_http(
        transcript,
        upstream,
        command,
        output=output,
        ignore=common["ignore"],
        step_timeout=common["step_timeout"],
        shutdown_timeout=common["shutdown_timeout"],
        stderr=common["stderr"],
        config=common["config"],
        overwrite=overwrite,
        keep_dir=common["keep_dir"],
        allow_remote=allow_remote,
    )

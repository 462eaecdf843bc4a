"""`mcptape replay FOLDER`, wired: every transcript under a folder replayed over the transport it
was recorded on, a line each, the report of each that differs, a summary, the worst exit code."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mcptape.commands.output import write, write_json
from mcptape.errors import EXIT_FINDINGS, EXIT_OK, UsageError

if TYPE_CHECKING:
    from mcptape.commands.ci.replay import Replayed
    from mcptape.diff.unused import UnusedRules
    from mcptape.replay.settings import ReplaySettings


def emit(text: str) -> None:
    write(text)


def replay_folder(
    folder: Path,
    command: list[str] | None,
    settings: ReplaySettings,
    mode: str,
    update: bool,
    replayed: list[Replayed] | None = None,
    announce: Callable[[Any], None] | None = None,
) -> int:
    """Replay every `*.jsonl` under `folder` (sorted), each over the transport it was recorded on: a
    line per transcript, the report of each that differs, a summary; the exit code is the worst (2
    unreadable or not run, 1 different, 0 same). Each replay (or why it could not run) is added to
    `replayed` for the CI formats."""
    from mcptape.diff.unused import UnusedRules
    from mcptape.errors import EXIT_ERROR
    from mcptape.textsafe import escape_text

    files = sorted(path for path in folder.rglob("*.jsonl") if path.is_file())
    if not files:
        raise UsageError(f"no *.jsonl transcript under {folder}", hint="record one with mcptape record")
    unused = UnusedRules()  # a rule that hid nothing is told once, at the end
    counts = Counter(
        _folder_entry(path, command, settings, mode, update, replayed, unused, announce) for path in files
    )
    if mode == "text":
        emit("".join(f"{escape_text(line)}\n" for line in unused.lines()))
        summary = f"{counts['same']} same, {counts['different']} different, {counts['unreadable']} unreadable"
        if counts["not run"]:
            summary += f", {counts['not run']} not run"
        emit(f"{len(files)} transcripts under {escape_text(str(folder))}: {summary}\n")
    if counts["unreadable"] or counts["not run"]:
        return EXIT_ERROR
    return EXIT_FINDINGS if counts["different"] else EXIT_OK


def _folder_entry(
    path: Path,
    command: list[str] | None,
    settings: ReplaySettings,
    mode: str,
    update: bool,
    replayed: list[Replayed] | None,
    unused: UnusedRules,
    announce: Callable[[Any], None] | None,
) -> str:
    """Replay one transcript of a folder and say how it went: `same`, `different`, `unreadable` or
    `not run` (its own recorded command cannot run here, or it does not fit what was asked)."""
    from mcptape.commands.ci.replay import Replayed
    from mcptape.errors import SpawnError, TranscriptError
    from mcptape.replay.api import replay_with
    from mcptape.replay.transport import TransportMismatch
    from mcptape.share.unredact import redaction_info
    from mcptape.textsafe import escape_text

    name = escape_text(str(path))
    try:
        if settings.secrets and redaction_info(path) is None:  # --secret is for the redacted ones
            settings = dataclasses.replace(settings, secrets=())
        result = replay_with(path, command, settings, announce=announce)
    except (TranscriptError, SpawnError, UsageError) as exc:
        unreadable = isinstance(exc, TranscriptError)
        if not unreadable and command is not None and not isinstance(exc, TransportMismatch):
            raise  # the command given cannot run: the same for every transcript
        if mode == "json":
            _emit_line({"file": str(path), "error": str(exc)})
        elif mode == "text":
            emit(f"{'unreadable ' if unreadable else 'not run    '} {name}: {escape_text(str(exc))}\n")
        if replayed is not None:
            replayed.append(Replayed(str(path), error=str(exc) if unreadable else f"not run: {exc}"))
        return "unreadable" if unreadable else "not run"
    unused.add(result.diff)
    if replayed is not None:
        replayed.append(Replayed(str(path), result))
    if mode == "json":
        _emit_line({"file": str(path), **result.to_json()})
    elif mode == "text":
        emit(f"{result.verdict:<10}  {name} ({result.run.seconds:.1f}s)\n")
        if not result.same:
            emit("".join(f"    {line}\n" for line in result.render().splitlines()))
    if result.same:
        return "same"
    if update and result.run.completed and not result.run.held:
        result.update()
        click.echo(f"updated {name} with the new session", err=mode != "text")
        return "same"
    return "different"


def _emit_line(payload: dict[str, Any]) -> None:
    """One compact JSON object on a line of its own (a folder's replays, JSON Lines)."""
    write_json(payload, indent=False)

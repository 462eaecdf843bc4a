"""`mcptape replay FILE --learn N [--save]`, wired: learn the noise, print it, save the rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcptape.commands.output import write, write_json
from mcptape.errors import UsageError

if TYPE_CHECKING:
    from mcptape.replay.settings import ReplaySettings


def learn_and_report(
    transcript: Path,
    command: list[str] | None,
    runs: int,
    save: bool,
    as_json: bool,
    settings: ReplaySettings,
    announce: Callable[[Any], None] | None = None,
) -> int:
    """Replay `runs` times, print the proposed rules (and save them with `save`); the exit code is 0
    when the replays completed and the rules make every one of them `same`, else 1."""
    from mcptape.replay.config import Learned
    from mcptape.replay.configfile import add_learned, save_target
    from mcptape.replay.learn import learn_noise
    from mcptape.replay.lessons import learned_to_json, render_learned
    from mcptape.replay.scope import identity_of
    from mcptape.transcript import open_transcript

    if transcript.is_dir():
        raise UsageError("--learn takes one transcript, not a folder", hint="learn from each one in turn")
    learned = learn_noise(transcript, command, runs, settings, announce=announce)
    target = learned.config.path if learned.config is not None and learned.config.path else save_target()
    identity = identity_of(open_transcript(transcript))  # the rules are this server's only
    scope = Learned(identity.server, None if identity.server else identity.command)
    saved = None
    if save and learned.completed and learned.lesson.proposals:
        rules = [p.rule.text for p in learned.lesson.proposals]
        saved = (target, add_learned(target, identity.server, identity.command, rules))
    if as_json:
        write_json(learned_to_json(learned, saved, scope=scope.describe()))
    else:
        write(render_learned(learned, saved, save_to=target, scope=scope.describe()))
    return learned.exit_code

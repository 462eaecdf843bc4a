"""The Python API: replay a transcript against a command, or diff two transcripts.

import mcptape

result = mcptape.replay("tests/transcripts/list-and-call.jsonl", ["python", "-m", "my_server"])
result.assert_same()          # AssertionError whose message is the readable diff

from mcptape.replay import diff_files
diff = diff_files("old.jsonl", "new.jsonl", ignore=["tools/call:result._meta"])
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from mcptape.diff.channels import unobserved_channels
from mcptape.diff.ignore import Rule
from mcptape.diff.sessions import Diff, diff_events
from mcptape.replay.config import Config
from mcptape.replay.result import ReplayResult, replace_with
from mcptape.replay.settings import DEFAULT_STEP_TIMEOUT, ReplaySettings, config_of, rules_of
from mcptape.replay.skeleton import new_session_path, run_replay
from mcptape.replay.where import Server

if TYPE_CHECKING:
    from mcptape.transcript.reader import Transcript

__all__ = [
    "DEFAULT_STEP_TIMEOUT",
    "ReplayResult",
    "ReplaySettings",
    "diff_files",
    "new_session_path",
    "replace_with",
    "replay",
    "replay_with",
    "rules_of",
]


def _open(path: str | os.PathLike[str]) -> Transcript:
    from mcptape.transcript import open_transcript

    return open_transcript(path)


def _notes(path: str | os.PathLike[str], transcript: Transcript) -> list[str]:
    """The transcript's reading problems (known once its events have been read)."""
    return [f"{path}: transcript line {p.line}: {p.reason}" for p in transcript.problems]


def replay(
    path: str | os.PathLike[str],
    command: Sequence[str] | None = None,
    *,
    output: str | os.PathLike[str] | None = None,
    ignore: Iterable[str | Rule] = (),
    pace: str | None = None,
    step_timeout: float | None = None,
    shutdown_timeout: float = 2.0,
    stderr: bool | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    stubs: Sequence[str] = (),
    config: Config | bool = True,
    secrets: Sequence[str] = (),
    overwrite: bool = False,
    http_match: str | Sequence[str] | None = None,
    keep_dir: str | os.PathLike[str] | None = None,
    announce: Callable[[Server], None] | None = None,
    http_upstream: str | None = None,
    allow_remote: bool = False,
    set_env: Sequence[str] | Mapping[str, str] = (),
    inherit_env: bool = False,
    allow_mutating: bool | None = None,
) -> ReplayResult:
    """Replay the client side of the transcript at `path` against `command`; diff the sessions.

    `command` defaults to `[tool.mcptape] server`, then to the recorded command, run in the
    recorded working directory (`announce` is called with the `Server` chosen before it starts).
    The new session is recorded to `output`, or to a temporary file in a `mcptape-replay-*` folder
    under `keep_dir` (default: the system's temporary folder), kept for inspection when the sessions
    differ, removed when they are the same; such folders older than a day are removed. `stubs`
    names commands to replace with recording stubs (as `record --stub`), besides the ones the
    recording had, which are always installed again.
    `config=True` reads `[tool.mcptape]` from the nearest pyproject.toml; pass a `Config`
    or False. `secrets` (`NAME=VALUE`) put real values back where a redacted transcript has their
    placeholder (verified against its hash first; see docs/sharing.md). A transcript recorded with
    `--http-cassette` gets its recorded HTTP responses served back, requests matched on
    `http_match` (default method, URL and body; see docs/cassettes.md). Raises `MCPTapeError` for
    unreadable input or a command that cannot start. An existing `output` is refused unless
    `overwrite` (a saved session is never lost silently).

    A transcript recorded with `record --http-upstream` is replayed over HTTP (docs/http.md): the
    server is started as above and reached at the recorded URL, or at `http_upstream` (on loopback
    unless `allow_remote`; without a command, the server already running there is used).

    The server gets the variable names the transcript recorded (LANG, LC_* and TZ with their
    recorded values, the others with their values in `env`, default this process's environment),
    `set_env` (`NAME=VALUE` strings or a mapping) on top; `inherit_env=True` gives it the whole of
    `env` instead (see `mcptape.replay.environment`).

    A `tools/call` of a tool not marked `readOnlyHint: true` is held back, not sent, unless
    `allow_mutating` (None: the settings file's `allow-mutating`, else MCPTAPE_ALLOW_MUTATING=1);
    the result is then `incomplete` (`mcptape.replay.guard`).

    Long only by its public keywords and their documentation here: the work is done by
    `ReplaySettings.resolve` and `run_replay` (`replay_with` takes settings already resolved).
    """
    settings = ReplaySettings.resolve(
        config=config,
        ignore=ignore,
        pace=pace,
        step_timeout=step_timeout,
        shutdown_timeout=shutdown_timeout,
        stderr=stderr,
        stubs=stubs,
        secrets=secrets,
        http_match=http_match,
        http_upstream=http_upstream,
        allow_remote=allow_remote,
        keep_dir=keep_dir,
        env=env,
        cwd=cwd,
        set_env=set_env,
        inherit_env=inherit_env,
        allow_mutating=allow_mutating,
    )
    return run_replay(path, command, settings, output=output, overwrite=overwrite, announce=announce)


def replay_with(
    path: str | os.PathLike[str],
    command: Sequence[str] | None,
    settings: ReplaySettings,
    *,
    output: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    announce: Callable[[Server], None] | None = None,
) -> ReplayResult:
    """`replay` with the settings resolved once (`ReplaySettings.resolve`): what the command, the
    learner and the pytest plugin call for each transcript."""
    return run_replay(path, command, settings, output=output, overwrite=overwrite, announce=announce)


def diff_files(
    old: str | os.PathLike[str],
    new: str | os.PathLike[str],
    *,
    ignore: Iterable[str | Rule] = (),
    stderr: bool = False,
    config: Config | bool = False,
) -> Diff:
    """The diff of two transcripts (nothing is run). Raises TranscriptError for unreadable input."""
    cfg = config_of(config)
    rules = rules_of(ignore, cfg)
    old_transcript, new_transcript = _open(old), _open(new)  # both headers checked before any work
    diff = diff_events(
        old_transcript.events(),
        new_transcript.events(),
        rules,
        stderr=stderr,
        unobserved=(
            unobserved_channels(old_transcript.header.extra),
            unobserved_channels(new_transcript.header.extra),
        ),
    )
    diff.notes = _notes(old, old_transcript) + _notes(new, new_transcript)
    return diff

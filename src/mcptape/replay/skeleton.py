"""The one replay skeleton, whatever the transport: read the recording, choose its transport and the
server, prepare what every transport shares (the new session's path, the cassette, the secrets),
let the transport's `Driver` run the server and play the client, then diff the two sessions and
add what the run itself ran into. Nothing here knows stdio from HTTP (`replay.transport` does).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mcptape.check.model import ExecCall
from mcptape.diff.channels import NOT_OBSERVED, unobserved_channels
from mcptape.diff.sessions import EXECUTOR, Diff, diff_events
from mcptape.errors import OutputError, UsageError
from mcptape.replay.cassette import Player, cassette_player, unmatched_issues
from mcptape.replay.environment import environment_for
from mcptape.replay.guard import held_message, mark_held
from mcptape.replay.outcome import EXECUTED_ACTIONS, HELD_CALLS, UNMATCHED_SECRET, Issue, Run
from mcptape.replay.result import ReplayResult
from mcptape.replay.scope import with_learned
from mcptape.replay.settings import ReplaySettings
from mcptape.replay.surfacechange import surface_change
from mcptape.replay.transport import HTTP, Job, check_fits, driver_for, transport_of
from mcptape.replay.where import GIVEN, Server, server_for, session_folder, stubs_for
from mcptape.share.outputs import same_file

if TYPE_CHECKING:
    from mcptape.share.placeholder import Unredactor
    from mcptape.transcript.reader import Transcript


def run_replay(
    path: str | os.PathLike[str],
    command: Sequence[str] | None,
    settings: ReplaySettings,
    *,
    output: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    announce: Callable[[Server], None] | None = None,
) -> ReplayResult:
    """Replay the transcript at `path` against `command` (see `replay.api.replay`), over the
    transport it was recorded on, and diff the sessions."""
    original = open_recording(path)  # read again for each pass (plan, diff), never held whole
    settings = with_learned(settings, original)  # the rules learned for this recording's server
    transport = transport_of(original.header)
    check_fits(Path(path), transport, settings)
    server = choose_server(original, command, settings, transport)
    environment = None
    if server.command:  # a server already running (over HTTP) has its own environment
        environment = environment_for(
            original.header.extra, settings.set_env, inherit=settings.inherit_env, here=settings.env
        )
        settings = dataclasses.replace(settings, env=environment.env)
    player = cassette_player(original.header.extra, original.events(), settings.http_match)
    from mcptape.share.unredact import load_unredactor

    unredactor = load_unredactor(path, settings.secrets)
    new_path = new_session_path(path, output, overwrite=overwrite, keep_dir=settings.keep_dir)
    job = Job(
        Path(path),
        original,
        server,
        new_path,
        settings,
        transform=_per_line(unredactor.line) if unredactor.by_digest else None,
        http=player.listener if player is not None else None,
    )
    run, new_transcript, diff = _drive_and_diff(
        transport, job, announce, unredactor, temporary=output is None
    )
    surface = surface_change(original, new_transcript, diff)  # its own line, not only a tools/list diff
    result = ReplayResult(
        original=Path(path),
        new=new_path,
        command=server.command or [_upstream_of(original, settings)],
        header=original.header,
        run=run,
        diff=diff,
        notes=_notes(path, original) + _notes(new_path, new_transcript),
        server=server,
        environment=environment,
        surface=surface,
    )
    _run_issues(result, unredactor, player)
    if output is None and result.same:
        shutil.rmtree(new_path.parent, ignore_errors=True)
        result.kept = False
    return result


def open_recording(path: str | os.PathLike[str]) -> Transcript:
    from mcptape.transcript import open_transcript

    return open_transcript(path)


def choose_server(
    original: Transcript, command: Sequence[str] | None, settings: ReplaySettings, transport: str
) -> Server:
    """The server to start: the command given, else the configured one, else the recorded one (in
    its recorded folder). Over HTTP, `--http-upstream` without a command, or a recording that ran
    none, means the server already running at the URL (an empty command)."""
    header = original.header
    if transport == HTTP and not command and (settings.http_upstream is not None or not header.command):
        server = Server([], settings.cwd, GIVEN)
    else:
        server = server_for(header, command, settings.config, settings.cwd)
    server = dataclasses.replace(server, stubs=stubs_for(header, settings.stubs))
    if server.command and not server.command[0]:  # e.g. an unset shell variable: posix_spawn raises
        raise UsageError("the server command's name is empty", hint="give the server's executable after --")
    return server


def _drive_and_diff(
    transport: str,
    job: Job,
    announce: Callable[[Server], None] | None,
    unredactor: Unredactor,
    *,
    temporary: bool,
) -> tuple[Run, Transcript, Diff]:
    """Make the driver (it checks what it needs), say which server runs when it was not given, run
    it, then diff the recording against the new session, streamed (a server that flooded its stdout
    made a transcript as large as the flood), with the `--secret` values it echoed behind their
    placeholders again. A temporary session is removed when anything fails, Ctrl-C included."""
    from mcptape.share.unredact import hiding

    try:
        driver = driver_for(transport, job)
        if announce is not None and job.server.origin != GIVEN and job.server.command:
            announce(job.server)
        run = driver.replay()
        if run.write_error is not None:  # what is there is a part of the session, or nothing
            failed = run.write_error
            raise OutputError(f"cannot write {job.new_path}: {failed.strerror or failed}")
        new_transcript = open_recording(job.new_path)
        diff = diff_events(
            job.transcript.events(),
            hiding(new_transcript.events(), unredactor),
            list(job.settings.rules),
            stderr=job.settings.stderr,
            unobserved=(unobserved_channels(job.transcript.header.extra), NOT_OBSERVED),
        )
        if run.held:
            mark_held(diff, run.held)
    except BaseException:
        if temporary:
            shutil.rmtree(job.new_path.parent, ignore_errors=True)
        raise
    return run, new_transcript, diff


def _run_issues(result: ReplayResult, unredactor: Unredactor, player: Player | None) -> None:
    """What the run ran into besides the driver's own issues: secrets that matched nothing, cassette
    requests with no recorded answer, side effects run again."""
    issues = result.run.issues
    if result.run.held:
        issues.append(Issue(HELD_CALLS, held_message(result.run.held)))
    for label in unredactor.unmatched:
        message = f"--secret {label}: the value matches no placeholder in {result.original}"
        issues.append(Issue(UNMATCHED_SECRET, message, error=False))
    if player is not None:
        issues.extend(unmatched_issues(player))
    warning = executed_actions(result.diff, cassette=player is not None)
    if warning is not None:
        issues.append(Issue(EXECUTED_ACTIONS, warning, error=False))


def _upstream_of(original: Transcript, settings: ReplaySettings) -> str:
    """The URL replayed against when no server command ran (what the report names instead)."""
    if settings.http_upstream is not None:
        return settings.http_upstream
    http = original.header.extra.get("http")
    upstream = http.get("upstream") if isinstance(http, dict) else None
    return upstream if isinstance(upstream, str) else ""


def _notes(path: str | os.PathLike[str], transcript: Transcript) -> list[str]:
    """The transcript's reading problems (known once its events have been read)."""
    return [f"{path}: transcript line {p.line}: {p.reason}" for p in transcript.problems]


def new_session_path(
    path: str | os.PathLike[str],
    output: str | os.PathLike[str] | None,
    *,
    overwrite: bool,
    keep_dir: str | os.PathLike[str] | None,
) -> Path:
    """Where a replay of `path` records its new session: `output` (neither the transcript itself
    nor, without `overwrite`, an existing file), or a new `mcptape-replay-*` folder under `keep_dir`."""
    if output is not None and (
        Path(output).resolve() == Path(path).resolve() or same_file(Path(output), path)
    ):
        raise UsageError(
            f"-o {output} is the transcript being replayed", hint="write the new session elsewhere"
        )
    if output is not None and not overwrite and Path(output).exists():
        raise OutputError(f"{output} already exists", hint="pass --overwrite, or choose another -o")
    return Path(output) if output is not None else session_folder(keep_dir) / Path(path).name


def executed_actions(diff: Diff, *, cassette: bool) -> str | None:
    """The warning for the side effects the replay ran again (None: none ran). A stubbed command
    ran nothing (the stub answered for it): it is named, but alone it is no reason to warn."""
    counts: Counter[str] = Counter()
    for pair in diff.pairs:
        if pair.kind != EXECUTOR or pair.new is None or not isinstance(pair.new, ExecCall):
            continue
        value = pair.new.value
        stubbed = pair.scope == "exec" and value is not None and value.get("source") == "stub"
        counts["stub" if stubbed else pair.scope] += 1
    if not counts["exec"] and not counts["http"]:
        return None
    parts = []
    if counts["exec"]:
        parts.append(f"{counts['exec']} action(s) reported on the executor tap, which really ran")
    if counts["http"]:
        answerer = "the cassette" if cassette else "the sink"
        parts.append(f"{counts['http']} HTTP request(s), answered by {answerer} (none reached a host)")
    if counts["stub"]:
        parts.append(f"{counts['stub']} stubbed command(s), not run")
    if counts["exec"]:
        return "the replay ran the session's side effects again: " + "; ".join(parts)
    # nothing really ran: the server only tried (a sink, a cassette or a stub answered)
    return "the replayed server tried the session's side effects again, and none ran: " + "; ".join(parts)


def _per_line(fix: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """Apply a line substitution to each line of a chunk (lines as the check core frames them)."""
    from mcptape.check.framing import lines_of

    def apply(data: bytes) -> bytes:
        return b"".join(fix(line) for line in lines_of(data, "in"))

    return apply

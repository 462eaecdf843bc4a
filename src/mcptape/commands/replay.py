"""`mcptape replay` as a click command: options, output, exit codes (`mcptape diff` is in diff.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from mcptape.commands.options import Seconds
from mcptape.commands.output import write, write_json
from mcptape.commands.outputs import Outputs, report_options
from mcptape.errors import EXIT_OK, UsageError
from mcptape.textsafe import escape_controls

if TYPE_CHECKING:
    from mcptape.commands.ci.replay import Replayed
    from mcptape.replay.settings import ReplaySettings

IGNORE_HELP = (
    "Do not compare what RULE reaches: [METHOD:]PATH, e.g. "
    "'tools/call:result.content[*].text|json.timestamp' "
    "(|json goes inside a JSON document held in a string). Repeatable; added to [tool.mcptape] ignore."
)


def emit(payload: dict[str, Any] | str, as_json: bool) -> None:
    """Print the report: the JSON document (`--json`) or the text."""
    if as_json:
        assert isinstance(payload, dict)
        write_json(payload)
    else:
        assert isinstance(payload, str)
        write(payload)


@click.command(
    "replay",
    epilog="""\b
Examples:
  mcptape replay session.jsonl -- python -m my_server
  mcptape replay session.jsonl --ignore 'tools/call:result.content[*].text|json.timestamp' -- ./server
  mcptape replay session.jsonl --update -- python -m my_server     # accept the new behaviour
  mcptape replay session.jsonl --learn 3 --save -- ./server        # learn the noise, save the rules
  mcptape replay transcripts/ -- python -m my_server               # every *.jsonl under a folder
  mcptape replay http.jsonl                  # recorded with record --http-upstream: over HTTP
  mcptape replay http.jsonl --http-upstream http://127.0.0.1:8001/mcp -- ./server --port 8001
  mcptape replay transcripts/ --format github --junit replay.xml -- ./server   # CI (docs/ci.md)
  mcptape replay writes.jsonl --allow-mutating -- ./server --data /tmp/scratch-copy

A tools/call of a tool not marked readOnlyHint: true (in the recorded or the new server's
tools/list) is not sent unless --allow-mutating is given (or MCPTAPE_ALLOW_MUTATING=1, or
allow-mutating = true in [tool.mcptape]): the replay then says which calls it held back and
ends "incomplete" (exit 1), since it did not test them.

Exit codes: 0 same, 1 different, incomplete or the replay failed, 2 usage error or unreadable
transcript.""",
)
@click.argument("transcript", type=click.Path(path_type=Path, dir_okay=True))
@click.argument("command", nargs=-1, metavar="[-- CMD [ARGS]...]")
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write the new session here (default: a temporary file, kept only when the sessions differ).",
)
@click.option(
    "--pace",
    type=click.Choice(["causal", "recorded"]),
    default=None,
    help="causal (default): before each client chunk, wait for the responses the original client "
    "had received; recorded: reproduce the original timing.",
)
@click.option(
    "--step-timeout",
    type=Seconds(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="How long to wait for the new server's responses at each step (default 10).",
)
@click.option(
    "--shutdown-timeout",
    type=Seconds(min=0),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="After stdin is closed: wait this long before SIGTERM, then SIGKILL.",
)
@click.option("--ignore", "ignore", multiple=True, metavar="RULE", help=IGNORE_HELP)
@click.option(
    "--learn",
    type=click.IntRange(2, 20),
    default=None,
    metavar="N",
    help="Replay N times against the same build and propose ignore rules for what varies between "
    "the replays, with the values seen (exit 0 when they make every replay same).",
)
@click.option(
    "--save",
    is_flag=True,
    help="With --learn: add the rules to the project's settings (mcptape.toml or pyproject.toml "
    "[tool.mcptape]; ./mcptape.toml when there is none).",
)
@click.option("--stderr", "with_stderr", is_flag=True, default=None, help="Compare stderr lines too.")
@click.option(
    "--update", is_flag=True, help="After showing the diff, replace TRANSCRIPT with the new session."
)
@click.option(
    "--stub",
    "stubs",
    multiple=True,
    metavar="NAME",
    help="Replace command NAME on the server's PATH with a recording stub that exits 255 (repeatable).",
)
@click.option(
    "--env",
    "set_env",
    multiple=True,
    metavar="NAME=VALUE",
    help="Set NAME in the server's environment (repeatable). The server otherwise gets the variable "
    "names the transcript recorded: LANG, LC_* and TZ as recorded, the others with this process's "
    "values, and nothing else (see docs/replay.md).",
)
@click.option(
    "--inherit-env",
    is_flag=True,
    help="Give the server this process's whole environment, as before names were recorded (--env applies).",
)
@click.option(
    "--allow-mutating",
    is_flag=True,
    default=None,
    help="Also send the tools/call of tools that may change data (not marked readOnlyHint: true); "
    "point the server at a scratch copy of its data. Default: such calls are held back and listed.",
)
@click.option("--no-config", is_flag=True, help="Do not read [tool.mcptape] from pyproject.toml.")
@click.option("--view", is_flag=True, help="Open the diff viewer on the result (after the report).")
@click.option("--overwrite", is_flag=True, help="Replace the -o file if it exists (default: refuse).")
@click.option(
    "--keep-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    metavar="DIR",
    help="Keep the new sessions that differ under DIR (default: the system's temporary folder); "
    "mcptape-replay-* folders there older than a day are removed.",
)
@click.option(
    "--secret",
    "secrets",
    multiple=True,
    metavar="NAME=VALUE",
    help="For a redacted transcript: send VALUE where its placeholder stands (verified against the "
    "placeholder's hash first; repeatable).",
)
@click.option(
    "--http-upstream",
    metavar="URL",
    help="For a transcript recorded with record --http-upstream (replayed over HTTP without this "
    "option, at the URL it recorded): send its requests to URL instead; without -- CMD, the server "
    "already running there is used (see docs/http.md).",
)
@click.option(
    "--http-allow-remote", is_flag=True, help="Let --http-upstream name a host that is not loopback."
)
@click.option(
    "--http-match",
    default=None,
    metavar="FIELDS",
    help="For a transcript recorded with --http-cassette: what makes a request the recorded one "
    "(default method,url,body; also scheme, host, port, path, query, headers, header:NAME).",
)
@report_options(
    json_help="Print the result as JSON.",
    format_help="What stdout gets: the report, JSON (as --json), or GitHub workflow annotations (a line "
    "per difference, at its transcript line) and a summary line.",
    each={"junit": "a test case per transcript", "sarif": "a result per difference"},
)
def replay_command(
    transcript: Path,
    command: tuple[str, ...],
    output: Path | None,
    outputs: Outputs,
    pace: str | None,
    step_timeout: float | None,
    shutdown_timeout: float,
    ignore: tuple[str, ...],
    learn: int | None,
    save: bool,
    with_stderr: bool | None,
    update: bool,
    stubs: tuple[str, ...],
    no_config: bool,
    view: bool,
    overwrite: bool,
    keep_dir: Path | None,
    secrets: tuple[str, ...],
    http_match: str | None,
    http_upstream: str | None = None,
    http_allow_remote: bool = False,
    set_env: tuple[str, ...] = (),
    inherit_env: bool = False,
    allow_mutating: bool | None = None,
) -> None:  # Long only by its options: one parameter each, resolved at once below
    """Replay TRANSCRIPT's client bytes against a new build and diff the two sessions.

    Sends the recorded client bytes exactly (malformed lines included), answers the server's
    own requests (roots/list, sampling, elicitation, ping) with the recorded answers, records the
    new session (executor tap and HTTP sink on: nothing reaches the network) and compares it with
    the recording: responses by request id, notifications by method, stdout cleanliness,
    executor calls, exec-after-reject, exit status. CMD defaults to [tool.mcptape] server, then
    to the recorded command, run in the recorded working directory (said on stderr). Values the
    recorded server minted and the client sent back (a requestState, a handle, a cursor) are sent
    as the new server minted them, and listed. A transcript recorded with record --http-upstream is
    replayed over HTTP, against the same command, at the URL it recorded.
    """
    _refuse_conflicts(transcript, output, learn, save, update, view, outputs.report)
    from mcptape.replay.settings import ReplaySettings

    settings = ReplaySettings.resolve(
        config=not no_config, ignore=ignore, pace=pace, step_timeout=step_timeout,
        shutdown_timeout=shutdown_timeout, stderr=with_stderr, stubs=stubs, secrets=secrets,
        http_match=http_match, http_upstream=http_upstream, allow_remote=http_allow_remote,
        keep_dir=keep_dir, set_env=set_env, inherit_env=inherit_env, allow_mutating=allow_mutating,
    )  # fmt: skip
    command_given = list(command) or None
    if learn is not None:
        from mcptape.commands.learning import learn_and_report

        raise SystemExit(
            learn_and_report(transcript, command_given, learn, save, outputs.json, settings, _announce)
        )
    replayed: list[Replayed] | None = None
    if outputs.report:
        outputs.check([str(transcript)] if not transcript.is_dir() else [])
        replayed = []
    if transcript.is_dir():
        _replay_folder(transcript, command_given, settings, update, replayed, outputs)
    _replay_one(transcript, command_given, settings, output, overwrite, update, view, replayed, outputs)


def _replay_folder(
    folder: Path,
    command: list[str] | None,
    settings: ReplaySettings,
    update: bool,
    replayed: list[Replayed] | None,
    outputs: Outputs,
) -> NoReturn:
    """Replay every transcript under `folder` (`commands/replayfolder.py`), report, exit."""
    from mcptape.commands.replayfolder import replay_folder

    code = replay_folder(folder, command, settings, outputs.mode, update, replayed, _announce)
    _ci_outputs(replayed, outputs)
    raise SystemExit(code)


def _refuse_conflicts(
    transcript: Path,
    output: Path | None,
    learn: int | None,
    save: bool,
    update: bool,
    view: bool,
    ci: bool,
) -> None:
    """Options that do not go together, refused before any work."""
    if save and learn is None:
        raise UsageError("--save keeps what --learn N learned", hint="add --learn 3")
    if learn is not None and (output is not None or update or view or ci):
        raise UsageError(
            "--learn runs its own replays: it does not take -o, --update, --view, --junit, --sarif "
            "or --format github"
        )
    if transcript.is_dir() and (output is not None or view):
        raise UsageError(f"{'-o' if output is not None else '--view'} takes one transcript, not a folder")


def _replay_one(
    transcript: Path,
    command: list[str] | None,
    settings: ReplaySettings,
    output: Path | None,
    overwrite: bool,
    update: bool,
    view: bool,
    replayed: list[Replayed] | None,
    outputs: Outputs,
) -> None:
    """Replay one transcript (over the transport it was recorded on), report, exit."""
    from mcptape.replay.api import replay_with

    result = replay_with(
        transcript, command, settings, output=output, overwrite=overwrite, announce=_announce
    )
    if not outputs.report_on_stdout:
        emit(result.to_json() if outputs.json else result.render(), outputs.json)
    if replayed is not None:
        from mcptape.commands.ci.replay import Replayed

        replayed.append(Replayed(str(transcript), result))
        _ci_outputs(replayed, outputs)
    if view:
        from mcptape.commands.view import view_diff

        new_name = str(output) if output is not None else "replay"
        paths = (result.original, result.new) if result.kept else None
        view_diff(result.diff, str(transcript), new_name, paths=paths)
    if update and not result.same:
        result.update()
        click.echo(
            f"updated {escape_controls(str(transcript))} with the new session", err=outputs.mode != "text"
        )
        raise SystemExit(EXIT_OK)
    raise SystemExit(result.exit_code)


def _ci_outputs(replayed: list[Replayed] | None, outputs: Outputs) -> None:
    """Write the report's files (--junit, --sarif) and its stdout format (--format github) from the
    replays."""
    if replayed is None:
        return
    from mcptape.commands.ci.replay import replay_report

    outputs.write(replay_report(replayed))


def _announce(server: Any) -> None:
    """Say on stderr which command runs when it comes from the transcript (not given, not configured)."""
    if server.origin == "recorded":
        click.echo(server.describe(), err=True)

"""`mcptape diff` as a click command: two recorded sessions compared, nothing run."""

from __future__ import annotations

from pathlib import Path

import click

from mcptape.commands.replay import IGNORE_HELP, emit
from mcptape.errors import EXIT_FINDINGS, EXIT_OK
from mcptape.textsafe import escape_controls


@click.command(
    "diff",
    epilog="""\b
Examples:
  mcptape diff before.jsonl after.jsonl
  mcptape diff before.jsonl after.jsonl --json --ignore 'tools/call:result._meta'

Exit codes: 0 same, 1 different, 2 usage error or unreadable transcript.""",
)
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the diff as JSON.")
@click.option("--ignore", "ignore", multiple=True, metavar="RULE", help=IGNORE_HELP)
@click.option("--stderr", "with_stderr", is_flag=True, help="Compare stderr lines too.")
@click.option("--update", is_flag=True, help="After showing the diff, replace OLD with NEW.")
@click.option("--no-config", is_flag=True, help="Do not read [tool.mcptape] from pyproject.toml.")
def diff_command(
    old: Path,
    new: Path,
    as_json: bool,
    ignore: tuple[str, ...],
    with_stderr: bool,
    update: bool,
    no_config: bool,
) -> None:
    """Diff two transcripts of the same client session (nothing is run).

    Responses are paired by request id and compared as JSON values (member order never matters);
    notifications per method; then stdout cleanliness, executor calls, exec-after-reject and the
    exit status (stderr with --stderr).
    """
    from mcptape.replay.api import diff_files, replace_with
    from mcptape.replay.render import diff_to_json, render_diff_report

    diff = diff_files(old, new, ignore=ignore, stderr=with_stderr, config=not no_config)
    emit(diff_to_json(diff) if as_json else render_diff_report(diff, str(old), str(new)), as_json)
    if update and not diff.same:
        replace_with(old, new)
        click.echo(f"updated {escape_controls(str(old))} with {escape_controls(str(new))}", err=as_json)
        raise SystemExit(EXIT_OK)
    raise SystemExit(EXIT_OK if diff.same else EXIT_FINDINGS)

"""`mcptape redact` and `mcptape report` as click commands: options, messages, exit codes."""

from __future__ import annotations

import os
from pathlib import Path

import click

from mcptape.commands.options import Renamed
from mcptape.errors import OutputError
from mcptape.share.rules import Rules

_RULE_OPTIONS = [
    click.option(
        "--redact-key",
        "keys",
        multiple=True,
        metavar="NAME",
        help="Also treat JSON keys, flags and NAME=value pairs called NAME as secrets (repeatable).",
    ),
    click.option(
        "--redact-pattern",
        "regexes",
        cls=Renamed,
        old=("--redact",),  # the spelling before record and redact agreed
        multiple=True,
        metavar="REGEX",
        help="Also replace what REGEX matches (its group 1 if it has groups; repeatable).",
    ),
    click.option(
        "--no-env",
        is_flag=True,
        help="Do not learn secret values from this shell's *_TOKEN, *_API_KEY, *_SECRET... variables.",
    ),
]


def rule_options(f: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(_RULE_OPTIONS):
        f = option(f)
    return f


@click.command(
    "redact",
    epilog="""\b
Examples:
  mcptape redact session.jsonl -o shareable.jsonl
  mcptape redact session.jsonl -o out.jsonl --redact-key x-tenant --redact-pattern 'acct-[0-9]{8}'
  MCPTAPE_REDACT_KEY=... mcptape redact session.jsonl -o out.jsonl   # private placeholder key

Each secret becomes [redacted:<16 hex>], an HMAC-SHA256 of its value: equal secrets stay
equal, and a real value can later be checked against it (see docs/sharing.md).

Exit codes: 0 written, 2 unreadable input or unwritable output.""",
)
@click.argument("transcript", type=click.Path(dir_okay=True, path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path), help="The redacted copy.")
@click.option("--overwrite", is_flag=True, help="Replace OUTPUT if it exists.")
@rule_options
def redact_command(
    transcript: Path,
    output: Path,
    overwrite: bool,
    keys: tuple[str, ...],
    regexes: tuple[str, ...],
    no_env: bool,
) -> None:
    """Write a copy of TRANSCRIPT with its secrets replaced by stable placeholders.

    Secret keys at any depth of JSON (authorization, api_key, token, password, cookie, ...), token
    patterns (Bearer, sk-..., ghp_..., AWS keys, JWTs, URL passwords) in every channel and in the
    command line, values of secret-looking environment variables, and anything already found
    elsewhere in the session. Only the secret is replaced; every other byte stays as recorded.
    """
    from mcptape.share.copy import redact_file

    rules = Rules.build(keys, regexes, use_env=not no_env)
    summary = redact_file(transcript, output, rules, overwrite=overwrite)
    dropped = ""
    if summary.dropped_lines:
        dropped = f"; {summary.dropped_lines} unreadable transcript line(s) left out"
    replaced = f"{summary.replaced} secret(s) replaced ({summary.distinct} distinct)"
    _status(f"mcptape: {replaced} in {output}{dropped}")


@click.command(
    "report",
    epilog="""\b
Examples:
  mcptape report session.jsonl                 # writes ./mcptape-report-session/
  mcptape report session.jsonl -o bug-123/     # the directory to attach to an issue

The directory holds report.md, report.html, stderr.txt and transcript.jsonl, all redacted
(rules as for `mcptape redact`). Exit code 0 once written, whatever the verdict.""",
)
@click.argument("transcript", type=click.Path(dir_okay=True, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Directory to write (created if needed). Default: ./mcptape-report-<name>/",
)
@click.option("--overwrite", is_flag=True, help="Replace the bundle's files if the directory has them.")
@click.option("--no-redact", is_flag=True, help="Keep secrets (for a report that never leaves your machine).")
@rule_options
def report_command(
    transcript: Path,
    output: Path | None,
    overwrite: bool,
    no_redact: bool,
    keys: tuple[str, ...],
    regexes: tuple[str, ...],
    no_env: bool,
) -> None:
    """Write a bug-report bundle for TRANSCRIPT: report.md, report.html (one self-contained page, as
    `mcptape export --format html` makes it), stderr.txt and the redacted transcript.

    report.md has the launch command, mcptape/Python/protocol versions, the verdict, the first
    offending bytes (escaped) with the lines around them, and every finding of `mcptape check`.
    """
    from mcptape.share.report import make_report

    rules = Rules.build(keys, regexes, use_env=not no_env)
    stem = transcript.stem.removeprefix("mcptape-")  # record's default names start with it already
    directory = output if output is not None else Path(f"mcptape-report-{stem}")
    page = directory / "report.html"
    if not overwrite and os.path.lexists(page):
        raise OutputError(f"{page} already exists", hint="pass --overwrite, or another -o")
    bundle = make_report(transcript, directory, rules, redact=not no_redact, overwrite=overwrite)
    _html_report(directory / "transcript.jsonl", page)
    analysis = bundle.analysis
    total = len(analysis.findings) + analysis.findings_truncated
    verdict = "clean" if total == 0 else f"{total} finding(s)"
    summary = bundle.redaction
    if summary is not None and summary.dropped_lines:  # a line that cannot be read cannot be redacted
        verdict += f"; {summary.dropped_lines} unreadable transcript line(s) left out"
    _status(f"mcptape: report written to {directory}/ ({verdict})")


def _html_report(transcript: Path, page: Path) -> None:
    """report.html: the bundle's (redacted) transcript as one self-contained HTML page (export's)."""
    from mcptape.commands.outputs import FORMATS
    from mcptape.export.session import load
    from mcptape.share.outputs import write_file

    write_file(page, FORMATS["html"].write([load(transcript)]))


def _status(line: str) -> None:
    """The closing line on stderr. One that cannot be written is an unwritable output (exit 2), a
    closed pipe as a full disk: click would make EPIPE exit 141, which says stdout was closed."""
    from mcptape.textsafe import escape_controls

    try:
        click.echo(escape_controls(line), err=True)  # it names files: a name never drives the terminal
    except BrokenPipeError as exc:
        raise OutputError(f"cannot write to stderr: {exc.strerror or exc}") from None

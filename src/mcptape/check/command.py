"""`mcptape check FILE [--json]`: the verdict on one transcript (exit 0 clean, 1 findings, 2 unreadable)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import click

from mcptape.errors import EXIT_FINDINGS, OutputError


@click.command(
    "check",
    epilog="""\b
Examples:
  mcptape check session.jsonl                    # the report: first bad line, findings, stderr
  mcptape check session.jsonl --json | jq .clean # one JSON object for CI
  mcptape check session.jsonl --policy request   # a server that keeps serving after a bad line""",
)
@click.argument("file", metavar="FILE")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (schema in docs/check.md).")
@click.option(
    "--policy",
    type=click.Choice(["session", "request"]),
    default="session",
    show_default=True,
    help="After a rejected input line: `session` flags every later executor call (the peer lost "
    "framing; nothing may run), `request` only calls no valid request accounts for.",
)
def check_command(file: str, as_json: bool, policy: str) -> None:
    """Check a transcript: the first non-protocol line per direction, protocol violations,
    unanswered and duplicate ids, and executor calls after a reject.

    \b
    Exit codes: 0 clean, 1 findings, 2 unreadable input.
    """
    from mcptape.check.analyze import analyze_file
    from mcptape.check.report import render_text, to_json

    progress = _progress_line(file)
    header, analysis = analyze_file(file, policy=policy, progress=progress)
    if progress is not None:
        sys.stderr.write("\r\x1b[K")  # erase the progress line before the report
        sys.stderr.flush()
    if as_json:
        import orjson

        from mcptape.textsafe import escape_json

        # JSON encoders leave C1 and bidi characters raw: escape them, the values stay the same
        _print(
            escape_json(orjson.dumps(to_json(analysis, header), option=orjson.OPT_INDENT_2).decode()) + "\n"
        )
    else:
        _print(render_text(analysis, header, file))
    if not analysis.clean:
        # SystemExit, not ctx.exit: click's non-standalone mode turns ctx.exit(n) into a return value.
        raise SystemExit(EXIT_FINDINGS)


def _print(text: str) -> None:
    """Write the report to stdout; a stdout that cannot take it (a full disk) is an OutputError.
    A closed pipe (`| head`) is left to click, which exits quietly."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(f"cannot write to stdout: {exc.strerror or exc}") from None


PROGRESS_FROM = 32 << 20  # files smaller than this are checked before anyone would wait


def _progress_line(file: str) -> Callable[[int], None] | None:
    """A `progress` callback drawing one self-erasing line on stderr, for a long file on a terminal."""
    import os

    try:
        size = os.path.getsize(file)
    except OSError:
        return None
    if size < PROGRESS_FROM or not sys.stderr.isatty():
        return None
    shown = -1

    def progress(done: int) -> None:
        nonlocal shown
        percent = min(100, done * 100 // size)
        if percent != shown:
            shown = percent
            sys.stderr.write(f"mcptape check: {percent:3d}% of {size >> 20} MiB\r")
            sys.stderr.flush()

    return progress

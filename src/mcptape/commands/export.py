"""`mcptape export TRANSCRIPT... --format otlp|har|html [-o FILE] [--endpoint URL]`: sessions where
teams already look (docs/export.md). The formats are the rows of the one table,
`commands/outputs.FORMATS`, that accept SESSIONS."""

from __future__ import annotations

from pathlib import Path

import click

from mcptape.commands.outputs import FORMATS, SESSIONS, named
from mcptape.errors import UsageError
from mcptape.export.session import Session


def _format_help() -> str:
    return "; ".join(f"{name}: {FORMATS[name].summary}" for name in named(SESSIONS))


@click.command(
    "export",
    epilog="""\b
Examples:
  mcptape export session.jsonl --format html -o session.html     # one file for a bug or a PR
  mcptape export session.jsonl --format har -o session.har       # devtools, HAR viewers
  mcptape export tapes/*.jsonl --format otlp --endpoint http://127.0.0.1:6006   # Phoenix, Jaeger...
  mcptape export session.jsonl --format otlp -o traces.json      # OTLP JSON

Exit codes: 0 written (or sent), 1 the collector did not take the traces, 2 usage error or an
unreadable transcript (nothing is written then).""",
)
@click.argument(
    "transcripts", metavar="TRANSCRIPT...", nargs=-1, required=True, type=click.Path(path_type=Path)
)
@click.option(
    "--format",
    "name",
    type=click.Choice(named(SESSIONS)),
    required=True,
    help=_format_help(),
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE (whole or not at all). Without it and without --endpoint: stdout.",
)
@click.option("--overwrite", is_flag=True, help="Replace FILE if it exists.")
@click.option(
    "--endpoint",
    metavar="URL",
    help="otlp: send the traces over OTLP/HTTP (protobuf) to URL, a collector's base URL or its full "
    "/v1/traces URL (needs mcptape[otlp]).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1, max=300),
    default=10.0,
    show_default=True,
    help="Seconds to wait for the collector, per attempt (3 attempts).",
)
def export_command(
    transcripts: tuple[Path, ...],
    name: str,
    output: Path | None,
    overwrite: bool,
    endpoint: str | None,
    timeout: float,
) -> None:
    """Export transcripts as OpenTelemetry traces, an HTTP Archive or one HTML report."""
    from mcptape.export.session import load
    from mcptape.share.outputs import Output, refuse_input

    row = FORMATS[name]
    if endpoint is not None and name != "otlp":
        raise UsageError(f"--endpoint sends traces: it goes with --format otlp, not {name}")
    if endpoint is not None:
        from mcptape.export.send import traces_url

        traces_url(endpoint)  # a malformed URL fails before any work
    out: Output | None = None
    if output is not None:
        refuse_input(list(transcripts), output, hint="choose another -o")
        out = Output(output, overwrite=overwrite, exists_hint="pass --overwrite, or choose another -o")
    import gc

    gc.disable()  # a batch of many small objects that live to the end: collections would only cost
    try:
        sessions = [load(path) for path in transcripts]
        _say_damage(sessions)
        if endpoint is not None:
            _send(sessions, endpoint, timeout)
        if out is not None:
            out.write(row.write(sessions))
        elif endpoint is None:
            from mcptape.commands.output import write

            write(row.write(sessions).decode("utf-8"))
    except BaseException:
        if out is not None:
            out.abort()
        raise
    if out is not None:
        out.commit()
        click.echo(f"mcptape: wrote {output} ({name}, {len(sessions)} transcript(s))", err=True)


def _say_damage(sessions: list[Session]) -> None:
    """Each unreadable line of a transcript, once on stderr (what came around it is exported)."""
    from mcptape.textsafe import escape_controls

    for session in sessions:
        for note in session.analysis.notes:
            if note.startswith("transcript line "):
                click.echo(
                    f"mcptape: {escape_controls(str(session.path))}: {escape_controls(note)}", err=True
                )


def _send(sessions: list[Session], endpoint: str, timeout: float) -> None:
    from mcptape.export.otlp import protobuf
    from mcptape.export.send import send, traces_url
    from mcptape.export.spans import trace

    traces = [trace(s) for s in sessions]
    send(endpoint, protobuf(traces), timeout=timeout)
    spans = sum(len(t.spans) for t in traces)
    click.echo(
        f"mcptape: sent {spans} span(s) of {len(traces)} session(s) to {traces_url(endpoint)}", err=True
    )

"""`mcptape tools lock` and `mcptape tools diff`: the tool surface as a contract (docs/tools.md).

The work is in `mcptape.surface`; this module wires it: a transcript, a lock file, a stdio server
under the harness or a Streamable HTTP URL as the source; the lock written whole or not at all;
the diff as text, JSON, and every report format (`commands/outputs.py`; the report: `ci/tools.py`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mcptape.commands.options import Seconds
from mcptape.commands.output import write, write_json
from mcptape.commands.outputs import Outputs, report_options
from mcptape.errors import EXIT_FINDINGS, UsageError
from mcptape.textsafe import escape_controls

if TYPE_CHECKING:
    from mcptape.harness import Harness
    from mcptape.surface.compare import Diff
    from mcptape.surface.model import Surface

COMMAND_KEY = "mcptape.tools.command"


@click.group("tools", context_settings={"help_option_names": ["-h", "--help"]})
def tools_command() -> None:
    """Lock a server's tool surface and diff it: breaking changes and silent rewrites fail CI."""


class _WithCommand(click.Command):
    """A command whose arguments after `--` are a server command line (kept in `ctx.meta`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            at = args.index("--")
            ctx.meta[COMMAND_KEY] = args[at + 1 :]
            args = args[:at]
        return super().parse_args(ctx, args)


@tools_command.command(
    "lock",
    cls=_WithCommand,
    epilog="""\b
Examples:
  mcptape tools lock session.jsonl -o tools.lock.json      # from a recorded session
  mcptape tools lock -o tools.lock.json -- uvx mcp-server-time   # a stdio server, listed live
  mcptape tools lock --url http://127.0.0.1:8000/mcp -o tools.lock.json

Only the handshake and the list requests are sent (every page of tools/list, and prompts/list,
resources/list, resources/templates/list when the server has them): no tool is called.
Exit 0 locked, 2 usage error, unreadable input or a server that could not be listed.""",
)
@click.argument("source", required=False, metavar="[TRANSCRIPT | -- CMD...]")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the lock to FILE (default: stdout).",
)
@click.option("--url", metavar="URL", help="List a Streamable HTTP server at URL instead.")
@click.option(
    "--timeout",
    type=Seconds(min_open=True),
    default=10.0,
    show_default=True,
    help="Seconds to wait for each answer (the first: at least 30).",
)
@click.option(
    "--record",
    "record_to",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Keep the transcript of a stdio listing in FILE.",
)
@click.pass_context
def lock_command(
    ctx: click.Context,
    source: str | None,
    output: Path | None,
    url: str | None,
    timeout: float,
    record_to: Path | None,
) -> None:
    """Lock the tool surface of a transcript or a live server into a JSON file to commit.

    The lock holds serverInfo, capabilities, every tool (name, title, description, inputSchema,
    outputSchema, annotations) with a sha256 per definition, and the prompts, resources and
    resource templates the server lists; members sorted, so locking twice gives the same bytes.
    """
    command = ctx.meta.get(COMMAND_KEY) or []
    given = [
        name for name, present in (("TRANSCRIPT", source), ("-- CMD", command), ("--url", url)) if present
    ]
    if len(given) != 1:
        raise UsageError(
            "tools lock takes one source: a TRANSCRIPT, -- CMD... or --url URL"
            + (f" (got {' and '.join(given)})" if given else ""),
            hint="see 'mcptape tools lock --help'",
        )
    if record_to is not None and not command:
        raise UsageError("--record keeps the transcript of a stdio listing", hint="use it with -- CMD...")
    inputs = [Path(p) for p in (source, record_to) if p]
    if output is not None:
        from mcptape.share.outputs import refuse_input

        refuse_input(inputs, output, hint="name the lock file -o another file")
    surface = _source(source, command, url, timeout, record_to)
    _notes(surface)
    from mcptape.surface.lockfile import lock_text

    text = lock_text(surface)
    if output is None:
        write(text)  # already terminal-safe JSON (lock_text)
        return
    from mcptape.share.outputs import write_file

    write_file(output, text.encode("utf-8", "surrogatepass"))
    from mcptape.surface.model import KINDS

    counts = ", ".join(f"{len(surface.of_kind(k))} {k.member}" for k in KINDS if k.member in surface.listed)
    click.echo(f"mcptape tools lock: {counts} -> {escape_controls(str(output))}", err=True)


def _source(
    source: str | None, command: list[str], url: str | None, timeout: float, record_to: Path | None
) -> Surface:
    if source is not None:
        return load(source)
    from mcptape.surface.live import list_surface

    start = max(timeout, 30.0)
    if url is not None:
        from mcptape.surface.overhttp import HttpLines

        lines = HttpLines(url, start)
        try:
            surface = list_surface(lines, timeout, start)
        finally:
            lines.close()
        surface.source = {"url": url}
        return surface
    from mcptape.harness import Harness

    with tempfile.TemporaryDirectory(prefix="mcptape-tools-") as folder:
        path = record_to or Path(folder) / "listing.jsonl"
        with Harness(command, path, http_sink=False) as harness:
            surface = list_surface(_HarnessLines(harness), timeout, start)
    surface.source = {"command": command}
    return surface


class _HarnessLines:
    """The harness of a stdio server as the listing's `Lines`."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness

    def send(self, data: bytes) -> None:
        from mcptape.harness import ServerGone
        from mcptape.surface.live import Gone

        try:
            self.harness.send(data)
        except ServerGone:
            raise Gone from None

    def next_line(self, timeout: float) -> bytes | None:
        frame = self.harness.next_frame(timeout)
        return None if frame is None else frame.raw

    @property
    def ended(self) -> bool:
        return self.harness.at_eof


def load(path: str) -> Surface:
    """A lock file's or a transcript's surface (one Error line, exit 2, for anything else)."""
    from mcptape.surface.extract import read_transcript
    from mcptape.surface.lockfile import LockError, is_lock, read_bytes, read_lock
    from mcptape.transcript.reader import claims_header

    if claims_header(path):
        return read_transcript(path)
    data = read_bytes(Path(path))
    if b'"mcptape"' in data[:65536].split(b"\n", 1)[0] and b'"mcptapeToolsLock"' not in data:
        return read_transcript(path)  # line 1 claims a transcript it is not: its reader says why
    if is_lock(data):
        return read_lock(path, data)
    raise LockError(
        f"{escape_controls(path)} is neither a tools lock nor an mcptape transcript",
        hint="make a lock with: mcptape tools lock TRANSCRIPT -o FILE",
    )


def _notes(surface: Surface, label: str = "") -> None:
    for note in surface.notes:
        click.echo(f"mcptape tools: note{label}: {escape_controls(note)}", err=True)


@tools_command.command(
    "diff",
    epilog="""\b
Examples:
  mcptape tools diff tools.lock.json session.jsonl         # the committed lock against a recording
  mcptape tools diff old.lock.json new.lock.json --json
  mcptape tools diff tools.lock.json new.lock.json --accept reviewed.json --format github

Exit codes: 0 nothing breaking or suspicious (or all accepted), 1 a breaking or suspicious
change not accepted, 2 usage error or unreadable input.""",
)
@click.argument("base", metavar="BASE")
@click.argument("new", metavar="NEW")
@report_options(
    json_help="Print the changes as JSON (as --format json).",
    format_help="What stdout gets: the report, JSON, or GitHub workflow annotations and a summary line.",
    each={"junit": "a test case per change", "sarif": "a result per change"},
)
@click.option(
    "--accept",
    "accept_file",
    metavar="FILE",
    help="Reviewed changes that do not fail (JSON; see docs/tools.md).",
)
def diff_command(base: str, new: str, outputs: Outputs, accept_file: str | None) -> None:
    """Diff two tool surfaces (each a lock file or a transcript): every change is breaking,
    suspicious or compatible; a description rewritten to address the model is named."""
    from mcptape.surface.accept import is_accepted, read_accepted
    from mcptape.surface.compare import compare
    from mcptape.surface.model import GATING
    from mcptape.surface.report import diff_json, diff_text

    outputs.check([base, new, *([accept_file] if accept_file else [])])
    accepted = read_accepted(accept_file) if accept_file else []
    old_surface, new_surface = load(base), load(new)
    _notes(old_surface, " (base)")
    _notes(new_surface, " (new)")
    diff: Diff = compare(old_surface, new_surface)
    taken = [is_accepted(change, accepted) for change in diff.changes]
    failing = sum(
        1 for change, ok in zip(diff.changes, taken, strict=True) if change.severity in GATING and not ok
    )
    if outputs.mode == "json":
        write_json(diff_json(diff, taken, base, new, failing))
    elif outputs.mode == "text":
        write(diff_text(diff, taken, base, new, failing))
    if outputs.report:
        from mcptape.commands.ci.tools import tools_diff_report

        outputs.write(tools_diff_report(diff, taken, base, new, failing, (old_surface, new_surface)))
    if failing:
        raise SystemExit(EXIT_FINDINGS)


@tools_command.command(
    "drift",
    epilog="""\b
Examples:
  mcptape tools drift session.jsonl
  mcptape tools drift session.jsonl --json

Exit codes: 0 no listing changed, or only compatibly after the server announced it
(notifications/tools/list_changed); 1 a change without the announcement, a breaking or a
suspicious one; 2 unreadable input.""",
)
@click.argument("transcript", metavar="TRANSCRIPT")
@click.option("--json", "as_json", is_flag=True, help="Print the drift as JSON.")
def drift_command(transcript: str, as_json: bool) -> None:
    """Find the listings of one session that differ from an earlier one: tools (or prompts,
    resources) that changed mid-session, judged as check will: error, warning or info."""
    from mcptape.check.analyze import messages
    from mcptape.surface.drift import INFO, session_drift
    from mcptape.surface.report import drift_json, drift_text
    from mcptape.transcript.reader import open_transcript

    drifts = session_drift(messages(open_transcript(transcript).events()))
    if as_json:
        write_json(drift_json(drifts, transcript))
    else:
        write(drift_text(drifts, transcript))
    if any(drift.severity != INFO for drift in drifts):
        raise SystemExit(EXIT_FINDINGS)

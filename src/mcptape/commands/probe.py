"""`mcptape probe` as a click command: its options, help and exit code. The work is in `runner`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
import orjson

from mcptape.commands.options import Renamed, Seconds, line_bytes
from mcptape.commands.output import json_text, write
from mcptape.commands.outputs import Outputs, report_options
from mcptape.errors import EXIT_FINDINGS, EXIT_OK, OutputError, UsageError
from mcptape.probe.cases import DEFAULT_OVERSIZE, Case

if TYPE_CHECKING:
    from mcptape.probe.baseline import Entry
    from mcptape.probe.plan import Plan
    from mcptape.probe.runner import ProbeResult


@click.command(
    "probe",
    context_settings={"allow_interspersed_args": False},
    epilog="""\b
Examples:
  mcptape probe -- python -m my_server
  mcptape probe -o probe-out --junit probe.xml -- npx -y @modelcontextprotocol/server-everything
  mcptape probe --tool get_current_time --args '{"timezone": "UTC"}' -- uvx mcp-server-time
  mcptape probe --from session.jsonl -- uvx mcp-server-time
  mcptape probe --allow-mutating -- node dist/index.js /tmp/scratch-copy
  mcptape probe --url http://127.0.0.1:8000/mcp -- python server.py --port 8000

No frame names a tool that is not marked readOnlyHint (not even a hard input a tolerant server
might run), so the probe changes no data; such tools are reported "not tested", and
--allow-mutating (on a scratch copy) names them, listing them on stderr first. --baseline FILE
accepts known deviations (--write-baseline FILE writes them); new or worse ones still fail.
Each case runs in a server process with the executor tap and the HTTP sink on; its
transcript is saved in DIR. Exit 0 when no case failed or was inconclusive (warnings
allowed), 1 when one did (a valid call that the server refuses makes the hard inputs built
from it inconclusive), 2 on a usage error or when the server cannot be started.""",
)
@click.option(
    "-o",
    "--output",
    "out_dir",
    default="mcptape-probe",
    show_default=True,
    metavar="DIR",
    help="Directory for the transcripts, probe.json and tools.lock.json; a previous probe's files "
    "there are removed first, any other file stays (one this run would overwrite stops it).",
)
@report_options(
    json_help="Print the report as JSON on stdout instead of the table.",
    format_help="What stdout gets: the table, JSON (as --json), or GitHub workflow annotations (a line "
    "per case that did not pass and per server finding of those cases) and a summary line.",
    each={"junit": "a test case per case", "sarif": "a result per case that did not pass"},
)
@click.option(
    "--tool",
    metavar="NAME",
    help="The tool of the valid call (default: the first of up to 3 tools, read-only ones first, "
    "that accepts arguments derived from its schema).",
)
@click.option(
    "--args",
    "args_json",
    metavar="JSON",
    help="Its arguments, a JSON object (default: minimal values derived from its inputSchema).",
)
@click.option(
    "--from",
    "from_transcript",
    metavar="TRANSCRIPT",
    type=click.Path(dir_okay=False),
    help="Take the valid call from a recorded session: a tools/call the server answered with a success.",
)
@click.option(
    "--allow-mutating",
    is_flag=True,
    help="Also name the tools that may change data (not marked readOnlyHint) in the valid call and "
    "the hard inputs; they are listed on stderr first. Point the server at a scratch copy of its data.",
)
@click.option(
    "--baseline",
    "baseline_file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Accepted deviations (written by --write-baseline): a case that matches an entry is "
    "reported as accepted; anything new or worse still fails; an entry that no longer happens is stale.",
)
@click.option(
    "--write-baseline",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Write this run's deviations (every case that did not pass) to FILE as a baseline; fill "
    "in each entry's reason and commit it.",
)
@click.option(
    "--stub",
    "stubs",
    multiple=True,
    metavar="NAME",
    help="Replace command NAME on the server's PATH with a recording stub that exits 255 (repeatable).",
)
@click.option(
    "--corpus",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="Also send each file of DIR as one malformed inbound frame (its bytes as they are; a file "
    "without a final newline is followed by EOF; MCPTAPE_MARKER in it becomes the case's marker).",
)
@click.option(
    "--step-timeout",
    "timeout",
    cls=Renamed,
    old=("--timeout",),  # replay says --step-timeout for the same wait
    type=Seconds(min=0.1),
    default=10.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for each answer before reporting the server as hung.",
)
@click.option(
    "--start-timeout",
    type=Seconds(min=0.1),
    default=30.0,
    show_default=True,
    metavar="SECONDS",
    help="How long to wait for the first answer (initialize, server/discover): the server's start-up.",
)
@click.option(
    "--idle",
    type=Seconds(min=0),
    default=1.0,
    show_default=True,
    metavar="SECONDS",
    help="The wait before the first request in the idle-start case.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1, max=32),
    default=min(4, os.cpu_count() or 1),
    show_default="min(4, CPUs)",
    help="Server processes starting at the same time (the clean start's first; a server counts "
    "until it answers its first request, and the cases then run side by side).",
)
@click.option(
    "--oversize",
    type=line_bytes(min=1024),
    default=DEFAULT_OVERSIZE,
    show_default=True,
    metavar="BYTES",
    help="Length of the oversized line.",
)
@click.option(
    "--case", "only", multiple=True, metavar="ID", help="Run only this case (repeatable; start always runs)."
)
@click.option(
    "--url",
    metavar="URL",
    help="Probe a Streamable HTTP server at URL (on this machine) with the hard inputs of HTTP; "
    "-- CMD starts it first (executor tap and HTTP sink on), without CMD it must be running.",
)
@click.option(
    "--client",
    is_flag=True,
    help="Probe a client instead: CMD is a client that takes the server command as its last "
    "arguments; each hard output is played by `mcptape serve` of --from TRANSCRIPT (docs/serve.md).",
)
@click.argument("command", nargs=-1, required=False, metavar="-- CMD [ARGS]...")
def probe_command(
    out_dir: str,
    outputs: Outputs,
    tool: str | None,
    args_json: str | None,
    from_transcript: str | None,
    corpus: str | None,
    timeout: float,
    start_timeout: float,
    idle: float,
    jobs: int,
    oversize: int,
    only: tuple[str, ...],
    client: bool,
    command: tuple[str, ...],
    allow_mutating: bool = False,
    stubs: tuple[str, ...] = (),
    baseline_file: str | None = None,
    write_baseline: str | None = None,
    url: str | None = None,
) -> None:
    """Probe a stdio MCP server against the hard inputs: the release gate in one command.

    A clean start (handshake, tools/list, one valid call) under production-like variations must
    keep stdout protocol-only; each hard input, sent after a valid handshake, must cause zero
    executor calls and zero HTTP attempts; a valid request after a rejected one must execute only
    itself. Progress goes to stderr; the report (table, or --json) to stdout. With --url, the
    hard inputs of Streamable HTTP go to the server at URL (docs/probe.md, "Streamable HTTP").
    """
    from mcptape.commands.outputs import check_destinations
    from mcptape.probe import baseline
    from mcptape.probe.plan import Plan
    from mcptape.probe.recorded import recorded_calls

    _refuse_conflicts(command, client, url, allow_mutating or bool(stubs or baseline_file or write_baseline))
    if client:
        from mcptape.commands.serve import probe_client

        probe_client(
            list(command), transcript=from_transcript, out_dir=out_dir, outputs=outputs,
            timeout=timeout, jobs=jobs, only=only,
        )  # fmt: skip
    arguments = _parse_args(args_json)
    recorded = recorded_calls(Path(from_transcript)) if from_transcript is not None else []
    cases = _cases(only, Path(corpus) if corpus is not None else None, url)
    outputs.check()  # before minutes of cases: a typo fails at once
    check_destinations({"write-baseline": write_baseline}, [from_transcript] if from_transcript else [])
    accepted = baseline.load(Path(baseline_file)) if baseline_file is not None else []
    out = Path(out_dir).absolute()
    plan = Plan(
        list(command), out, tool=tool, arguments=arguments, timeout=timeout,
        start_timeout=start_timeout, idle=idle, jobs=jobs, oversize=oversize, cases=cases,
        recorded=recorded, every_tool=not only or TOOLS in only, allow_mutating=allow_mutating,
        stubs=list(stubs),
    )  # fmt: skip
    # The previous probe's files go (not the session it reads); a file no probe wrote stays or stops it.
    plan.folder.fresh(keep=[Path(from_transcript)] if from_transcript is not None else [])
    result = _run(plan, url, only)
    _baselines(result, plan, accepted if baseline_file is not None else None, write_baseline)
    _report(result, outputs, plan)


def _baselines(result: ProbeResult, plan: Plan, accepted: list[Entry] | None, write_to: str | None) -> None:
    """Judge the run against the --baseline entries (`accepted`, None without one), and write its
    deviations as a baseline to --write-baseline's file."""
    from mcptape.probe import baseline

    if accepted is not None:
        result.stale = baseline.apply(accepted, result.results, plan.reach.by_case)
    if write_to is not None:
        _write(Path(write_to), baseline.document(result.results, plan.reach.by_case, accepted or []))


def _refuse_conflicts(command: tuple[str, ...], client: bool, url: str | None, server_only: bool) -> None:
    """What cannot be probed as asked, refused before any work (`server_only`: --allow-mutating,
    --stub or a baseline was given)."""
    if client and url is not None:
        raise UsageError("--url probes a server, --client a client", hint="keep one")
    if not command and url is None:
        raise UsageError("no server to probe", hint="give the server's command after --, or --url URL")
    if client and server_only:
        raise UsageError(
            "--allow-mutating, --stub and the baselines are for servers", hint="drop them with --client"
        )
    if command and not command[0] and not client:  # e.g. an unset shell variable: posix_spawn fails
        raise UsageError("the server command's name is empty", hint="give the server's executable after --")


def _run(plan: Plan, url: str | None, only: tuple[str, ...]) -> ProbeResult:
    """Run the plan's cases on the server, over stdio, or over HTTP at `url`."""
    if url is not None:
        from mcptape.probe.http.gate import chosen_cases, run_http_probe

        return run_http_probe(plan, url, chosen_cases([c for c in only if c != "start"]))
    from mcptape.probe.runner import run_probe

    return run_probe(plan)


def _cases(only: tuple[str, ...], corpus: Path | None, url: str | None) -> list[Case]:
    """The cases `--case` chose (start always runs), with a --corpus folder's; an unknown id is a
    usage error naming the known ones."""
    from mcptape.probe.cases import CASES

    extra = _corpus(corpus) if corpus is not None else []
    known = {case.id for case in [*CASES, *extra]} | {TOOLS}
    if url is not None:
        from mcptape.probe.http.cases import HTTP_BY_ID

        if corpus is not None:
            raise UsageError("--corpus frames are stdio lines", hint="drop --corpus with --url")
        known = {"start", *HTTP_BY_ID}
    unknown = [c for c in only if c not in known]
    if unknown:
        raise UsageError(f"unknown case {unknown[0]!r}", hint=f"cases: {', '.join(sorted(known))}")
    return [c for c in [*CASES, *extra] if not only or c.id == "start" or c.id in only]


def _report(result: ProbeResult, outputs: Outputs, plan: Plan) -> NoReturn:
    """DIR/probe.json, the report's files and stdout (the table, JSON or a report format), the exit."""
    from mcptape.probe.folder import REPORT_NAME
    from mcptape.probe.report import render_table, to_json

    document = json_text(to_json(result)) + "\n"
    _write(plan.file(REPORT_NAME), document.encode())
    if outputs.report:
        from mcptape.commands.ci.probe import probe_report

        outputs.write(probe_report(result))
    if not outputs.report_on_stdout:
        write(document if outputs.json else render_table(result))
    raise SystemExit(EXIT_OK if result.passed else EXIT_FINDINGS)


TOOLS = "tools"  # --case tools: the hard inputs sent to every tool


def _corpus(folder: Path) -> list[Case]:
    """One case per file of a --corpus folder, in name order."""
    from mcptape.probe.cases import corpus_case

    try:
        files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
        cases = [corpus_case(p.name, p.read_bytes()) for p in files]
    except OSError as exc:
        raise UsageError(f"--corpus {folder}: {exc.strerror}", hint="name a folder of frame files") from None
    if not cases:
        raise UsageError(f"--corpus {folder}: no frame files in it", hint="one file per malformed frame")
    return cases


def _parse_args(args_json: str | None) -> dict[str, Any] | None:
    if args_json is None:
        return None
    try:
        value = orjson.loads(args_json)
    except orjson.JSONDecodeError as exc:
        raise UsageError(f"--args is not JSON: {exc}", hint='e.g. --args \'{"timezone": "UTC"}\'') from None
    if not isinstance(value, dict):
        raise UsageError("--args must be a JSON object", hint='e.g. --args \'{"timezone": "UTC"}\'')
    try:
        orjson.dumps(value)  # the probe writes its requests with orjson: at most 254 levels deep
    except orjson.JSONEncodeError as exc:
        raise UsageError(f"--args cannot be sent: {exc} (254 levels deep at most)") from None
    return value


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise OutputError(
            f"cannot write {path}: {exc.strerror}", hint="check the path and its directory"
        ) from None

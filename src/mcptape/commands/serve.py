"""`mcptape serve` as a click command (the recorded server, on stdio), and the wiring of
`mcptape probe --client` (the hard outputs against a client command). The work is in `serve/`."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from mcptape.commands.options import Seconds
from mcptape.serve.httpinject import HTTP_CASE_IDS
from mcptape.serve.injectcases import CASES

if TYPE_CHECKING:
    from mcptape.commands.outputs import Outputs
    from mcptape.diff.ignore import Rule

CASE_IDS = tuple(case.id for case in CASES)


def _log(text: str) -> None:
    """serve's own words: stderr only (stdout is the protocol); best-effort."""
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


@click.command(
    "serve",
    epilog="""\b
Examples:
  mcptape serve session.jsonl                       # in a client's config, instead of the server
  mcptape serve tests/transcripts/ --report r.json  # a folder is one pool of recorded answers
  mcptape serve session.jsonl -o new.jsonl          # then: mcptape diff session.jsonl new.jsonl
  mcptape serve session.jsonl --exact               # the recorded stdout bytes, noise and all
  mcptape serve session.jsonl --inject banner-same-line

Exit 0 when every client request had a recorded answer, 1 when one had none (it got a JSON-RPC
error) or the client sent a line that is not protocol, 2 on a usage error or an unreadable
transcript. stdout carries only what serve plays; its own messages go to stderr.""",
)
@click.argument(
    "transcripts", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="FILE|FOLDER..."
)
@click.option(
    "--match",
    "mode",
    type=click.Choice(["params", "method", "strict"]),
    default="params",
    show_default=True,
    help="params: the same method and params, any order; method: the same method, in order; "
    "strict: the recorded order, the same params.",
)
@click.option(
    "--ignore",
    "ignores",
    multiple=True,
    metavar="RULE",
    help="A params path not compared when matching, as replay's rules (e.g. "
    "'tools/call:params.arguments.now'); repeatable; added to [tool.mcptape] ignore.",
)
@click.option(
    "--match-meta", is_flag=True, help="Compare the per-request _meta envelope too (ignored by default)."
)
@click.option(
    "--no-config", is_flag=True, help="Do not read [tool.mcptape] from pyproject.toml or mcptape.toml."
)
@click.option(
    "--exact",
    is_flag=True,
    help="Play the recorded stdout bytes as they are, noise and all (and the server's end).",
)
@click.option(
    "--inject",
    "inject",
    multiple=True,
    type=click.Choice(CASE_IDS + HTTP_CASE_IDS),
    metavar="CASE",
    help=f"Play a hard output (repeatable): {', '.join(CASE_IDS)}; "
    f"with --listen: {', '.join(HTTP_CASE_IDS)}.",
)
@click.option(
    "--report",
    "report",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Write the JSON report to FILE.",
)
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), metavar="NEW", help="Record the served session to NEW."
)
@click.option("--overwrite", is_flag=True, help="Replace NEW if it exists.")
@click.option(
    "--listen",
    metavar="HOST:PORT",
    help="Speak Streamable HTTP on HOST:PORT (PORT alone: on 127.0.0.1; 0: a free port) instead of "
    "stdio, until SIGINT or SIGTERM; the URL is printed on stderr (see docs/serve.md).",
)
@click.option(
    "-q", "--quiet", is_flag=True, help="No summary on stderr (a request without an answer is still told)."
)
@click.option(
    "--pause",
    type=Seconds(min=0),
    default=0.3,
    show_default=True,
    metavar="SECONDS",
    help="split-response: the pause between the two writes.",
)
@click.option(
    "--hold",
    type=Seconds(min=0),
    default=2.0,
    show_default=True,
    metavar="SECONDS",
    help="concatenated/swapped-responses: how long a pair's first answer waits for the second "
    "request (then the one-request-in-flight form is played).",
)
def serve_command(
    transcripts: tuple[Path, ...],
    mode: str,
    ignores: tuple[str, ...],
    match_meta: bool,
    no_config: bool,
    exact: bool,
    inject: tuple[str, ...],
    report: Path | None,
    output: Path | None,
    overwrite: bool,
    quiet: bool,
    pause: float,
    hold: float,
    listen: str | None = None,
) -> None:
    """Be the recorded server (on stdio, or over HTTP with --listen): answer each request as recorded.

    Each request is matched to a recorded one (--match) and answered under the client's own id;
    recorded notifications, server requests and MRTR rounds are played where they happened. A
    request with no recorded answer gets a JSON-RPC error (-32001) and a line on stderr; at exit,
    a summary (served, unmatched, unused) on stderr.
    """
    from mcptape.serve.run import serve
    from mcptape.serve.session import Options

    options = Options(
        mode=mode, rules=_rules(ignores, config=not no_config), match_meta=match_meta, exact=exact,
        inject=list(inject), token=secrets.token_hex(4), pause=pause, hold=hold,
    )  # fmt: skip
    if listen is not None:  # the same session, over Streamable HTTP (serve/listen.py)
        from mcptape.serve.listen import serve_http

        said = serve_http(
            list(transcripts), options, listen, log=_log, report=report, output=output,
            overwrite=overwrite, command=["mcptape", "serve", *sys.argv[2:]], quiet=quiet,
            ready=lambda url: _log(f"mcptape serve: listening on {url}"),
        )  # fmt: skip
        raise SystemExit(said.code)
    if any(case in HTTP_CASE_IDS for case in inject):  # the HTTP cases need an HTTP client
        from mcptape.errors import UsageError

        case = next(case for case in inject if case in HTTP_CASE_IDS)
        raise UsageError(f"--inject {case} is for HTTP clients", hint="add --listen HOST:PORT")
    outcome = serve(
        list(transcripts),
        options,
        log=_log,
        report=report,
        output=output,
        overwrite=overwrite,
        command=["mcptape", "serve", *sys.argv[2:]] if len(sys.argv) > 2 else ["mcptape", "serve"],
        quiet=quiet,
    )
    raise SystemExit(outcome.code)


def _rules(ignores: tuple[str, ...], *, config: bool) -> list[Rule]:
    """The ignore rules matching skips: [tool.mcptape]'s (unless --no-config), then --ignore's."""
    from mcptape.diff.ignore import parse_rule

    rules: list[Rule] = []
    if config:
        from mcptape.replay.config import load_config

        rules.extend(load_config().ignore)
    rules.extend(parse_rule(text) for text in ignores)
    return rules


def probe_client(
    client: list[str],
    *,
    transcript: str | None,
    out_dir: str,
    outputs: Outputs,
    timeout: float,
    jobs: int,
    only: tuple[str, ...],
) -> NoReturn:
    """`mcptape probe --client --from TRANSCRIPT -- CLIENT...`: every hard output against a client
    command that takes the server command as its last arguments. stdout gets the table, JSON or a
    report format (`outputs.mode`); the report's files are written as `outputs` asks.
    Exit 0 when no case failed or was inconclusive (warnings allowed), 1 when one did, 2 on a
    usage error."""
    from mcptape.commands.output import json_text, write
    from mcptape.errors import EXIT_FINDINGS, EXIT_OK, UsageError
    from mcptape.probe.folder import ClientFolder
    from mcptape.serve.clientprobe import ClientPlan, run_client_probe
    from mcptape.serve.clientreport import render_table, to_json
    from mcptape.serve.pool import load_pool

    if transcript is None:
        raise UsageError(
            "probe --client needs --from TRANSCRIPT: the recorded session to serve to the client",
            hint="record one first: mcptape record -o s.jsonl -- SERVER, run through the client",
        )
    if not client[0]:
        raise UsageError("the client command's name is empty", hint="give the client's executable after --")
    unknown = [c for c in only if c not in CASE_IDS and c != "start"]
    if unknown:
        raise UsageError(f"unknown client case {unknown[0]!r}", hint=f"cases: {', '.join(CASE_IDS)}")
    load_pool([Path(transcript)])  # an unreadable or answerless transcript: exit 2 before any run
    outputs.check([transcript])  # a typo fails before the client runs
    out = Path(out_dir).absolute()
    cases = [c for c in CASE_IDS if not only or c in only]
    # An earlier client probe's files go; a file no probe wrote under a name this run writes stops it.
    ClientFolder(out, {"start", *cases}).fresh(keep=[Path(transcript)])
    plan = ClientPlan(
        client,
        Path(transcript).absolute(),
        out,
        timeout=timeout,
        jobs=jobs,
        cases=cases,
    )
    result = run_client_probe(plan)
    document = json_text(to_json(result)) + "\n"
    _save(out / "probe-client.json", document.encode())
    if outputs.report:
        from mcptape.commands.ci.client import client_probe_report

        outputs.write(client_probe_report(result))
    if not outputs.report_on_stdout:
        write(document if outputs.json else render_table(result))
    raise SystemExit(EXIT_FINDINGS if result.failed else EXIT_OK)


def _save(path: Path, data: bytes) -> None:
    from mcptape.errors import OutputError

    try:
        path.write_bytes(data)
    except OSError as exc:
        raise OutputError(
            f"cannot write {path}: {exc.strerror}", hint="check the path and its directory"
        ) from None

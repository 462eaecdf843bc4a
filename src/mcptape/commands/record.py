"""`mcptape record` as a click command: its help and its errors. The work is in `recording.record`."""

from __future__ import annotations

import click

from mcptape.commands.options import Seconds
from mcptape.commands.recording import record
from mcptape.recorder.options import RecordOptions


@click.command(
    "record",
    context_settings={"allow_interspersed_args": False},
    epilog="""\b
In an MCP client's config, put mcptape in front of the server command
(a trailing / makes -o a directory, made when missing: one new file per session):
  {"command": "mcptape",
   "args": ["record", "-o", "/tmp/tapes/", "--", "uvx", "mcp-server-time"]}

\b
Examples:
  mcptape record -o session.jsonl -- python -m my_server
  mcptape record -o ~/tapes/ -- npx -y @modelcontextprotocol/server-everything
  MCPTAPE_DIR=~/tapes mcptape record -- ./server --stdio
  mcptape record -o ~/tapes/ --name '{server}-{date}-{unique}.jsonl' --fail-open -- ./server
  mcptape record --http-upstream http://127.0.0.1:8000/mcp -o http.jsonl -- ./server --port 8000

Nothing but the server's own bytes is written to stdout. The exit code is the
server's (128+N when it died of signal N); 2 when mcptape itself cannot start.""",
)
@click.option(
    "-o",
    "--output",
    metavar="PATH",
    help="Transcript file to write, or a directory (a trailing /: made when missing, mode 0700) "
    "for a new file per session. Default: a new file in $MCPTAPE_DIR, else the current directory.",
)
@click.option(
    "--name",
    metavar="TEMPLATE",
    help="The name of a new file in the directory: {server} (a slug of the server command), {time}, "
    "{date}, {pid}, {unique}. Default: mcptape-{server}-{time}-{unique}.jsonl",
)
@click.option(
    "--fail-open",
    is_flag=True,
    help="When the transcript cannot be written, run the server unrecorded (one line on stderr) "
    "instead of failing.",
)
@click.option("--overwrite", is_flag=True, help="Replace PATH if it exists (default: refuse).")
@click.option("-q", "--quiet", is_flag=True, help="Do not say on stderr where the transcript goes.")
@click.option(
    "--shutdown-timeout",
    type=Seconds(min=0, forever=True),
    default=5.0,
    show_default=True,
    metavar="SECONDS",
    help="After the client closes stdin: how long to wait for the server before SIGTERM, "
    "and again before SIGKILL (inf: wait for ever, never signal).",
)
@click.option(
    "--http-sink",
    is_flag=True,
    help="Point the server's HTTP(S)_PROXY at a loopback sink "
    "that records every outbound request and answers 502.",
)
@click.option(
    "--http-cassette",
    is_flag=True,
    help="Put a recording proxy in front of the server's HTTP(S) (proxy and CA-bundle variables): "
    "requests reach the network, each request and response is recorded; replay serves them back "
    "(see docs/cassettes.md).",
)
@click.option(
    "--http-cassette-ca",
    "http_cassette_ca",
    multiple=True,
    metavar="FILE",
    help="Also trust this CA (PEM) for upstream HTTPS, e.g. a test server's "
    "(implies --http-cassette; repeatable).",
)
@click.option(
    "--stub",
    "stubs",
    multiple=True,
    metavar="NAME",
    help="Replace command NAME on the server's PATH with a recording stub that exits 255 (repeatable).",
)
@click.option(
    "--redact",
    is_flag=True,
    help="Redact secrets as they are recorded (keys like authorization/api_key/password at any depth of "
    "JSON, bearer and API tokens, secret environment values; see docs/sharing.md).",
)
@click.option(
    "--redact-key",
    "redact_keys",
    multiple=True,
    metavar="NAME",
    help="Also redact the value of JSON key or flag NAME (implies --redact; repeatable).",
)
@click.option(
    "--redact-pattern",
    "redact_patterns",
    multiple=True,
    metavar="REGEX",
    help="Also redact whatever REGEX matches (implies --redact; repeatable).",
)
@click.option(
    "--http-upstream",
    metavar="URL",
    help="Record a Streamable HTTP server: listen for the client and forward to URL, recording "
    "every exchange (-- CMD is then optional: it starts the server first; see docs/http.md).",
)
@click.option(
    "--listen",
    metavar="HOST:PORT",
    help="With --http-upstream: where the client connects (default: a free port on 127.0.0.1, "
    "printed on stderr).",
)
@click.option(
    "--otlp",
    metavar="URL",
    help="Also send each call as an OpenTelemetry span, live, to the OTLP/HTTP endpoint URL (in the "
    "background: a slow or absent collector never delays the relay; docs/export.md).",
)
@click.argument("command", nargs=-1, required=False, metavar="-- CMD [ARGS]...")
def record_command(
    output: str | None,
    name: str | None,
    fail_open: bool,
    overwrite: bool,
    quiet: bool,
    shutdown_timeout: float,
    http_sink: bool,
    http_cassette: bool,
    http_cassette_ca: tuple[str, ...],
    stubs: tuple[str, ...],
    redact: bool,
    redact_keys: tuple[str, ...],
    redact_patterns: tuple[str, ...],
    command: tuple[str, ...],
    http_upstream: str | None = None,
    listen: str | None = None,
    otlp: str | None = None,
) -> None:
    """Run an MCP server and record every byte it exchanges (stdio, or HTTP with --http-upstream).

    Forwards stdin, stdout and stderr byte-exactly and in real time, and appends every chunk,
    timed, to a transcript (JSON Lines, mode 0600). With --http-upstream URL, a reverse proxy
    records each Streamable HTTP exchange instead (docs/http.md). The server can report its own actions on the
    executor tap: one JSON line per action written to the fd named in $MCPTAPE_EXEC_FD.
    """
    opts = RecordOptions(
        command=list(command),
        output=output,
        overwrite=overwrite,
        quiet=quiet,
        shutdown_timeout=shutdown_timeout,
        http_sink=http_sink,
        http_cassette=http_cassette,
        http_cassette_ca=list(http_cassette_ca),
        stubs=list(stubs),
        redact=redact,
        redact_keys=list(redact_keys),
        redact_patterns=list(redact_patterns),
        name=name,
        fail_open=fail_open,
        http_upstream=http_upstream,
        listen=listen,
        otlp=otlp,
    )
    if not command and http_upstream is None:
        raise click.UsageError("Missing argument '-- CMD [ARGS]...'.")
    raise SystemExit(record(opts))

"""`mcptape record`, wired: the recorder, with the share package's redaction when `--redact` asks.

Click-free, so the console script's fast path (`mcptape.entry`) calls it before click, rich or the
analysis code is imported; the click command (`mcptape.commands.record`) calls it too.
"""

from __future__ import annotations

from mcptape.recorder.options import RecordOptions
from mcptape.recorder.run import record as run_recorder

TYPE_CHECKING = False  # typing costs ~4 ms before the spawn
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from mcptape.recorder.run import OpenWriter
    from mcptape.transcript.writer import TranscriptWriter


def record(opts: RecordOptions) -> int:
    """Record `opts.command` with this process's stdio as the client; return the exit code."""
    if opts.otlp is not None:
        if opts.http_upstream is not None:
            from mcptape.recorder.http.run import record_http

            return record_http(opts, writer_opener=lambda: _live(opts))
        return run_recorder(opts, writer_opener=lambda: _live(opts))
    if opts.http_upstream is not None:  # a Streamable HTTP session, through a reverse proxy
        from mcptape.recorder.http.run import record_http

        return record_http(opts)
    if opts.listen is not None:
        from mcptape.errors import UsageError

        raise UsageError("--listen is for --http-upstream", hint="add --http-upstream URL")
    if opts.redact or opts.redact_keys or opts.redact_patterns:
        return run_recorder(opts, writer_opener=lambda: _redacting(opts))
    return run_recorder(opts)


def _live(opts: RecordOptions) -> OpenWriter:
    """`--otlp URL`: a writer that also exports each call live (export/live.py). What it cannot do
    fails here, before the spawn."""
    import importlib.util

    from mcptape.errors import UsageError
    from mcptape.export.send import traces_url

    url = opts.otlp
    assert url is not None
    if opts.redact or opts.redact_keys or opts.redact_patterns:
        raise UsageError(
            "--otlp with --redact is not supported yet", hint="export the redacted transcript afterwards"
        )
    traces_url(url, "--otlp")
    if importlib.util.find_spec("opentelemetry.proto") is None:
        from mcptape.export.otlp import INSTALL_HINT

        raise UsageError("--otlp needs opentelemetry-proto, which is not installed", hint=INSTALL_HINT)
    transcript = opts.output or "live"

    def open_writer(
        fd: int, clock_start: float, command: Sequence[str], environ: Mapping[str, str]
    ) -> TranscriptWriter:
        from mcptape.export.live import LiveWriter

        return LiveWriter(fd, clock_start=clock_start, endpoint=url, transcript=transcript)

    return open_writer


def _redacting(opts: RecordOptions) -> OpenWriter:
    """Build the redaction rules (a bad `--redact-pattern` fails here, before the spawn) and the
    function that opens a writer redacting each line before it reaches the file."""
    from mcptape.share.rules import Rules

    rules = Rules.build(opts.redact_keys, opts.redact_patterns, regex_flag="--redact-pattern")

    def open_writer(
        fd: int, clock_start: float, command: Sequence[str], environ: Mapping[str, str]
    ) -> TranscriptWriter:
        from mcptape.share.live import redacting_writer

        return redacting_writer(fd, clock_start=clock_start, command=command, environ=environ, rules=rules)

    return open_writer

"""`serve` end to end: read the recordings, serve one client over two file descriptors, report.

The report file and the new transcript (`-o`) are written even when the session is stopped
(SIGTERM, Ctrl-C); the report file says `"running": true` while the session lasts. Nothing here
writes to stdout but the session's protocol bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcptape.errors import OutputError
from mcptape.jsonsafe import dumps
from mcptape.serve.pool import Pool, load_pool
from mcptape.serve.report import exit_code, summary, to_json
from mcptape.serve.session import Options, Served, Session
from mcptape.share.outputs import refuse_input
from mcptape.textsafe import escape_json, escape_text
from mcptape.transcript.files import open_output
from mcptape.transcript.writer import TranscriptWriter, new_header


@dataclass
class Outcome:
    """A finished serve: what happened, and the exit code it stands for."""

    pool: Pool
    served: Served
    code: int


def serve(
    paths: Sequence[Path],
    options: Options,
    *,
    log: Callable[[str], None],
    report: Path | None = None,
    output: Path | None = None,
    overwrite: bool = False,
    command: Sequence[str] = ("mcptape", "serve"),
    quiet: bool = False,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
    on_session: Callable[[Session], None] | None = None,
) -> Outcome:
    """Serve one client from the recordings at `paths`; MCPTapeError for unreadable input or an
    output that cannot be written (checked before the session starts). `on_session` is given the
    session before it runs."""
    pool = load_pool(paths)
    for path, option in ((output, "-o"), (report, "--report")):
        if path is not None:  # the served session or the report must never replace a recording
            refuse_input(pool.files, path, hint=f"choose another file for {option}")
    if not quiet:
        for note in pool.notes:
            log(f"mcptape serve: note: {escape_text(note)}")
    writer = _writer(output, overwrite, command, pool, options) if output is not None else None
    if report is not None:
        _check_writable(report)
        started = {"transcripts": [str(p) for p in pool.files], "running": True}
        _write(report, dumps(started, indent=True).encode("utf-8", "surrogatepass") + b"\n")
    try:
        session = Session(pool, options, log=log, writer=writer, stdin_fd=stdin_fd, stdout_fd=stdout_fd)
        if on_session is not None:  # serve over HTTP looks up which recording answered a request
            on_session(session)
        served = session.run()
        code = exit_code(served)
        if writer is not None:
            writer.fields(writer.now(), "exit", code=code, signal=None)
    finally:
        if writer is not None:
            writer.close()
    if not quiet:
        log(summary(served, pool))
    if report is not None:
        text = escape_json(dumps(to_json(served, pool, options, code), indent=True)) + "\n"
        _write(report, text.encode("utf-8", "surrogatepass"))
    if writer is not None and writer.failed is not None:
        raise OutputError(f"cannot write {output}: {writer.failed.strerror or writer.failed}")
    return Outcome(pool, served, code)


def _writer(
    path: Path, overwrite: bool, command: Sequence[str], pool: Pool, options: Options
) -> TranscriptWriter:
    fd = open_output(path, overwrite=overwrite, exists_hint="pass --overwrite, or choose another -o")
    writer = TranscriptWriter(fd)
    serve_info = {
        "transcripts": [str(p) for p in pool.files],
        "match": options.mode,
        "exact": options.exact,
        "inject": list(options.inject),
    }
    writer.header(new_header(list(command), os.getcwd(), serve=serve_info))
    return writer


def _check_writable(path: Path) -> None:
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a directory", hint="name a file for --report")
    if not path.absolute().parent.is_dir():
        raise OutputError(
            f"cannot write {path}: directory {path.parent} does not exist", hint="create it first"
        )


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None

"""`serve FILE --listen HOST:PORT` end to end: the served session (`run.serve`, on two pipes) behind
its HTTP face (`http.HttpFront`), until SIGINT or SIGTERM; then the session ends as when a stdio
client closes, and its summary, report and `-o` transcript are written as for stdio."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from mcptape.errors import UsageError
from mcptape.recorder.http.run import parse_listen
from mcptape.serve.http import HttpFront
from mcptape.serve.httpinject import HTTP_CASE_IDS
from mcptape.serve.pool import transcripts_in
from mcptape.serve.run import Outcome, serve
from mcptape.serve.session import Options, Session


def serve_http(
    paths: Sequence[Path],
    options: Options,
    listen: str,
    *,
    log: Callable[[str], None],
    report: Path | None = None,
    output: Path | None = None,
    overwrite: bool = False,
    command: Sequence[str] = ("mcptape", "serve"),
    quiet: bool = False,
    ready: Callable[[str], None] | None = None,
    stop: threading.Event | None = None,
) -> Outcome:
    """Serve one recorded session over HTTP on `listen` until `stop` is set (by default: SIGINT or
    SIGTERM); `ready(url)` once it accepts connections. MCPTapeError for unreadable input, an
    address it cannot listen on, an output it cannot write."""
    front, options = _front(paths, options, listen, log)
    stop = stop if stop is not None else _on_signals()

    def session(on_session: Callable[[Session], None]) -> Outcome:
        return serve(
            list(paths),
            options,
            log=log,
            report=report,
            output=output,
            overwrite=overwrite,
            command=command,
            quiet=quiet,
            stdin_fd=front.in_r,
            stdout_fd=front.out_w,
            on_session=on_session,
        )

    return _behind(front, session, stop, ready, log)


def _behind(
    front: HttpFront,
    session: Callable[[Callable[[Session], None]], Outcome],
    stop: threading.Event,
    ready: Callable[[str], None] | None,
    log: Callable[[str], None],
) -> Outcome:
    """Run the stdio `session` in its own thread behind `front`, which serves from the moment the
    session attaches until `stop`; then the session's outcome, or its error raised here."""
    attached = threading.Event()
    result: dict[str, Any] = {}

    def attach(served: Session) -> None:
        front.attach(served)
        attached.set()

    def run() -> None:
        try:
            result["outcome"] = session(attach)
        except BaseException as exc:  # told in the main thread
            result["error"] = exc
        finally:
            attached.set()
            stop.set()

    worker = threading.Thread(target=run, name="mcptape-serve-session", daemon=True)
    worker.start()
    attached.wait()
    if "error" not in result:
        front.start()
        if ready is not None:
            ready(front.url)
        stop.wait()
    front.stop()
    worker.join()
    front.close()
    for case in front.injector.waiting:
        log(f"mcptape serve: --inject {case} was not played (no request came past the handshake)")
    if "error" in result:
        raise result["error"]
    outcome: Outcome = result["outcome"]
    return outcome


def _front(
    paths: Sequence[Path], options: Options, listen: str, log: Callable[[str], None]
) -> tuple[HttpFront, Options]:
    """The HTTP front listening on `listen`, and the options of the stdio session behind it (the
    HTTP hard outputs are the front's to inject; a stdio one is a usage error)."""
    stdio_cases = [case for case in options.inject if case not in HTTP_CASE_IDS]
    if stdio_cases:
        raise UsageError(
            f"--inject is for stdio clients: {stdio_cases[0]}",
            hint=f"over HTTP: {', '.join(HTTP_CASE_IDS)}",
        )
    host, port = parse_listen(listen)
    files = [file for path in paths for file in transcripts_in(path)]
    try:
        front = HttpFront(files, host, port, log, inject=list(options.inject))
    except OSError as exc:
        raise UsageError(f"--listen {listen}: cannot listen there ({exc.strerror or exc})") from None
    return front, replace(options, inject=[])


def _on_signals() -> threading.Event:
    """An event SIGINT and SIGTERM set (the main thread's handlers; elsewhere, none)."""
    stop = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        stop.set()

    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, handler)
    except ValueError:  # not the main thread
        pass
    return stop

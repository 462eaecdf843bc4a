"""`mcptape replay FILE --http-upstream URL [-- CMD]`: send an HTTP transcript's recorded requests to a
new build over HTTP, record the new session as `record --http-upstream` does, and diff the two.

The new server runs behind the same recording reverse proxy `record` uses (so the new transcript is
an HTTP transcript of the same shape), and the recorded client is played against that proxy
(`httpdriver.HttpDriver`: the recorded requests, the new session's values in place of the recorded
server's, causal pacing). With `-- CMD` the server is started first (mcptape waits until the URL
accepts connections) and stopped at the end the way the recorded one ended (the signal it died of,
else the shutdown order). The URL must be on loopback (`127.*`, `::1`, `localhost`) unless
`allow_remote` is given: a replay sends recorded requests, which may act, to whatever it reaches.
"""

from __future__ import annotations

import ipaddress
import os
import threading
import time
from pathlib import Path

from mcptape.errors import MCPTapeError, UsageError
from mcptape.recorder.httprun import Server, parse_upstream, wait_for
from mcptape.recorder.lifeline import Lifeline, watch
from mcptape.recorder.pumps import Pump
from mcptape.recorder.reverse import ReverseProxy
from mcptape.recorder.spawn import Child, spawn
from mcptape.recorder.spool import Spool
from mcptape.replay.driver import Run
from mcptape.replay.httpdriver import HttpDriver
from mcptape.replay.httpplan import make_http_plan
from mcptape.textsafe import escape_text
from mcptape.transcript.files import open_output
from mcptape.transcript.reader import open_transcript
from mcptape.transcript.wire import HTTP_IN, STDOUT
from mcptape.transcript.writer import TranscriptWriter, new_header

MAX_SAID = 300  # bytes of the server's last stderr line said in an error
REMOTE_HINT = "replay against a server you run; --http-allow-remote sends the recorded requests there anyway"


def is_loopback(host: str) -> bool:
    """`localhost`, or an IP address on loopback (`127.0.0.0/8`, `::1`). A name is not resolved."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class QuietServer(Server):
    """The server `-- CMD` started, its stdout, stderr and executor tap recorded and not passed on:
    mcptape's stdout is the replay's report."""

    def __init__(self, child: Child, spool: Spool, lifeline: Lifeline | None, timeout: float) -> None:
        super().__init__(child, spool, lifeline, timeout)
        self.pumps = [
            Pump(ch, src, None, spool, on_eof=self._eof(ch), close_src=True)
            for ch, src in ((STDOUT, child.stdout), ("err", child.stderr), ("exec", child.tap))
        ]


def run_http(
    path: Path,
    upstream_url: str,
    command: list[str],
    output: Path,
    *,
    overwrite: bool = False,
    step_timeout: float = 10.0,
    shutdown_timeout: float = 2.0,
    allow_remote: bool = False,
) -> Run:
    """Replay `path` against `upstream_url` (started by `command` when given), recording the new
    session to `output`; how it went (`Run`: issues, substitutions, the server's end)."""
    upstream = parse_upstream(upstream_url)
    if not allow_remote and not is_loopback(upstream.host):
        raise UsageError(
            f"--http-upstream {upstream_url!r} is not on this machine (loopback)", hint=REMOTE_HINT
        )
    if command and upstream.accepts():  # the replay would reach that one, not the server it starts
        where = f"something already accepts connections on {upstream.authority}"
        raise UsageError(where, hint="stop it, or give the new server another port (in CMD and the URL)")
    transcript = open_transcript(path)
    plan = make_http_plan(transcript.events)
    if not plan.steps:
        raise UsageError(
            f"{path} has no HTTP exchange", hint="replay a stdio transcript without --http-upstream"
        )
    ended = next((e for e in reversed(list(transcript.events())) if e.ch == "exit"), None)
    recorded_http = transcript.header.extra.get("http")
    started = time.monotonic()
    fd = open_output(output, overwrite=overwrite, exists_hint="pass --overwrite, or choose another -o")
    writer = TranscriptWriter(fd, clock_start=started)
    spool = Spool(writer)
    server = None
    if command:
        child = spawn(command, dict(os.environ))
        server = QuietServer(child, spool, watch(child.pid, shutdown_timeout), shutdown_timeout)
    proxy = ReverseProxy(spool, upstream)
    extra: dict[str, object] = {
        "http": {"upstream": upstream.url, "listen": proxy.url},
        "replay_of": str(path),
    }
    if server is not None:
        extra["pid"] = server.child.pid
    writer.header(new_header(command, str(Path.cwd()), **extra))
    run = Run(path=output, total=len(plan.steps))
    gone = threading.Event()
    driver = HttpDriver(
        plan,
        proxy.host,
        proxy.port,
        run,
        step_timeout=step_timeout,
        recorded_host=_listen_authority(recorded_http),
        gone=gone,
    )
    failed = None
    try:
        if server is not None:
            server.start(on_exit=driver.server_exited)
            failed = wait_for(upstream, server, gone)
        if failed is None:
            proxy.start()
            driver.drive()
    finally:
        if server is not None:
            recorded_signal = (ended.fields or {}).get("signal") if ended is not None else None
            run.status = server.stop(recorded_signal if type(recorded_signal) is int else None)
        proxy.stop(grace=1.0)
        spool.fields(spool.now(), "eof", of=HTTP_IN)
        if run.status is not None:
            spool.fields(spool.now(), "exit", code=run.status.code, signal=run.status.signal)
        spool.close()
        writer.close()
        run.write_error = writer.failed
    if failed is not None:
        last = _last_stderr_line(output)
        said = f"; its stderr ends: {escape_text(last)}" if last else ""
        raise UsageError(failed + said, hint="check the server command and the --http-upstream port")
    run.seconds = time.monotonic() - started
    return run


def _last_stderr_line(path: Path) -> str:
    """The last non-blank line the server wrote on its stderr (recorded in the new session)."""
    try:
        err = b"".join(e.data for e in open_transcript(path).events() if e.ch == "err")
    except MCPTapeError:
        return ""
    lines = [line for line in err.splitlines() if line.strip()]
    return lines[-1][:MAX_SAID].decode("utf-8", "replace").strip() if lines else ""


def replay_http(
    path: Path,
    upstream_url: str,
    command: list[str],
    output: Path,
    *,
    overwrite: bool = False,
    step_timeout: float = 10.0,
    shutdown_timeout: float = 2.0,
    allow_remote: bool = False,
) -> list[str]:
    """`run_http`, returning only what went wrong (each issue's message)."""
    run = run_http(
        path,
        upstream_url,
        command,
        output,
        overwrite=overwrite,
        step_timeout=step_timeout,
        shutdown_timeout=shutdown_timeout,
        allow_remote=allow_remote,
    )
    return [issue.message for issue in run.issues]


def _listen_authority(http: object) -> str | None:
    """The `host:port` the recording's proxy listened on (what the recorded client put in `Host`)."""
    if not isinstance(http, dict):
        return None
    listen = http.get("listen")
    if not isinstance(listen, str) or "://" not in listen:
        return None
    return listen.partition("://")[2].partition("/")[0] or None

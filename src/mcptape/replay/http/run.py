"""Replay an HTTP transcript over Streamable HTTP (`HttpReplay`, the HTTP wing's `Driver`): send its
recorded requests to a new build, record the new session as `record --http-upstream` does.

The new server runs behind the same recording reverse proxy `record` uses (so the new transcript is
an HTTP transcript of the same shape), and the recorded client is played against that proxy
(`driver.HttpDriver`: the recorded requests, the new session's values in place of the recorded
server's, causal or recorded pacing). A server command is started first, with the side effects a
stdio replay has (executor tap, loopback HTTP sink or the recorded cassette, command stubs), and
mcptape waits until the URL accepts connections; it is stopped at the end the way the recorded one
ended (the signal it died of, else the shutdown order). The URL is the recorded upstream, or
`--http-upstream`; it must be on loopback (`127.*`, `::1`, `localhost`) unless `allow_remote`: a
replay sends recorded requests, which may act, to whatever it reaches.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import ExitStack
from pathlib import Path

from mcptape.errors import UsageError
from mcptape.recorder.http.hostrewrite import is_loopback
from mcptape.recorder.http.reverse import ReverseProxy, Upstream
from mcptape.recorder.http.run import QuietServer, last_stderr_line, parse_upstream, wait_for
from mcptape.recorder.lifeline import watch
from mcptape.recorder.outbound.sideeffects import side_effects
from mcptape.recorder.spawn import spawn
from mcptape.recorder.spool import Spool
from mcptape.replay.http.driver import HttpDriver
from mcptape.replay.http.plan import make_http_plan
from mcptape.replay.outcome import Run
from mcptape.replay.transport import Job
from mcptape.textsafe import escape_text
from mcptape.transcript.envnames import HEADER_KEY, describe
from mcptape.transcript.files import open_output
from mcptape.transcript.wire import HTTP_IN
from mcptape.transcript.writer import TranscriptWriter, new_header

REMOTE_HINT = "replay against a server you run; --http-allow-remote sends the recorded requests there anyway"
NO_URL_HINT = "give the URL the server listens on: --http-upstream http://127.0.0.1:PORT/mcp"


def upstream_url(job: Job) -> str:
    """Where the new server is reached: `--http-upstream`, else the upstream the header recorded."""
    if job.settings.http_upstream is not None:
        return job.settings.http_upstream
    http = job.transcript.header.extra.get("http")
    url = http.get("upstream") if isinstance(http, dict) else None
    if not isinstance(url, str) or not url:
        raise UsageError(f"{job.path}: the HTTP transcript's header names no upstream URL", hint=NO_URL_HINT)
    return url


def checked_upstream(job: Job) -> Upstream:
    """The upstream to replay against, refused when it is not on loopback (unless allowed) or when
    something already listens there while a server is to be started."""
    url = upstream_url(job)
    upstream = parse_upstream(url)
    if not job.settings.allow_remote and not is_loopback(upstream.host):
        raise UsageError(f"--http-upstream {url!r} is not on this machine (loopback)", hint=REMOTE_HINT)
    if job.server.command and upstream.accepts():  # the replay would reach that one, not the new one
        where = f"something already accepts connections on {upstream.authority}"
        raise UsageError(where, hint="stop it, or give the new server another port (in CMD and the URL)")
    return upstream


class HttpReplay:
    """The HTTP wing's driver: one replay of `job` over HTTP."""

    def __init__(self, job: Job) -> None:
        self.job = job
        self.upstream = checked_upstream(job)
        self.plan = make_http_plan(job.transcript.events)
        if not self.plan.steps:
            raise UsageError(
                f"{job.path} has no HTTP exchange",
                hint="a copy redacted by an older mcptape keeps none: redact the recording again",
            )
        self.run = Run(path=job.new_path, total=len(self.plan.steps))
        self.started = 0.0

    def replay(self) -> Run:
        """Start the server (with its side effects) and the proxy, play the client, stop them."""
        job = self.job
        self.started = time.monotonic()
        fd = open_output(job.new_path, overwrite=True, exists_hint="pass --overwrite, or choose another -o")
        writer = TranscriptWriter(fd, clock_start=self.started)
        spool = Spool(writer)
        failed: str | None = None
        try:
            with ExitStack() as stack:
                proxy = ReverseProxy(spool, self.upstream)
                stack.callback(proxy.stop, grace=0.0)
                server = self._start_server(spool, stack)
                self._header(writer, proxy, server)
                failed = self._drive(proxy, server, spool)
        finally:
            spool.close()
            writer.close()
            self.run.write_error = writer.failed
        if failed is not None:
            last = last_stderr_line(job.new_path)
            said = f"; its stderr ends: {escape_text(last)}" if last else ""
            raise UsageError(failed + said, hint="check the server command and the --http-upstream port")
        self.run.seconds = time.monotonic() - self.started
        return self.run

    def _start_server(self, spool: Spool, stack: ExitStack) -> QuietServer | None:
        """The server command started with the executor tap, the HTTP sink (or the cassette) and the
        stubs, as a stdio replay starts it; None without a command."""
        job = self.job
        if not job.server.command:
            return None
        effects = stack.enter_context(
            side_effects(spool, http_sink=True, stubs=job.server.stubs, http=job.http)
        )
        base = dict(os.environ if job.settings.env is None else job.settings.env)
        child = spawn(job.server.command, effects.child_env(base), cwd=job.server.cwd)
        timeout = job.settings.shutdown_timeout
        return QuietServer(child, spool, watch(child.pid, timeout), timeout)

    def _header(self, writer: TranscriptWriter, proxy: ReverseProxy, server: QuietServer | None) -> None:
        job = self.job
        extra: dict[str, object] = {
            "http": {"upstream": self.upstream.url, "listen": proxy.url},
            "replay_of": str(job.path),
            "replay": {"of": str(job.path), "pace": job.settings.pace},
        }
        if server is not None:
            extra["pid"] = server.child.pid
            extra[HEADER_KEY] = describe(os.environ if job.settings.env is None else job.settings.env)
        writer.header(new_header(job.server.command, job.server.cwd or str(Path.cwd()), **extra))

    def _drive(self, proxy: ReverseProxy, server: QuietServer | None, spool: Spool) -> str | None:
        """Wait for the server's port, play the client, then stop the server and the proxy; why the
        server never accepted connections (None: it did)."""
        gone = threading.Event()
        driver = self._driver(proxy, gone)
        failed = None
        try:
            if server is not None:
                server.start(on_exit=driver.server_exited)
                failed = wait_for(self.upstream, server, gone)
            if failed is None:
                proxy.start()
                driver.drive()
        finally:
            if server is not None:
                self.run.status = server.end_as_recorded(
                    self._recorded_signal(), self.job.settings.step_timeout
                )
            proxy.stop(grace=1.0)
            spool.fields(spool.now(), "eof", of=HTTP_IN)
            if self.run.status is not None:
                spool.fields(spool.now(), "exit", code=self.run.status.code, signal=self.run.status.signal)
        return failed

    def _driver(self, proxy: ReverseProxy, gone: threading.Event) -> HttpDriver:
        settings = self.job.settings
        return HttpDriver(
            self.plan,
            proxy.host,
            proxy.port,
            self.run,
            step_timeout=settings.step_timeout,
            recorded_host=_listen_authority(self.job.transcript.header.extra.get("http")),
            gone=gone,
            pace=settings.pace,
            transform=self.job.transform,
            allow_mutating=settings.allow_mutating,
        )

    def _recorded_signal(self) -> int | None:
        """The signal the replayed server gets at the end: the one the recorded server died of, else
        SIGINT when it exited with a code (`record` forwards the Ctrl-C that ends a recording, and a
        server that handles it exits 0: server-everything), else None (the shutdown order alone)."""
        ended = next((e for e in reversed(list(self.job.transcript.events())) if e.ch == "exit"), None)
        if ended is None:
            return None
        signum = (ended.fields or {}).get("signal")
        return signum if type(signum) is int else signal.SIGINT


def _listen_authority(http: object) -> str | None:
    """The `host:port` the recording's proxy listened on (what the recorded client put in `Host`)."""
    if not isinstance(http, dict):
        return None
    listen = http.get("listen")
    if not isinstance(listen, str) or "://" not in listen:
        return None
    return listen.partition("://")[2].partition("/")[0] or None

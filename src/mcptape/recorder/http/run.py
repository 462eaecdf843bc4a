"""`mcptape record --http-upstream URL [--listen HOST:PORT] -o FILE [-- CMD...]`: record a Streamable
HTTP session through the reverse proxy (`reverse.py`).

With `-- CMD` the server is started first, its stdout (channel `stdout`: an HTTP server's stdout is
not the protocol), stderr (`err`) and executor tap (`exec`) recorded and passed on as for stdio; the
proxy opens once the upstream accepts connections. The recording ends on SIGINT, SIGTERM or SIGHUP
(forwarded to the server, which then gets the usual shutdown order: `--shutdown-timeout` to exit,
SIGTERM, the timeout again, SIGKILL), or when the server exits by itself.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from mcptape.errors import MCPTapeError, UsageError
from mcptape.recorder.http.reverse import ReverseProxy, Upstream
from mcptape.recorder.lifeline import Lifeline, watch
from mcptape.recorder.memory import keep_buffers_in_heap
from mcptape.recorder.options import RecordOptions
from mcptape.recorder.pumps import Pump
from mcptape.recorder.run import FORWARDED_SIGNALS, cwd, fill_closed_stdio, is_stdout, say
from mcptape.recorder.session import ExitStatus
from mcptape.recorder.spawn import Child, spawn
from mcptape.recorder.spool import Spool
from mcptape.transcript.reader import open_transcript
from mcptape.transcript.wire import HTTP_IN, STDOUT
from mcptape.transcript.writer import TranscriptWriter, new_header

TYPE_CHECKING = False
if TYPE_CHECKING:
    from mcptape.recorder.run import OpenWriter

START_TIMEOUT = 30.0  # seconds the server has to accept connections on the upstream address
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def parse_upstream(url: str) -> Upstream:
    """The `--http-upstream` URL (http or https, a host, a port or the scheme's); UsageError."""
    hint = "e.g. --http-upstream http://127.0.0.1:8000/mcp"
    try:  # urlsplit raises on a bracket left open, .port on a port that is no port
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        raise UsageError(f"--http-upstream {url!r} has an invalid host or port", hint=hint) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--http-upstream {url!r} is not an http:// or https:// URL with a host", hint=hint)
    if not url.isascii() or not url.isprintable() or " " in url:  # not sendable in a request line
        raise UsageError(
            f"--http-upstream {url!r} holds a space, a control or a non-ASCII character", hint=hint
        )
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Upstream(scheme, parts.hostname, port, path)


def parse_listen(text: str | None) -> tuple[str, int]:
    """`--listen HOST:PORT` (`[v6]:PORT`, or `PORT` alone on loopback); default a free loopback port."""
    if text is None:
        return "127.0.0.1", 0
    hint = "e.g. --listen 127.0.0.1:8080 (0.0.0.0:8080 to accept other machines)"
    host, colon, port_text = text.rpartition(":")
    if not colon:
        host, port_text = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise UsageError(f"--listen {text!r} is not HOST:PORT", hint=hint) from None
    if not 0 <= port < 65536:
        raise UsageError(f"--listen {text!r}: the port is not in 0-65535", hint=hint)
    return host, port


class Server:
    """The server started by `-- CMD`: its pumps, its reaper, its shutdown order."""

    def __init__(self, child: Child, spool: Spool, lifeline: Lifeline | None, timeout: float) -> None:
        self.child = child
        self.spool = spool
        self.lifeline = lifeline
        self.timeout = timeout
        self.exited = threading.Event()
        self.status: ExitStatus | None = None
        self.pumps = [
            Pump(STDOUT, child.stdout, 1, spool, on_eof=self._eof(STDOUT), close_src=True),
            Pump("err", child.stderr, 2, spool, on_eof=self._eof("err"), close_src=True),
            Pump("exec", child.tap, None, spool, on_eof=self._eof("exec"), close_src=True),
        ]
        self._stopping = False

    def _eof(self, ch: str) -> Callable[[float], None]:
        def on_eof(t: float) -> None:
            self.spool.fields(t, "eof", of=ch)

        return on_eof

    def start(self, on_exit: Callable[[], None]) -> None:
        for pump in self.pumps:
            pump.start()

        def reap() -> None:
            while True:
                try:
                    _, status = os.waitpid(self.child.pid, 0)
                    break
                except ChildProcessError:
                    status = 0
                    break
                except InterruptedError:
                    continue
            self.status = ExitStatus.from_wait(status)
            self.exited.set()
            if self.lifeline is not None:
                self.lifeline.disarm()
            on_exit()

        threading.Thread(target=reap, name="mcptape-http-reaper", daemon=True).start()

    def signal(self, signum: int) -> None:
        if self.exited.is_set():
            return
        try:
            os.killpg(self.child.pid, signum)
        except OSError:
            pass

    def stop(self, signum: int | None) -> ExitStatus:
        """The shutdown order: the signal the user sent (if any), stdin closed, then after
        `timeout` SIGTERM, then SIGKILL; returns how the server ended."""
        if signum is not None:
            self.signal(signum)
        try:
            os.close(self.child.stdin)
        except OSError:
            pass
        wait = self.timeout if self.timeout < float("inf") else None
        if not self.exited.wait(wait):
            self.spool.fields(
                self.spool.now(), "note", msg=f"server still running {self.timeout:g}s after the end: SIGTERM"
            )
            self.signal(signal.SIGTERM)
            if not self.exited.wait(wait):
                self.spool.fields(self.spool.now(), "note", msg="server ignored SIGTERM: SIGKILL")
                self.signal(signal.SIGKILL)
                self.exited.wait()
        deadline = time.monotonic() + 2.0
        for pump in self.pumps:
            pump.join(max(0.0, deadline - time.monotonic()))
        assert self.status is not None
        return self.status


def wait_for(upstream: Upstream, server: Server, stop: threading.Event) -> str | None:
    """Wait until the upstream the server was started for accepts a connection; the reason when it
    never will. (Without a server, mcptape listens at once: an upstream that is down gets 502s.)"""
    deadline = time.monotonic() + START_TIMEOUT
    while not upstream.accepts():
        if server.exited.is_set():
            assert server.status is not None
            where = upstream.authority
            return f"the server exited ({_how(server.status)}) before accepting connections on {where}"
        if stop.is_set():
            return "interrupted"
        if time.monotonic() > deadline:
            return f"nothing accepted connections on {upstream.authority} within {START_TIMEOUT:g}s"
        stop.wait(0.05)
    return None


def _how(status: ExitStatus) -> str:
    return f"signal {status.signal}" if status.signal is not None else f"code {status.code}"


WRITE_INLINE = 1 << 62  # every record written by the thread that made it (no writer thread: docs/http.md)


def record_http(opts: RecordOptions, *, writer_opener: Callable[[], OpenWriter] | None = None) -> int:
    """Record a Streamable HTTP session (see the module); return the exit code. `writer_opener`, as
    for `run.record`, gives the function that opens the transcript's writer (`record --otlp`)."""
    fill_closed_stdio()
    assert opts.http_upstream is not None
    upstream = parse_upstream(opts.http_upstream)
    host, port = parse_listen(opts.listen)
    _refuse_stdio_options(opts)
    open_writer = writer_opener() if writer_opener is not None else None  # fails before anything starts
    if signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    t0 = time.monotonic()
    from mcptape.recorder.paths import open_recording

    slug = opts.command or ["http", upstream.host]
    path, fd = open_recording(opts.output, overwrite=opts.overwrite, command=slug, template=opts.name)
    if is_stdout(fd):
        os.close(fd)
        raise UsageError(f"-o {path} is this process's stdout", hint="write the transcript to a file")
    if open_writer is not None:
        writer: TranscriptWriter = open_writer(fd, t0, slug, os.environ)
    else:
        writer = TranscriptWriter(fd, clock_start=t0)
    spool = Spool(writer, inline_below=WRITE_INLINE)
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED_SIGNALS)
    server: Server | None = None
    try:
        try:
            proxy = ReverseProxy(spool, upstream, host=host, port=port, say=say)
        except OSError as exc:
            raise UsageError(f"--listen {host}:{port}: cannot listen there ({exc.strerror or exc})") from None
        child = spawn(list(opts.command), dict(os.environ), sigmask=unblocked) if opts.command else None
    except BaseException:
        _undo_start(spool, writer, None if opts.overwrite else path)
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        raise
    extra: dict[str, object] = {"http": {"upstream": upstream.url, "listen": proxy.url}}
    if child is not None:
        from mcptape.transcript.envnames import HEADER_KEY, describe

        extra["pid"] = child.pid
        extra[HEADER_KEY] = describe(os.environ)  # names only (values for LANG, LC_*, TZ)
        server = Server(child, spool, watch(child.pid, opts.shutdown_timeout), opts.shutdown_timeout)
    writer.header(new_header(list(opts.command), cwd(), **extra))
    stop, received = _stop_on_signals()
    signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
    try:
        status, failed = _serve(opts, upstream, server, proxy, spool, path, stop, received)
    finally:
        proxy.stop(grace=0.0)
        spool.close()
        writer.close()
    if writer.failed is not None:
        say(f"mcptape: the transcript {path} stopped being written: {writer.failed}\n")
    if status is not None:
        return status.shell_code
    return 0 if failed is None or failed == "interrupted" else 1


def _undo_start(spool: Spool, writer: TranscriptWriter, path: str | Path | None) -> None:
    """The recording could not start: close the transcript, and remove it (`path`) when it was
    new (an --overwrite one is left as it is now)."""
    spool.close()
    writer.close()
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


def _stop_on_signals() -> tuple[threading.Event, list[int]]:
    """The event set by the signals a recording forwards (SIGINT, SIGTERM, ...), and the list of
    those received, handlers installed for each signal not ignored."""
    stop = threading.Event()
    received: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        received.append(signum)
        stop.set()

    for signum in FORWARDED_SIGNALS:
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, on_signal)
    return stop, received


def _refuse_stdio_options(opts: RecordOptions) -> None:
    """The options of a stdio recording that an HTTP one cannot honour: one usage error each."""
    if opts.fail_open:
        raise UsageError("--fail-open is for stdio servers", hint="drop --fail-open with --http-upstream")
    if opts.redact or opts.redact_keys or opts.redact_patterns:
        raise UsageError(
            "record --redact does not redact HTTP sessions yet",
            hint="record, then share the copy `mcptape redact FILE` writes (docs/http.md)",
        )
    if opts.http_sink or opts.http_cassette or opts.stubs:
        raise UsageError(
            "--http-sink, --http-cassette and --stub are for stdio servers",
            hint="record an HTTP server's own calls with the stdio options on a stdio build of it",
        )


def _serve(
    opts: RecordOptions,
    upstream: Upstream,
    server: Server | None,
    proxy: ReverseProxy,
    spool: Spool,
    path: str | Path,
    stop: threading.Event,
    received: list[int],
) -> tuple[ExitStatus | None, str | None]:
    """Start the server (if any) and the proxy once it answers, record until stopped, then end in
    order: the server first (the streams it closes are recorded whole), then the proxy. Returns the
    server's exit status and why the recording could not start (None: it did)."""
    status: ExitStatus | None = None
    if server is not None:
        server.start(on_exit=stop.set)
    failed = wait_for(upstream, server, stop) if server is not None else None
    if failed is None:
        proxy.start()
        if not opts.quiet:
            say(f"mcptape: recording to {path}\n")
        say(f"mcptape: listening on {proxy.url} (forwarding to {upstream.url})\n")
        keep_buffers_in_heap()  # (once listening: ctypes costs ms) reads' buffers kept: docs/http.md
        while not stop.wait(0.5):
            pass
    elif failed != "interrupted":
        say(f"mcptape: {failed}\n")
        spool.fields(spool.now(), "note", msg=failed)
    if server is not None:
        status = server.stop(received[0] if received else None)
    proxy.stop(grace=1.0)
    spool.fields(spool.now(), "eof", of=HTTP_IN)  # the proxy is closed: no client byte comes after
    if status is not None:
        spool.fields(spool.now(), "exit", code=status.code, signal=status.signal)
    return status, failed


MAX_SAID = 300  # bytes of the server's last stderr line said in an error


class QuietServer(Server):
    """The server a replay started, its stdout, stderr and executor tap recorded and not passed on:
    mcptape's stdout is the replay's report."""

    def __init__(self, child: Child, spool: Spool, lifeline: Lifeline | None, timeout: float) -> None:
        super().__init__(child, spool, lifeline, timeout)
        self.pumps = [
            Pump(ch, src, None, spool, on_eof=self._eof(ch), close_src=True)
            for ch, src in ((STDOUT, child.stdout), ("err", child.stderr), ("exec", child.tap))
        ]

    def end_as_recorded(self, signum: int | None, grace: float) -> ExitStatus:
        """Send the signal the recording ended with and give the server `grace` seconds to die of it
        (a busy machine makes a graceful HTTP shutdown slow), then the shutdown order."""
        if signum is not None:
            self.signal(signum)
            self.exited.wait(grace)
        return self.stop(None)


def last_stderr_line(path: Path) -> str:
    """The last non-blank line the server wrote on its stderr (recorded in the new session)."""
    try:
        err = b"".join(e.data for e in open_transcript(path).events() if e.ch == "err")
    except MCPTapeError:
        return ""
    lines = [line for line in err.splitlines() if line.strip()]
    return lines[-1][:MAX_SAID].decode("utf-8", "replace").strip() if lines else ""

"""`mcptape record`: the tee a user puts in front of a real server in an MCP client's config.

Writes nothing of its own to stdout. The order matters for start-up time: resolve and open the
output (so an unwritable path fails before the server starts), spawn the server, and only then
import the encoder and start the pumps.
"""

from __future__ import annotations

import os
import signal
import sys

from mcptape.recorder.lifeline import watch
from mcptape.recorder.options import RecordOptions
from mcptape.recorder.paths import open_recording
from mcptape.recorder.spawn import enlarge_pipe, spawn

TYPE_CHECKING = False  # typing costs ~4 ms before the spawn
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from mcptape.recorder.lifeline import Lifeline
    from mcptape.recorder.outbound.sideeffects import DeferredSink, HttpFactory, SideEffects
    from mcptape.recorder.session import ExitStatus
    from mcptape.recorder.spawn import Child
    from mcptape.recorder.spool import Spool
    from mcptape.transcript.writer import TranscriptWriter

    # opens the transcript's writer: (fd, clock start, server command, server environment) -> writer
    OpenWriter = Callable[[int, float, Sequence[str], Mapping[str, str]], TranscriptWriter]

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def fill_closed_stdio() -> None:
    """Put /dev/null on a closed fd 0, 1 or 2: else the transcript or a pipe would get that number,
    and the server's stdout or stderr would be written raw into the transcript."""
    for std in (0, 1, 2):
        try:
            os.fstat(std)
        except OSError:
            null = os.open(os.devnull, os.O_RDONLY if std == 0 else os.O_WRONLY)
            if null != std:
                os.dup2(null, std)
                os.close(null)
    if sys.stderr is None:  # Python found fd 2 closed at start-up
        sys.stderr = open(2, "w", errors="backslashreplace", closefd=False)  # noqa: SIM115 - lives as long as the process


def say(line: str) -> None:
    """Write one line of mcptape's own on stderr, unbuffered; a client that closed its end of
    stderr (EPIPE) loses the line, not the session."""
    try:
        os.write(2, line.encode("utf-8", "backslashreplace"))
    except OSError:
        pass


def is_stdout(fd: int) -> bool:
    """`fd` is the pipe, socket or file that fd 1 is (`-o /dev/stdout`); devices such as /dev/null
    or a terminal do not carry the protocol to a client."""
    import stat

    try:
        ours, out = os.fstat(fd), os.fstat(1)
    except OSError:
        return False
    if stat.S_ISCHR(out.st_mode) or stat.S_ISBLK(out.st_mode):
        return False
    return (ours.st_dev, ours.st_ino) == (out.st_dev, out.st_ino)


def cwd() -> str:
    """The header's working directory: `$PWD` when it was deleted (getcwd fails; the server runs)."""
    try:
        return os.getcwd()
    except OSError:
        return os.environ.get("PWD", "")


def _cassette(opts: RecordOptions) -> HttpFactory:
    """The recording proxy's factory (`--http-cassette`); UsageError for a bad option or CA file."""
    import ssl

    from mcptape.errors import UsageError

    if opts.http_sink:
        raise UsageError(
            "--http-sink and --http-cassette both take the server's HTTP",
            hint="--http-sink records requests and sends none; "
            "--http-cassette sends them and records the answers",
        )
    from mcptape.recorder.outbound.cassette import Upstream

    try:
        return Upstream(opts.http_cassette_ca).listener
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(
            f"--http-cassette-ca: cannot load {' '.join(opts.http_cassette_ca)}: {exc.strerror or exc}",
            hint="give a CA certificate file in PEM form",
        ) from None


def _open_transcript(opts: RecordOptions) -> tuple[str, int]:
    """Open the transcript: `-o FILE`, or a new file named by `--name` (default: the server's slug,
    the time, a unique suffix) in `-o DIR/` or $MCPTAPE_DIR, made when missing. When it cannot be
    written, `--fail-open` runs the server unrecorded (this process becomes it) after one line on
    stderr; by default the error stands (exit 2)."""
    from mcptape.errors import OutputError, UsageError

    if opts.name is not None:
        from mcptape.recorder.naming import TemplateError, check_template

        try:
            check_template(opts.name)
        except TemplateError as exc:
            raise UsageError(str(exc), hint="e.g. --name '{server}-{time}-{unique}.jsonl'") from None
        given = opts.output
        if given is not None and not (
            given.endswith(("/", os.sep)) or os.path.isdir(os.path.expanduser(given))
        ):
            raise UsageError("--name names a new file in a directory", hint="give -o DIR/ (or no -o)")
    try:
        # a default name says which server, and never collides
        return open_recording(opts.output, overwrite=opts.overwrite, command=opts.command, template=opts.name)
    except OutputError as exc:
        if not opts.fail_open:
            raise
        say(f"mcptape: not recording ({exc.message}); running the server unrecorded (--fail-open)\n")
    _run_unrecorded(opts.command)
    raise AssertionError("unreachable: exec returned")


def _run_unrecorded(command: list[str]) -> None:
    """Become the server (exec): its stdio, signals and exit code are the client's, as without mcptape."""
    from mcptape.errors import SpawnError

    try:
        os.execvp(command[0], command)
    except FileNotFoundError:
        raise SpawnError(f"cannot start {command[0]!r}: command not found", hint="check PATH") from None
    except OSError as exc:
        raise SpawnError(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None


def record(opts: RecordOptions, *, writer_opener: Callable[[], OpenWriter] | None = None) -> int:
    """Record `opts.command` with this process's stdio as the client; return the exit code.

    `writer_opener`, when given, is asked before the spawn (so a bad rule fails first) for the function
    that opens the transcript's writer in place of a plain `TranscriptWriter`: `record --redact`
    passes the share package's redacting writer (wired in `mcptape.commands.recording`).
    """
    import time

    fill_closed_stdio()
    if signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # else the kernel reaps the server: no exit code
    t0 = time.monotonic()
    http, open_writer, path, fd = _before_the_spawn(opts, writer_opener)
    env = dict(os.environ)
    for std in (0, 1, 2):
        enlarge_pipe(std)
    # SIGINT/TERM/HUP stay pending until the handlers that forward them exist (one arriving in
    # between killed mcptape and left the server running); threads started meanwhile inherit this.
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED_SIGNALS)
    child, effects, late, env = _spawn(opts, env, http, t0, unblocked, path, fd)
    # Ends the server's group if this process dies before reaping it (even by SIGKILL).
    lifeline = watch(child.pid, opts.shutdown_timeout)

    from mcptape.recorder.spool import Spool
    from mcptape.transcript.writer import TranscriptWriter, new_header

    if open_writer is not None:  # record --redact: each line is redacted before it reaches the file
        writer: TranscriptWriter = open_writer(fd, t0, opts.command, env)
    else:
        writer = TranscriptWriter(fd, clock_start=t0)
    try:
        writer.header(new_header(opts.command, cwd(), **_header_extra(child.pid, effects, http)))
        spool = Spool(writer)  # encoding and file writes leave the pumps' threads
        if late is not None:
            late.attach(spool)  # http/exec events join the pumps' records, in order
        status = _relay(opts, spool, env, child, lifeline, unblocked, path)
        if effects is not None:
            effects.stop()  # before the spool closes: what the listeners already got is recorded
        spool.close()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        if effects is not None:
            effects.stop()
    writer.close()
    if writer.failed is not None:
        say(f"mcptape: the transcript {path} stopped being written: {writer.failed}\n")
    return status.shell_code


def _relay(
    opts: RecordOptions,
    spool: Spool,
    env: dict[str, str],
    child: Child,
    lifeline: Lifeline | None,
    unblocked: set[int | signal.Signals],
    path: str,
) -> ExitStatus:
    """Forward the signals to the server, unblock them, relay until the server exits and the pumps
    drained; the server's exit status."""
    from mcptape.recorder.session import Recording

    session = Recording(
        opts.command, spool, env=env, shutdown_timeout=opts.shutdown_timeout, child=child, lifeline=lifeline
    )
    for signum in FORWARDED_SIGNALS:
        if signal.getsignal(signum) != signal.SIG_IGN:  # ignored (nohup): stays ignored
            signal.signal(signum, lambda n, _f: session.send_signal(n))
    signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)  # a pending signal is forwarded now
    if not opts.quiet:
        say(f"mcptape: recording to {path}\n")
    session.start()
    from mcptape.recorder.memory import keep_buffers_in_heap

    keep_buffers_in_heap()  # once the pumps run: ctypes costs a few ms nobody waits for
    return session.wait()


def _before_the_spawn(
    opts: RecordOptions, writer_opener: Callable[[], OpenWriter] | None
) -> tuple[HttpFactory | None, OpenWriter | None, str, int]:
    """Everything that can fail before the server starts: the command, the stub names, the
    cassette's CA, the redaction rules, the transcript opened (never this process's stdout)."""
    from mcptape.errors import UsageError

    if not opts.command:
        raise UsageError("no server command given", hint="usage: mcptape record -o FILE -- CMD [ARGS...]")
    if opts.stubs:
        from mcptape.recorder.outbound.stubs import check_name

        for name in opts.stubs:
            check_name(name)
    http = _cassette(opts) if opts.http_cassette else None
    open_writer = writer_opener() if writer_opener is not None else None
    path, fd = _open_transcript(opts)
    if is_stdout(fd):
        os.close(fd)
        raise UsageError(
            f"-o {path} is this process's stdout: the transcript would be mixed into the protocol",
            hint="write the transcript to a file",
        )
    return http, open_writer, path, fd


def _spawn(
    opts: RecordOptions,
    env: dict[str, str],
    http: HttpFactory | None,
    t0: float,
    unblocked: set[int | signal.Signals],
    path: str,
    fd: int,
) -> tuple[Child, SideEffects | None, DeferredSink | None, dict[str, str]]:
    """Start the side-effect listeners asked for and spawn the server with their environment.
    On failure: the listeners stopped, the transcript this run created removed, signals unblocked."""
    effects: SideEffects | None = None
    late: DeferredSink | None = None
    try:
        if opts.http_sink or opts.stubs or http is not None:
            # Imported only when asked for: the plain record path stays as fast as before.
            from mcptape.recorder.outbound.sideeffects import DeferredSink, side_effects

            late = DeferredSink(t0)
            effects = side_effects(late, http_sink=opts.http_sink, stubs=opts.stubs, http=http)
            env = effects.child_env(env)
        return spawn(opts.command, env, sigmask=unblocked), effects, late, env
    except BaseException:
        if late is not None and effects is not None:
            late.release()
            effects.stop()
        os.close(fd)
        if not opts.overwrite:  # O_EXCL: this run created the file. With --overwrite the path
            try:  # existed (a symlink, a device like /dev/null): never unlink it
                os.unlink(path)
            except OSError:
                pass
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        raise


def _header_extra(pid: int, effects: SideEffects | None, http: HttpFactory | None) -> dict[str, object]:
    """The header's fields beyond the command: the server's pid, its environment's names (never
    values), the side-effect listeners' addresses."""
    from mcptape.transcript.envnames import HEADER_KEY, describe

    extra: dict[str, object] = {"pid": pid, HEADER_KEY: describe(os.environ)}  # names only
    if effects is not None:
        listeners: dict[str, object] = {
            "http_sink": effects.http.url if effects.http is not None and http is None else None,
            "stubs": effects.stub_names,
        }
        if http is not None and effects.http is not None:
            listeners["http_cassette"] = effects.http.url
        extra["side_effects"] = listeners
    return extra

"""`mcptape record`: the tee a user puts in front of a real server in an MCP client's config.

Writes nothing of its own to stdout. The order matters for start-up time: resolve and open the
output (so an unwritable path fails before the server starts), spawn the server, and only then
import the encoder and start the pumps.
"""

from __future__ import annotations

import os
import signal
import sys

from mcptape.recorder.options import RecordOptions
from mcptape.recorder.paths import resolve_output
from mcptape.recorder.spawn import enlarge_pipe, spawn

FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def record(opts: RecordOptions) -> int:
    """Record `opts.command` with this process's stdio as the client; return the exit code."""
    import time

    from mcptape.errors import UsageError

    if not opts.command:
        raise UsageError("no server command given", hint="usage: mcptape record -o FILE -- CMD [ARGS...]")
    t0 = time.monotonic()
    path = resolve_output(opts.output)
    from mcptape.transcript.writer import open_output

    fd = open_output(path, overwrite=opts.overwrite)
    env = dict(os.environ)
    for std in (0, 1, 2):
        enlarge_pipe(std)
    try:
        child = spawn(opts.command, env)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(path)
        except OSError:
            pass
        raise

    from mcptape.recorder.session import Recording
    from mcptape.transcript.writer import TranscriptWriter, new_header

    writer = TranscriptWriter(fd, clock_start=t0)
    writer.header(new_header(opts.command, os.getcwd(), pid=child.pid))
    session = Recording(opts.command, writer, env=env, shutdown_timeout=opts.shutdown_timeout, child=child)
    for signum in FORWARDED_SIGNALS:
        signal.signal(signum, lambda n, _f: session.send_signal(n))
    if not opts.quiet:
        sys.stderr.write(f"mcptape: recording to {path}\n")
        sys.stderr.flush()
    session.start()
    status = session.wait()
    writer.close()
    if writer.failed is not None:
        sys.stderr.write(f"mcptape: the transcript {path} stopped being written: {writer.failed}\n")
    return status.shell_code

"""The fork server: `python tests/forkserver/server.py SOCKET` (see tests/forkserver/__init__.py).

It imports the MCP SDK once, then for each connection forks a manager, which forks the child that
runs the script with the waiter's descriptors, and reports the child's wait status to the waiter
(or kills the child when the waiter is gone). The child leaves the accept loop and runs the script
at this module's top level, so it ends as `python script.py` would: its exceptions, exit code,
atexit handlers and threads are the interpreter's business, as usual.
"""

from __future__ import annotations

import io
import json
import os
import selectors
import signal
import socket
import sys
from typing import Any

MAX_FDS = 250
# The interpreter's own path entries (stdlib, site-packages), without this script's folder and
# whatever PYTHONPATH this server was started with: a child puts its own in front.
_STARTED_WITH = {entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry}
BASE_PATH = [entry for entry in sys.path[1:] if entry not in _STARTED_WITH]


def preload() -> None:
    """Import what the suite's SDK servers and clients import (each is optional)."""
    for name in (
        "mcp",
        "mcp.server.mcpserver",
        "mcp.server.lowlevel",
        "mcp.server.stdio",
        "mcp.client.stdio",
        "mcp.client.streamable_http",
        "mcp.server.streamable_http",
        "mcp.server.streamable_http_manager",
        "uvicorn",
        "starlette.applications",
        "mcp_server_time",
        "mcp_server_time.server",
    ):
        try:
            __import__(name)
        except Exception:
            pass


def receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """The waiter's job and the descriptors it sent."""
    head, fds, _flags, _addr = socket.recv_fds(conn, 8, MAX_FDS)
    while len(head) < 8:
        more = conn.recv(8 - len(head))
        if not more:
            raise EOFError
        head += more
    size = int.from_bytes(head, "big")
    payload = b""
    while len(payload) < size:
        more = conn.recv(min(1 << 20, size - len(payload)))
        if not more:
            raise EOFError
        payload += more
    return json.loads(payload), fds


def become(job: dict[str, Any], received: list[int]) -> None:
    """In the child: take the waiter's descriptors at their numbers, its cwd, env, argv and stdio."""
    os.setsid()
    targets: list[int] = job["fds"]
    high = [_dup_high(fd) for fd in received]
    for fd in received:
        os.close(fd)
    keep = set(targets)
    for fd in range(3, 1000):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    for src, dst in zip(high, targets, strict=True):
        os.dup2(src, dst)
        os.close(src)
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    sys.argv = list(job["argv"])
    extra = [entry for entry in job["env"].get("PYTHONPATH", "").split(os.pathsep) if entry]
    sys.path[:] = [os.path.dirname(job["script"]), *extra, *BASE_PATH]
    unbuffered = bool(job["unbuffered"])
    encoding = sys.stdout.encoding
    streams = {
        "stdin": io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=encoding),
        "stdout": _writer(1, encoding, "strict", unbuffered, os.isatty(1)),
        "stderr": _writer(2, encoding, "backslashreplace", unbuffered, True),
    }
    for name, stream in streams.items():
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    for name in ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGCHLD"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _dup_high(fd: int) -> int:
    import fcntl

    return fcntl.fcntl(fd, fcntl.F_DUPFD, 1000)


def _writer(fd: int, encoding: str, errors: str, unbuffered: bool, line: bool) -> io.TextIOWrapper:
    raw = io.FileIO(fd, "w", closefd=False)
    buffer: Any = raw if unbuffered else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        buffer, encoding=encoding, errors=errors, line_buffering=line, write_through=unbuffered
    )


def manage(conn: socket.socket, listener: socket.socket) -> dict[str, Any] | None:
    """In the manager: fork the child (which returns its job), then report how it ended."""
    try:
        job, received = receive(conn)
    except (OSError, EOFError, ValueError):
        os._exit(0)
    pid = os.fork()
    if pid == 0:
        listener.close()
        conn.close()
        become(job, received)
        return job
    for fd in received:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    sel = selectors.DefaultSelector()
    sel.register(conn, selectors.EVENT_READ)
    sel.register(pidfd, selectors.EVENT_READ)
    pending = b""
    while True:
        for key, _ in sel.select():
            if key.fileobj == pidfd:
                _, status = os.waitpid(pid, 0)
                try:
                    conn.sendall(f"status {status}\n".encode())
                except OSError:
                    pass
                os._exit(0)
            try:
                got = conn.recv(256)
            except OSError:
                got = b""
            if not got:  # the waiter is gone: so is its child
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os._exit(0)
            pending += got
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                try:
                    os.kill(pid, int(line.split()[1]))
                except (OSError, ValueError, IndexError):
                    pass


def serve(path: str) -> dict[str, Any]:
    """Accept waiters until killed; returns (in a child only) the job the child is to run."""
    preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # managers are reaped by the kernel
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(128)
    os.rename(path + ".tmp", path)  # ready: a waiter that finds the socket finds it listening
    while True:
        conn, _ = listener.accept()
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            job = manage(conn, listener)
            if job is not None:
                return job
        conn.close()


if __name__ == "__main__":
    _job = serve(sys.argv[1])
    del _job
    import runpy

    runpy.run_path(sys.argv[0], run_name="__main__")

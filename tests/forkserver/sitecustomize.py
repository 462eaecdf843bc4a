"""Run at the start of every Python process of the suite: hand an SDK script to the fork server.

See tests/forkserver/__init__.py. Nothing here runs unless MCPTAPE_TEST_FORKSERVER names the fork
server's socket and this process is exactly `<the suite's python> [-u] SCRIPT ARGS...` where SCRIPT
imports the MCP SDK; anything else (or any failure before the hand-over) runs the process as usual.
"""

from __future__ import annotations

import os
import sys

SOCKET_ENV = "MCPTAPE_TEST_FORKSERVER"
PYTHON_ENV = "MCPTAPE_TEST_FORKSERVER_PYTHON"
FORWARDED = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")


def _sdk_script() -> str | None:
    """The script this process runs, when it is one the fork server can run for it."""
    if sys.executable != os.environ.get(PYTHON_ENV) or not sys.argv or not sys.argv[0]:
        return None
    options = sys.orig_argv[1 : len(sys.orig_argv) - len(sys.argv)]
    if options not in ([], ["-u"]) or sys.argv[0] in ("-c", "-m", "-"):
        return None
    if sys.flags.dev_mode or sys.warnoptions or sys._xoptions or sys.flags.optimize:
        return None
    try:
        with open(sys.argv[0], "rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return None
    if b"mcp" not in head:
        return None
    for line in head.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in (b"from", b"import"):
            module = words[1].split(b".")[0].rstrip(b",")
            if module in (b"mcp", b"mcp_server_time"):
                return sys.argv[0]
    return None


def _hand_over(path: str, script: str) -> None:
    """Give this process's descriptors and command to the fork server, then wait as its child's
    stand-in and end as it ends (never returns once the hand-over is done)."""
    import json
    import signal
    import socket

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        return
    fds = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd == sock.fileno():
            continue
        try:
            os.fstat(fd)
        except OSError:
            continue
        fds.append(fd)
    job = {
        "argv": sys.argv,
        "script": os.path.abspath(script),
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "fds": fds,
        "unbuffered": bool(getattr(sys.stdout, "write_through", False)),  # -u, PYTHONUNBUFFERED
    }
    payload = json.dumps(job).encode()
    try:
        socket.send_fds(sock, [len(payload).to_bytes(8, "big")], fds)
        sock.sendall(payload)
    except OSError:
        sock.close()
        return
    # From here on the child owns the descriptors: this process only waits and forwards signals.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in fds:
        if fd != null:
            os.dup2(null, fd) if fd <= 2 else os.close(fd)

    def forward(signum: int, _frame: object) -> None:
        try:
            sock.sendall(f"signal {signum}\n".encode())
        except OSError:
            pass

    for name in FORWARDED:
        signal.signal(getattr(signal, name), forward)
    reply = b""
    while not reply.endswith(b"\n"):
        try:
            got = sock.recv(64)
        except InterruptedError:
            continue
        if not got:
            os._exit(70)  # the fork server went away: no status to copy
        reply += got
    status = int(reply.split()[1])
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status))


_path = os.environ.get(SOCKET_ENV)
if _path:
    _script = _sdk_script()
    if _script is not None:
        _hand_over(_path, _script)

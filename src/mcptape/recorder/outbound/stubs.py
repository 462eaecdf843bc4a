"""Recording stubs for commands (`--stub ssh`): a shim first on the child's PATH that never runs them.

Each stubbed NAME gets an executable `NAME` in a private temporary directory that mcptape puts
first on the server's PATH. When anything in the server's process tree runs `NAME ARGS...`, the
shim sends one datagram to a unix socket in that directory, waits until the recorder has taken it
(an acknowledgement, at most `ACK_WAIT` seconds), writes one line to its stderr and exits 255
without running anything. The recorder turns each datagram into one `exec` event:

    {"action": "exec", "source": "stub", "stub": "ssh", "argv": ["ssh", "host", "deploy"], "cwd": "/srv/app",
     "outcome": "failed"}

`outcome` is "failed": the command was not run (the caller sees exit 255), so an error the server
answers for that request reports the failed action (see the check core's attribution).

The wait is what puts the `exec` line where it belongs: the server learns the command ended (and
can answer the request that ran it) only after its line was recorded, so the line always comes
before that answer, in time and in the file.

The server's children usually do not inherit the tap fd (Python's subprocess closes fds), so the
shim reports over a socket whose path is written into the shim itself: it needs nothing from the
environment except PATH.
"""

from __future__ import annotations

import os
import shlex
import socket
import sys
import threading
from collections.abc import Mapping, Sequence

from mcptape.errors import UsageError
from mcptape.recorder.sinks import Sink

CHANNEL = "exec"
EXIT_CODE = 255
ACK_WAIT = 2.0  # seconds a stub waits for the recorder to take its line (bounded: a stuck recorder)
ACK = b"ok"
_DGRAM_MAX = 1 << 20
_SUN_PATH_MAX = 104  # bytes in a unix socket path, with its NUL (104 on macOS, 108 on Linux)

# Run by the shim with `python -I -S`: stdlib only, and it must start fast.
REPORTER = r'''"""mcptape stub reporter: record this invocation, run nothing, exit 255."""
import errno, json, os, socket, sys

SOCKET = {socket_path!r}


def text(s):
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def reply_address(sock):
    """An address of this socket's own, for the recorder's acknowledgement (False: none)."""
    try:
        sock.bind("")  # Linux: an abstract address of its own
        return True
    except OSError:
        pass
    if SOCKET.startswith("\0"):
        return False
    path = os.path.join(os.path.dirname(SOCKET), "r%d" % os.getpid())
    try:
        sock.bind(path)
    except OSError:
        return False
    return path


def main():
    name, args = sys.argv[1], sys.argv[2:]
    argv = [name, *args]
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    record = {{"action": "exec", "source": "stub", "stub": name, "argv": [text(a) for a in argv], "cwd": cwd,
              "outcome": "failed"}}
    raw = [os.fsencode(a) for a in argv]
    if any(text(a).encode("utf-8") != r for a, r in zip(argv, raw)):
        import base64
        record["argv_b64"] = [base64.b64encode(r).decode("ascii") for r in raw]
    sent = False
    keep = len(argv)
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        reply = reply_address(sock)
        while not sent:
            try:
                line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
                sock.sendto(line.encode("utf-8"), SOCKET)
                sent = True
            except OSError as exc:
                if exc.errno != errno.EMSGSIZE or keep <= 1:  # the argv is too large for a datagram
                    break
                keep //= 2
                record["argv"] = record["argv"][:keep]
                record.pop("argv_b64", None)
                record["truncated"] = True
        if sent and reply:  # exit only once the recorder has taken the line
            sock.settimeout({ack_wait})
            try:
                sock.recv(16)
            except OSError:
                pass
        if isinstance(reply, str):
            try:
                os.unlink(reply)
            except OSError:
                pass
    note = "recorded" if sent else "NOT recorded: mcptape is no longer listening"
    message = f"mcptape: {{name}} is stubbed (--stub {{name}}): not run, exit {exit_code} ({{note}})\n"
    sys.stderr.write(message)
    sys.exit({exit_code})


main()
'''

SHIM = """#!/bin/sh
exec {python} -I -S {reporter} {name} "$@"
"""


def check_name(name: str) -> None:
    """A stub name is a bare command name: no slash, not empty, not `.` or `..`."""
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise UsageError(
            f"--stub {name!r} is not a command name",
            hint="give the bare name a server runs through PATH, e.g. --stub ssh",
        )


class Stubs:
    """The shims for `names` and the socket they report to: `start()`, `env(...)`, `stop()`."""

    def __init__(self, sink: Sink, names: Sequence[str], python: str | None = None) -> None:
        for name in names:
            check_name(name)
        self.sink = sink
        self.names = list(dict.fromkeys(names))
        self.python = python or sys.executable or "python3"
        self.calls = 0  # invocations recorded
        self.dir = ""
        self.bin_dir = ""
        self.socket_path = ""
        self._sock: socket.socket | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._receive, name="mcptape-stubs", daemon=True)

    def start(self) -> Stubs:
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="mcptape-stubs-")
        self.bin_dir = os.path.join(self.dir, "bin")
        os.mkdir(self.bin_dir, 0o700)
        self.socket_path = os.path.join(self.dir, "s")
        if len(os.fsencode(self.socket_path)) >= _SUN_PATH_MAX and sys.platform == "linux":
            # A long $TMPDIR: use Linux's abstract socket namespace (a name, no file).
            self.socket_path = "\0" + os.path.basename(self.dir)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(self.socket_path)
        reporter = os.path.join(self.dir, "report.py")
        _write(
            reporter,
            REPORTER.format(socket_path=self.socket_path, exit_code=EXIT_CODE, ack_wait=ACK_WAIT),
            0o600,
        )
        for name in self.names:
            shim = SHIM.format(
                python=shlex.quote(self.python), reporter=shlex.quote(reporter), name=shlex.quote(name)
            )
            _write(os.path.join(self.bin_dir, name), shim, 0o700)
        self._thread.start()
        return self

    def env(self, base: Mapping[str, str]) -> dict[str, str]:
        """`PATH` with the stub directory first (the rest of `base` is not changed)."""
        path = base.get("PATH") or os.defpath
        return {"PATH": self.bin_dir + os.pathsep + path}

    def stop(self, grace: float = 2.0) -> None:
        """Record the invocations already sent, then remove the shims and the socket."""
        if self._stopping.is_set() or self._sock is None:
            return
        self._stopping.set()
        try:  # wake the blocked recv: everything queued before this datagram is recorded first
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as wake:
                wake.sendto(b"", self.socket_path)
        except OSError:
            pass
        self._thread.join(grace)
        self._sock.close()
        import shutil

        shutil.rmtree(self.dir, ignore_errors=True)

    def _receive(self) -> None:
        assert self._sock is not None
        buf = bytearray(_DGRAM_MAX)
        view = memoryview(buf)
        while True:
            try:
                n, sender = self._sock.recvfrom_into(buf)
            except OSError:
                return
            t = self.sink.now()
            if n == 0 and self._stopping.is_set():
                return
            data = bytes(view[:n])
            if not data.endswith(b"\n"):
                data += b"\n"
            self.calls += 1
            self.sink.chunk(t, CHANNEL, data)
            if sender:  # the stub waits for this before it exits (and its caller answers)
                try:
                    self._sock.sendto(ACK, sender)
                except OSError:
                    pass


def _write(path: str, text: str, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)

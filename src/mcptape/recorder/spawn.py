"""Start the server process on fresh pipes, with the executor tap fd it inherits."""

from __future__ import annotations

import os
import signal

from mcptape.errors import SpawnError

TYPE_CHECKING = False  # typing stays unimported on the record path
if TYPE_CHECKING:
    from typing import Any

EXEC_FD_VAR = "MCPTAPE_EXEC_FD"
_F_SETPIPE_SZ = 1031  # Linux: fcntl command to resize a pipe
PIPE_SIZE = 1 << 20
_PYTHON_IGNORED = (signal.SIGPIPE, signal.SIGXFSZ)  # Python ignores these itself: the child must not
_INHERITED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # default again, unless ignored (nohup)


def enlarge_pipe(fd: int, size: int = PIPE_SIZE) -> None:
    """Grow a pipe's kernel buffer (the largest single throughput gain); ignored where refused."""
    try:
        import fcntl

        fcntl.fcntl(fd, _F_SETPIPE_SZ, size)
    except (OSError, ImportError):
        pass


class Child:
    """A running server: its pid and the parent's ends of its pipes (a plain class: no dataclasses
    import before the spawn)."""

    __slots__ = ("pid", "stderr", "stdin", "stdout", "tap")

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int, tap: int) -> None:
        self.pid = pid
        self.stdin = stdin  # write end: the server's stdin
        self.stdout = stdout  # read end: the server's stdout
        self.stderr = stderr  # read end: the server's stderr
        self.tap = tap  # read end: the executor tap


def spawn(
    command: list[str],
    env: dict[str, str],
    cwd: str | None = None,
    *,
    sigmask: set[int | signal.Signals] | None = None,
) -> Child:
    """posix_spawn `command` with stdin/stdout/stderr on pipes and `MCPTAPE_EXEC_FD` set.

    The child runs in its own process group, so that a signal sent to mcptape's group reaches the
    server once (forwarded by mcptape), not twice. `sigmask`: the child's signal mask, when the
    caller blocks signals around the spawn (without it the child inherits the caller's mask).
    """
    if not command or not command[0]:
        raise SpawnError("the server command's name is empty", hint="give the server's executable after --")
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    tap_r, tap_w = os.pipe()
    for fd in (in_w, out_w, err_w, tap_w):
        enlarge_pipe(fd)
    child_env = dict(env)
    child_env[EXEC_FD_VAR] = str(tap_w)
    actions = [
        (os.POSIX_SPAWN_DUP2, in_r, 0),
        (os.POSIX_SPAWN_DUP2, out_w, 1),
        (os.POSIX_SPAWN_DUP2, err_w, 2),
        (os.POSIX_SPAWN_DUP2, tap_w, tap_w),  # same fd: clears close-on-exec, so it is inherited
    ]
    mask: dict[str, Any] = {} if sigmask is None else {"setsigmask": sigmask}
    try:
        if cwd is not None:
            pid = _spawn_in(cwd, command, child_env, in_r, out_w, err_w, tap_w)
        else:
            pid = os.posix_spawnp(
                command[0],
                command,
                child_env,
                file_actions=actions,
                setpgroup=0,
                setsigdef=_PYTHON_IGNORED
                + tuple(s for s in _INHERITED if signal.getsignal(s) != signal.SIG_IGN),
                **mask,
            )
    except FileNotFoundError:
        _close(in_r, in_w, out_r, out_w, err_r, err_w, tap_r, tap_w)
        if cwd is not None and not os.path.isdir(cwd):
            raise SpawnError(f"cannot start {command[0]!r}: working directory {cwd} does not exist") from None
        raise SpawnError(f"cannot start {command[0]!r}: command not found", hint="check PATH") from None
    except PermissionError:
        _close(in_r, in_w, out_r, out_w, err_r, err_w, tap_r, tap_w)
        raise SpawnError(f"cannot start {command[0]!r}: permission denied") from None
    except OSError as exc:
        _close(in_r, in_w, out_r, out_w, err_r, err_w, tap_r, tap_w)
        raise SpawnError(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
    _close(in_r, out_w, err_w, tap_w)
    return Child(pid=pid, stdin=in_w, stdout=out_r, stderr=err_r, tap=tap_r)


def _spawn_in(
    cwd: str, command: list[str], env: dict[str, str], stdin: int, stdout: int, stderr: int, tap: int
) -> int:
    """posix_spawn has no chdir action in Python 3.11: subprocess does it (probe and replay only)."""
    import subprocess

    proc = subprocess.Popen(
        command, stdin=stdin, stdout=stdout, stderr=stderr, pass_fds=(tap,), cwd=cwd, env=env, process_group=0
    )
    proc.returncode = 0  # mcptape reaps the pid itself; keep Popen from reaping it too
    return proc.pid


def _close(*fds: int) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass

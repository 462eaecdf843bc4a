"""A lifeline: the server's process group is ended when the process that recorded it dies.

posix_spawn cannot set PR_SET_PDEATHSIG, and a server that neither reads its stdin nor writes
never learns that a SIGKILLed recorder is gone. So, right after the spawn, the recorder starts a
watchdog: a few lines of /bin/sh (~0.6 ms to start, against ~16 ms for a Python interpreter),
blocked reading a pipe whose only write end the recorder holds (close-on-exec: the server never
gets it). When the recorder has reaped the server it writes one line, and the watchdog exits
without touching anything. If the pipe ends without that line, the recorder died, for whatever
reason: the server's stdin was closed with it, so the watchdog goes on with the recorder's own
shutdown order — wait `shutdown_timeout` for the server to exit, SIGTERM its group, wait again,
SIGKILL the group.

The watchdog joins the server's process group: while it lives, the group's number (the server's
pid) cannot be given to another process, so it never signals a stranger, and the final SIGKILL
ends the watchdog too. It ignores the signals a group commonly gets (a SIGINT or SIGTERM forwarded
by the recorder, a server's `kill 0`), has /dev/null on its stdout and stderr, and holds none of
the client's pipes nor the transcript. Without /bin/sh there is no lifeline, and recording goes on.
"""

from __future__ import annotations

import os
import signal

SHELL = "/bin/sh"
TICK = 0.1  # seconds between two looks at the server
DONE = b"done\n"
_REAP_WAIT = 1.0  # seconds disarm() waits for the watchdog to exit
# POSIX names only: a shell stops at one it does not know
# (TSTP/TTIN/TTOU: a stopped watchdog could not do its job.)
_IGNORED = ("HUP", "INT", "QUIT", "PIPE", "ALRM", "TERM", "USR1", "USR2", "TSTP", "TTIN", "TTOU")

# $1: the server's pid (= its process group), $2: the shutdown timeout in ticks.
# `running`: a zombie has exited too (the recorder's death left it to init, which may reap late).
# `wait_exit` fails once the server has exited, succeeds if it still runs after $2 ticks.
WATCHDOG = f"""trap '' {" ".join(_IGNORED)}
read -r line && exit 0  # a line: the recorder reaped the server. EOF: the recorder is gone
running() {{
  kill -0 "$1" || return 1
  read -r stat < "/proc/$1/stat" || return 0
  case "${{stat##*") "}}" in Z*) return 1 ;; esac
}}
wait_exit() {{
  i=0
  while running "$1"; do
    [ "$i" -ge "$2" ] && return 0
    sleep {TICK}
    i=$((i + 1))
  done
  return 1
}}
# `kill -SIG -PGID`: the one form dash, bash and busybox all take (busybox rejects `--`, dash
# `-s SIG -PGID`); its status is not chained on (busybox fails a kill it did perform).
wait_exit "$@" || exit 0
kill -TERM "-$1"
wait_exit "$@" || exit 0
kill -KILL "-$1"
exit 0
"""


class Lifeline:
    """The recorder's end of a running watchdog: `disarm()` once the server has been reaped."""

    __slots__ = ("_fd", "pid")

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid  # the watchdog's
        self._fd = fd  # write end of its pipe

    def disarm(self) -> None:
        """Tell the watchdog the server was reaped, and reap it (it exits at once). Idempotent."""
        fd, self._fd = self._fd, -1
        if fd < 0:
            return
        try:
            os.write(fd, DONE)
        except OSError:  # EPIPE: a SIGKILL sent to the server's group ended the watchdog too
            pass
        finally:
            os.close(fd)
        _reap(self.pid, _REAP_WAIT)


def watch(server_pid: int, shutdown_timeout: float) -> Lifeline | None:
    """Start a watchdog over the process group `server_pid` leads (a child of this process that
    was not reaped yet); None without /bin/sh, or with an infinite timeout (never signal)."""
    if not shutdown_timeout < float("inf"):  # inf or nan: the recorder itself never signals either
        return None
    ticks = int(min(1e9, shutdown_timeout / TICK + 0.999))  # rounded up
    read_end, write_end = os.pipe()  # both close-on-exec: no other child inherits them
    actions: list[tuple[int | str, ...]] = [
        (os.POSIX_SPAWN_DUP2, read_end, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    # fds this process inherited without close-on-exec (the server has them too): not the watchdog
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _open_fds() if fd > 2]
    try:
        pid = os.posix_spawn(
            SHELL,
            [SHELL, "-c", WATCHDOG, "mcptape-lifeline", str(server_pid), str(ticks)],
            # for sleep; never an empty entry (the working directory) when PATH is unset or empty
            {"PATH": ":".join(filter(None, (os.environ.get("PATH"), "/usr/bin:/bin"))), "LC_ALL": "C"},
            file_actions=actions,
            setpgroup=server_pid,
            # blocked until its traps are set (a shell keeps the mask it is given)
            setsigmask={signal.Signals[f"SIG{name}"] for name in _IGNORED},
        )
    except OSError:
        os.close(write_end)
        return None
    finally:
        os.close(read_end)
    return Lifeline(pid, write_end)


def _open_fds() -> list[int]:
    """This process's open fds (Linux); [] where /proc is not there."""
    try:
        return [int(name) for name in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return []


def _reap(pid: int, timeout: float) -> None:
    """Reap `pid` if it exits within `timeout`; else leave it (init reaps it after us)."""
    import time

    deadline = time.monotonic() + timeout
    delay = 0.0005
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done or time.monotonic() >= deadline:
            return
        time.sleep(delay)
        delay = min(delay * 2, 0.05)

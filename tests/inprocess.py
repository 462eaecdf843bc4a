"""`mcptape ARGS...` run inside the test's own process, for tests whose subject is a command's output
and exit code, not the process.

A real `mcptape` process costs 0.05 s of CPU to start (Python, click) and then imports what its
command needs (the check core, jsonschema: 0.1-0.2 s more), and the suite ran about 800 of them.
`run` calls the console script's own entry point (`mcptape.entry.main`, so `Error:` lines, exit
codes and the record fast path are the script's) under click's `CliRunner` isolation: stdin,
stdout and stderr are in-memory streams, the environment and the working directory are the ones
asked for, and all of it is put back afterwards. What a real process would show for an exception
that escapes (a traceback on stderr, exit 1) is what `run` gives.

Keep a real process (`subprocess.run([console_script(), ...])`) where the process is the subject:
stdout's purity on a real pipe, a closed or full stdio, signals, `isatty`, what a command imports,
a server or client started, or anything that runs past the command's return (threads, children).
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, overload

import click.formatting
from click.testing import CliRunner


@overload
def run(
    *args: str | Path,
    cwd: Path | None = ...,
    env: Mapping[str, str] | None = ...,
    stdin: bytes = ...,
    text: Literal[False] = ...,
) -> subprocess.CompletedProcess[bytes]: ...


@overload
def run(
    *args: str | Path,
    cwd: Path | None = ...,
    env: Mapping[str, str] | None = ...,
    stdin: bytes = ...,
    text: Literal[True],
) -> subprocess.CompletedProcess[str]: ...


def run(
    *args: str | Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes = b"",
    text: bool = False,
) -> subprocess.CompletedProcess[bytes] | subprocess.CompletedProcess[str]:
    """`mcptape ARGS...` in this process: its exit code, stdout and stderr, as
    `subprocess.run([console_script(), *args], capture_output=True, cwd=cwd, env=env, input=stdin)`
    gives them (`env`, when given, is the whole environment, as for subprocess)."""
    from mcptape.entry import main

    argv = [str(a) for a in args]
    overrides: dict[str, str | None] = {}
    if env is not None:
        overrides = {name: None for name in os.environ if name not in env}
        overrides |= {name: value for name, value in env.items() if os.environ.get(name) != value}
    here = os.getcwd()
    runner = CliRunner()
    with runner.isolation(input=stdin, env=overrides) as (out, err, _):
        click.formatting.FORCED_WIDTH = _help_width()
        try:
            if cwd is not None:
                os.chdir(cwd)
            main(argv)
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc)
        except Exception:  # a real process prints the traceback and exits 1
            traceback.print_exc(file=sys.stderr)
            code = 1
        finally:
            os.chdir(here)
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    if text:
        return subprocess.CompletedProcess(["mcptape", *argv], code, stdout.decode(), stderr.decode())
    return subprocess.CompletedProcess(["mcptape", *argv], code, stdout, stderr)


def _exit_code(exc: SystemExit) -> int:
    """The process's exit status for `sys.exit(code)`: None is 0, a message is printed and is 1."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def _help_width() -> int:
    """The width click gives help text in a process whose stdout is a pipe: $COLUMNS, else 80
    (shutil.get_terminal_size's order), clamped as click does (the isolation says 80)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    return max(min(columns if columns > 0 else 80, 80) - 2, 50)

"""The suite's fork server (tests/forkserver) runs an SDK script as `python script.py` would: the
same bytes on the same pipes and descriptors, the same exit code or signal, and it dies with its
waiter. The module starts a fork server of its own, so these hold whatever the run's is doing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

FORKSERVER = Path(__file__).resolve().parent / "forkserver"

SDK_SCRIPT = """\
import os, sys
preloaded = "mcp.server.mcpserver" in sys.modules
from mcp import types
line = sys.stdin.readline()
print(f"preloaded={preloaded} got={line.strip()} argv={sys.argv[1:]}", flush=True)
if len(sys.argv) > 2:
    os.write(int(sys.argv[2]), b"tap line\\n")
if sys.argv[1] == "wait":
    sys.stdin.readline()
sys.exit(int(sys.argv[1]) if sys.argv[1].isdigit() else 0)
"""


@pytest.fixture(scope="module")
def forkserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A fork server of this module's own; yields the environment that hands scripts to it."""
    path = str(tmp_path_factory.mktemp("forkserver") / "fs")
    server = subprocess.Popen(
        [sys.executable, str(FORKSERVER / "server.py"), path],
        stdin=subprocess.DEVNULL,
        env={k: v for k, v in os.environ.items() if not k.startswith("MCPTAPE_TEST_FORKSERVER")},
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not os.path.exists(path):
        assert server.poll() is None and time.monotonic() < deadline, "the fork server did not start"
        time.sleep(0.02)
    env = dict(os.environ)
    env.update(
        MCPTAPE_TEST_FORKSERVER=path,
        MCPTAPE_TEST_FORKSERVER_PYTHON=sys.executable,
        PYTHONPATH=str(FORKSERVER),
    )
    yield env
    server.kill()
    server.wait()


def script(tmp_path: Path, text: str = SDK_SCRIPT) -> str:
    path = tmp_path / "server.py"
    path.write_text(text)
    return str(path)


def waiting(tmp_path: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The SDK script started, handed over, past its first line and waiting on its stdin."""
    proc = subprocess.Popen(
        [sys.executable, script(tmp_path), "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(b"x\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"preloaded=True got=x argv=['wait']\n"
    return proc


def test_an_sdk_script_runs_forked_with_its_stdio_argv_and_exit_code(
    tmp_path: Path, forkserver: dict[str, str]
) -> None:
    """The script finds the SDK already imported, reads the caller's stdin, writes its stdout, sees
    its own argv and ends with its own exit code."""
    done = subprocess.run(
        [sys.executable, script(tmp_path), "3"],
        input=b"hello\n",
        capture_output=True,
        env=forkserver,
        timeout=60,
    )
    assert done.stdout == b"preloaded=True got=hello argv=['3']\n", done.stderr
    assert done.returncode == 3


def test_a_script_that_does_not_import_the_sdk_runs_as_usual(
    tmp_path: Path, forkserver: dict[str, str]
) -> None:
    """A script without an SDK import is not handed over (the SDK is not in its modules)."""
    text = SDK_SCRIPT.replace("from mcp import types", "import json")
    done = subprocess.run(
        [sys.executable, script(tmp_path, text), "0"],
        input=b"x\n",
        capture_output=True,
        env=forkserver,
        timeout=60,
    )
    assert done.stdout == b"preloaded=False got=x argv=['0']\n", done.stderr


def test_a_passed_descriptor_reaches_the_forked_script(tmp_path: Path, forkserver: dict[str, str]) -> None:
    """A descriptor the caller passed beyond stdio (the recorder's tap) is the script's, at its number."""
    read, write = os.pipe()
    try:
        done = subprocess.run(
            [sys.executable, script(tmp_path), "0", str(write)],
            input=b"x\n",
            capture_output=True,
            env=forkserver,
            pass_fds=(write,),
            timeout=60,
        )
        os.close(write)
        assert done.returncode == 0, done.stderr
        assert os.read(read, 100) == b"tap line\n"
    finally:
        os.close(read)


def test_a_signal_to_the_waiter_ends_the_script_by_that_signal(
    tmp_path: Path, forkserver: dict[str, str]
) -> None:
    """SIGTERM sent to the process the caller started reaches the script, and the caller sees the
    process killed by SIGTERM, as without the fork server."""
    proc = waiting(tmp_path, forkserver)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM
    assert proc.stdout and proc.stdin
    assert proc.stdout.read() == b""  # the script is gone: its end of the pipe is closed
    proc.stdin.close()


def test_a_killed_waiter_takes_the_script_with_it(tmp_path: Path, forkserver: dict[str, str]) -> None:
    """SIGKILL cannot be forwarded: the fork server kills the script when its waiter dies, so the
    pipes close as they would have."""
    proc = waiting(tmp_path, forkserver)
    proc.kill()
    proc.wait(timeout=30)
    assert proc.stdout and proc.stdin
    assert proc.stdout.read() == b""  # EOF: no process holds the pipe any more
    proc.stdin.close()

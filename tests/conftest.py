"""Shared fixtures: paths to the interpreter, the installed console script and the test servers."""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# A suite started as a background job of a non-interactive shell (`./dev.sh test &`, some CI
# runners) inherits SIGINT ignored, and so would every recorder and server it starts: the tests
# that stop them with SIGINT (as a user's Ctrl-C does) would wait for ever. Start from the
# disposition a terminal gives.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# A run starts a thousand Python processes (mcptape's commands, test servers, nested pytest runs).
# Under PYTHONDONTWRITEBYTECODE each compiles every mcptape module it imports, and each xdist worker
# rewrites every test module, every time: a sixth of the suite's CPU time. Keep the work tree free
# of bytecode as that setting asks, but cache it outside (set before the workers start, so they and
# every process they start inherit it).
if sys.dont_write_bytecode and not sys.pycache_prefix:
    _cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mcptape" / "pycache"
    sys.pycache_prefix, sys.dont_write_bytecode = str(_cache), False
    os.environ["PYTHONPYCACHEPREFIX"] = str(_cache)
    del os.environ["PYTHONDONTWRITEBYTECODE"]

# Replay holds back the tools/call of tools that may change data unless told (replay.guard). The
# suite's servers are its own, on scratch data: every replay here may call them (the environment
# variable reaches the commands and nested pytest runs the tests start). The tests of the guard
# itself remove it (tests/replay/test_replay_changes_no_data.py).
os.environ["MCPTAPE_ALLOW_MUTATING"] = "1"

FORKSERVER = Path(__file__).resolve().parent / "forkserver"


def _start_forkserver() -> None:
    """Start the run's fork server (tests/forkserver: the MCP SDK imported once for every SDK
    server and client the tests start) and put its hook on every process' PYTHONPATH. Once per run:
    the xdist workers and everything they start inherit the environment. MCPTAPE_NO_FORKSERVER=1
    runs every process from scratch."""
    if os.environ.get("MCPTAPE_TEST_FORKSERVER") or os.environ.get("MCPTAPE_NO_FORKSERVER"):
        return
    import atexit
    import tempfile

    folder = tempfile.mkdtemp(prefix="mcptape-fork-")
    path = os.path.join(folder, "socket")
    server = subprocess.Popen(
        [sys.executable, str(FORKSERVER / "server.py"), path],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def stop() -> None:
        server.kill()
        server.wait()
        shutil.rmtree(folder, ignore_errors=True)

    atexit.register(stop)
    os.environ["MCPTAPE_TEST_FORKSERVER"] = path
    os.environ["MCPTAPE_TEST_FORKSERVER_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(FORKSERVER), os.environ.get("PYTHONPATH")]))


_start_forkserver()

ROOT = Path(__file__).resolve().parent.parent
SERVERS = Path(__file__).resolve().parent / "servers"
NODE_DIR = Path(__file__).resolve().parent / "node"
PYTHON = sys.executable

# A nested `python -m pytest` (a test of mcptape's own pytest plugins), without the plugins of this
# virtualenv it never uses: hypothesis, syrupy and textual's snapshots cost 2-3 s of start-up each
# time, in each of its xdist workers too.
UNUSED_PLUGINS = (
    "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:syrupy", "-p", "no:textual-snapshot",
)  # fmt: skip
NESTED_PYTEST = (PYTHON, "-m", "pytest", *UNUSED_PLUGINS)


def console_script() -> str:
    """The installed `mcptape` script next to this interpreter (what an MCP client would run)."""
    candidate = Path(sys.executable).parent / "mcptape"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("mcptape")
    assert found, "the mcptape console script is not installed (run ./dev.sh test)"
    return found


def server_everything() -> list[str]:
    """The command line of @modelcontextprotocol/server-everything on stdio (installed by dev.sh)."""
    script = NODE_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    node = shutil.which("node")
    assert node and script.exists(), "run ./dev.sh test to install the npm test servers (needs node and npm)"
    return [node, str(script), "stdio"]


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder `name`, filled by `make` once per test run and shared by every xdist worker.

    For an expensive run (a client probe, the docs' sandbox) that several tests read: the first
    worker to ask makes it under the run's base temporary folder while holding a lock, the others
    wait for it and read the same files. A `make` that fails is tried again by the next caller.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # a worker's folder is popen-gwN under the run's
    folder = base / f"once-{name}"
    with open(base / f"once-{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (folder / ".made").exists():
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir()
                make(folder)
                (folder / ".made").touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return folder


@pytest.fixture(scope="session")
def demo_transcripts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`mcptape demo`'s recordings (the official SDK client and the bundled server, through `mcptape
    record`): demo-clean.jsonl, demo-buggy.jsonl (noise on stdout, an action before its
    authorisation check) and demo-replay.jsonl, made once per run for every xdist worker (read
    them, never modify them: copy what a test changes)."""

    def make(folder: Path) -> None:
        done = subprocess.run(
            [console_script(), "demo", "--no-view", "-o", str(folder / "demo-transcripts")],
            cwd=folder,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=300,
            check=False,
        )
        said = done.stdout.decode() + done.stderr.decode()
        assert (folder / "demo-transcripts" / "demo-replay.jsonl").exists(), said

    return once_per_run(tmp_path_factory, "demo", make) / "demo-transcripts"


E2E = Path(__file__).resolve().parent / "e2e"
SCHEDULED_AT_ONCE = 16


def pytest_configure(config: pytest.Config) -> None:
    """xdist hands a worker at most `SCHEDULED_AT_ONCE` tests at a time (its `--maxschedchunk`,
    unless given), not a quarter of the suite split among the workers at the start (143 slow tests
    each with -n 4): a worker that drew slow tests does not hold a long queue of them while the
    others run dry, and 16 keeps most modules' tests (and their module fixtures) on one worker."""
    if getattr(config.option, "maxschedchunk", 0) is None:
        config.option.maxschedchunk = SCHEDULED_AT_ONCE


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/e2e/ (sweeps against real servers) is `slow`, as a module elsewhere
    says with `pytestmark = pytest.mark.slow`; and the slow tests run first.

    xdist hands out the tests in this order: the slow ones first (seconds each, the recordings
    made once per run among them) and the fast ones last (milliseconds each), so the workers end
    together on small pieces instead of one worker finishing a slow module while the others wait
    (the longest first, as a scheduler of unequal jobs does). The order is stable: a module's
    tests stay together and in their order."""
    for item in items:
        if item.path.is_relative_to(E2E):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def mcptape_bin() -> str:
    return console_script()


@pytest.fixture
def echo_server() -> list[str]:
    return [PYTHON, str(SERVERS / "echo_tool.py")]

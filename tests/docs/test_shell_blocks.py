"""Every shell block of README.md and docs/*.md runs as written, against the bundled demo server.

A block is a fence tagged `sh`, `bash`, `shell` (each command line runs) or `console` (each `$ `
line runs). Each command runs with bash in a fresh copy of a sandbox where the names the docs use
exist: `python -m my_server`, `./server`, `./new-build` and `my_client.py` are the bundled demo
server and a small client; `session.jsonl`, `old.jsonl`, `new.jsonl`, `transcripts/`, `tapes/`,
`tests/transcripts/greet.jsonl` and `demo-transcripts/` are real recordings of it (`mcptape demo`);
`~` is the sandbox's. A command passes when it exits 0 or 1 (mcptape's "clean/same" and
"findings/different"), not 2 (a usage error, an unreadable input) nor 126/127 (not runnable).

The demo server's name in the sandbox (`my_server`, `./server`, the command the recordings other
than `demo-transcripts/` name) runs the demo server's code on tests/servers/lite.py
(tests/servers/fast/demo_server.py): the subject is the commands, and the blocks start the server
about 40 times (0.8 s of CPU each on the SDK, 0.05 s on lite). A block that names
`python -m mcptape.demo.server` or replays `demo-transcripts/` gets the real one.

A block that cannot run here (it needs the network, a user's MCP client or a terminal) carries a
marker comment on the line above its fence, which this test honours and requires a reason for:

    <!-- docs-test: skip (network: installs from a package index) -->
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, SERVERS, UNUSED_PLUGINS, once_per_run

pytestmark = pytest.mark.slow

SHELLS = ("sh", "bash", "shell", "console")
FENCE = re.compile(r"^```([a-z]*)[^\n]*\n(.*?)^```", re.M | re.S)
RECORD_OUTPUT = re.compile(r"^(?:\w+=\S+ )*mcptape record .*?-o (\S+\.jsonl) ")
RECORDING = re.compile(r"^(?:\w+=\S+ )*mcptape record ")
MARKER = re.compile(r"<!--\s*docs-test:\s*skip\s*\(([^)]+)\)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    lang: str
    text: str
    skip: str | None

    @property
    def commands(self) -> list[str]:
        if self.lang == "console":
            return [line[2:] for line in self.text.splitlines() if line.startswith("$ ")]
        return [c for c in self.text.replace("\\\n", " ").splitlines() if c.strip() and not c.startswith("#")]


def blocks() -> list[Block]:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            if match.group(1) not in SHELLS:
                continue
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = MARKER.search(before)
            line = text.count("\n", 0, match.start()) + 1
            block = Block(
                path.name, line, match.group(1), match.group(2), marker.group(1) if marker else None
            )
            found.append(block)
    return found


BLOCKS = blocks()
DEMO_SERVER = ("-m", "mcptape.demo.server")
FAST_DEMO_SERVER = SERVERS / "fast" / "demo_server.py"  # the demo server's code on lite
MY_SERVER = f"import runpy\nrunpy.run_path({str(FAST_DEMO_SERVER)!r}, run_name='__main__')\n"
MY_CLIENT = '''"""A stdio client of the 2026-07-28 revision, by hand: it starts the server its arguments
name, asks it for server/discover and tools/list (as the demo's client did), skips lines that are
not JSON-RPC and gives up on an answer after 5 s."""
import json
import queue
import subprocess
import sys
import threading

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "mcp", "version": "0.1.0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lines = queue.Queue()
threading.Thread(target=lambda: [*map(lines.put, server.stdout), lines.put(b"")], daemon=True).start()


def ask(rid, method):
    request = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {"_meta": META}}
    server.stdin.write(json.dumps(request).encode() + b"\\n")
    server.stdin.flush()
    while True:
        try:
            line = lines.get(timeout=5)
        except queue.Empty:
            sys.exit(f"my_client: no answer to {method} in 5 s")
        if not line:
            sys.exit("my_client: the server closed its stdout")
        try:
            message = json.loads(line)
        except ValueError:
            continue  # a banner, noise
        if isinstance(message, dict) and message.get("id") == rid and "method" not in message:
            return message


ask(1, "server/discover")
print([tool["name"] for tool in ask(2, "tools/list")["result"]["tools"]])
server.stdin.close()
server.wait(5)
'''

# `./server` and `./new-build`: the demo server on stdio. Asked for a port (`./server --port 8000`,
# an HTTP build), it says it has none and exits at once, so `record --http-upstream` ends with the
# server's code instead of waiting 30 s for a port nobody opens.
STAND_IN = """#!/bin/sh
case " $* " in *" --port "*) echo "server: this stand-in speaks stdio only" >&2; exit 1;; esac
exec {python} {server}
"""


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory, demo_transcripts: Path) -> Path:
    """The names the docs use, made real once per test run, for every xdist worker (each command
    gets a copy); `demo-transcripts/` is what `mcptape demo` writes (tests/conftest.py's)."""
    return once_per_run(tmp_path_factory, "docs-sandbox", lambda root: _make_sandbox(root, demo_transcripts))


def _make_sandbox(root: Path, demo_transcripts: Path) -> None:
    demo = root / "demo-transcripts"
    shutil.copytree(demo_transcripts, demo)
    (root / "my_server.py").write_text(MY_SERVER)
    (root / "my_client.py").write_text(MY_CLIENT)
    for name in ("server", "new-build"):
        script = root / name
        script.write_text(STAND_IN.format(python=sys.executable, server=FAST_DEMO_SERVER))
        script.chmod(0o755)
    copies = {"session.jsonl": "demo-clean", "old.jsonl": "demo-clean", "new.jsonl": "demo-buggy"}
    copies |= {
        f"{folder}/{path.stem}.jsonl": path.stem
        for folder in ("transcripts", "tapes")
        for path in demo.glob("*.jsonl")
    }
    copies["tests/transcripts/greet.jsonl"] = "demo-clean"
    for name, source in copies.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        _copy_naming_the_fast_server(demo / f"{source}.jsonl", root / name)
    (root / "home").mkdir()


def _copy_naming_the_fast_server(source: Path, target: Path) -> None:
    """A copy of a recording of `python -m mcptape.demo.server [FLAGS]` whose header names its build
    on lite instead (what `mcptape replay` runs when no server is given); the lines are unchanged."""
    header, rest = source.read_bytes().split(b"\n", 1)
    record = json.loads(header)
    command = record["command"]
    assert command[1:3] == list(DEMO_SERVER), command
    record["command"] = [command[0], str(FAST_DEMO_SERVER), *command[3:]]
    target.write_bytes(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" + rest)


def _run(command: str, sandbox: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    where = tmp_path / "sandbox"
    shutil.copytree(sandbox, where, symlinks=True)
    written = RECORD_OUTPUT.match(command)
    if written:  # record refuses to overwrite (as the docs say): the file it writes is not pre-made
        (where / written.group(1)).unlink(missing_ok=True)
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "HOME": str(where / "home"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "XDG_STATE_HOME": str(where / "home" / ".state"),
        "PYTEST_ADDOPTS": " ".join(UNUSED_PLUGINS),  # a `pytest` of the docs loads only what it uses
        "PYTEST_XDIST_AUTO_NUM_WORKERS": "1",  # and its `-n auto` starts one worker, not one per core
    }
    env.pop("MCPTAPE_DIR", None)
    return subprocess.run(
        ["bash", "-c", command],
        cwd=where,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=240,
    )


def _id(block: Block) -> str:
    return f"{block.doc}:{block.line}"


@pytest.mark.timeout(600)  # a block of several replays or a probe, on a loaded machine
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.skip is None], ids=_id)
def test_every_command_of_the_block_runs_as_written(block: Block, sandbox: Path, tmp_path: Path) -> None:
    """Each command exits 0 or 1: no usage error, no missing file or command."""
    assert block.commands, f"{_id(block)}: a shell block without a command"

    def run(n: int, command: str) -> tuple[float, subprocess.CompletedProcess[str]]:
        started = time.monotonic()
        result = _run(command, sandbox, tmp_path / str(n))
        return time.monotonic() - started, result

    # each command runs in its own copy of the sandbox, so they run side by side: most of a
    # record's time is the wait for the demo server after its stdin closed
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(run, range(len(block.commands)), block.commands))
    for command, (seconds, result) in zip(block.commands, runs, strict=True):
        print(f"{seconds:6.1f}s  {command}")
        said = result.stdout[-2000:] + result.stderr[-2000:]
        # record exits with the server's code: the demo server outlives its closed stdin, so the
        # shutdown order's SIGTERM ends it (143), as the README says
        allowed = (0, 1, 143) if RECORDING.match(command) else (0, 1)
        assert result.returncode in allowed, f"{_id(block)}: `{command}` exited {result.returncode}\n{said}"


def test_every_skip_marker_gives_a_reason_and_stays_rare() -> None:
    """Skipped blocks say why, and they are the exception (a handful), not the rule."""
    skipped = [b for b in BLOCKS if b.skip is not None]
    assert all(b.skip and b.skip.strip() for b in skipped)
    assert len(skipped) <= 8, [_id(b) for b in skipped]
    assert len(BLOCKS) - len(skipped) >= 10
